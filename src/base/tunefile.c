/*
 * The `tunable NAME VALUE` lines of a tuning file (docs/TUNING.md): values
 * measured on a machine by rdmach-tune (the large-message strategy within a
 * node, ...) that the library takes unless the environment sets them. The
 * collective rows of the same file are read by src/coll (coll_tuning.c),
 * which passes over these lines; both check the header.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "base/tunables.h"

rdmach_status_t rch_base_tun_file(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s: cannot open it: %s", path,
                            strerror(errno));
    char line[1024], why[1100];
    int lineno = 0, header = 0;
    rdmach_status_t st = RDMACH_OK;
    while (st == RDMACH_OK && fgets(line, sizeof(line), fp)) {
        lineno++;
        char *hash = strchr(line, '#'), *f[4], *save = NULL;
        int n = 0;
        if (hash)
            *hash = 0;
        for (char *t = strtok_r(line, " \t\r\n", &save); t && n < 4; t = strtok_r(NULL, " \t\r\n", &save))
            f[n++] = t;
        if (n == 0)
            continue;
        if (!header) {
            header = 1;
            if (n != 2 || strcmp(f[0], "rdmach-tuning") != 0 || strcmp(f[1], "1") != 0)
                st = rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: expected the header "
                                  "'rdmach-tuning 1' before any row", path, lineno);
            continue;
        }
        if (strcmp(f[0], "tunable") != 0)
            continue;     /* a collective row */
        if (n != 3) {
            st = rch_base_err(RDMACH_ERR_CONFIG, "tuning file %s:%d: expected 'tunable NAME VALUE', "
                              "found %s%d fields", path, lineno, n > 3 ? "more than " : "", n > 3 ? 3 : n);
            break;
        }
        snprintf(why, sizeof(why), "tuning file %s:%d", path, lineno);
        st = rch_base_tun_set(f[1], f[2], RCH_TUN_FROM_FILE, why);
        if (st != RDMACH_OK) {
            char cause[512];     /* the message is rebuilt in the same buffer */
            snprintf(cause, sizeof(cause), "%s", rdmach_last_error());
            st = rch_base_err(RDMACH_ERR_CONFIG, "%s: %s", why, cause);
        }
    }
    fclose(fp);
    return st;
}
