/* Plots for the tools (see tool_plot.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tool_plot.h"

int rch_tool_plot(const char *script, const char *arg)
{
    /* the distribution's python first: a user's own python3 (pyenv, venv)
     * often lacks matplotlib */
    static const char *pythons[] = { "python3", "/usr/bin/python3" };
    char exe[PATH_MAX], cmd[3 * PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (l <= 0) {
        printf("plots not made: cannot find the program's directory\n");
        return -1;
    }
    exe[l] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    fflush(stdout); /* the script writes to the same stdout */
    for (size_t i = 0; i < sizeof(pythons) / sizeof(pythons[0]); i++) {
        snprintf(cmd, sizeof(cmd), "%s -c 'import matplotlib' >/dev/null 2>&1", pythons[i]);
        if (system(cmd) != 0)
            continue;
        snprintf(cmd, sizeof(cmd), "%s '%s/%s' '%s'", pythons[i], exe, script, arg);
        if (system(cmd) != 0) {
            printf("plots not made: %s failed\n", cmd);
            return -1;
        }
        return 0;
    }
    printf("plots not made: no python3 with matplotlib (install python3-matplotlib); the CSV is in %s\n", arg);
    return -1;
}
