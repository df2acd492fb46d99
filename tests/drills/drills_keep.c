/*
 * drills_keep PROGRAM ARGS...: run PROGRAM as a child and exit 0 however it
 * ends, so the launcher keeps the other ranks alive.
 *
 * Why: Hydra (4.0.2) with -disable-auto-cleanup sends the other ranks
 * SIGUSR1 when a rank's PMI socket closes before PMI finalize, but when the
 * rank it started then dies by a signal it SIGKILLs the rest anyway; and
 * rdmachrun ends the job at a rank's death. A rank killed while others live
 * on (a node's OOM killer, a failed node under a fault-tolerant launcher)
 * is what the death drills need. The child holds the PMI socket alone (our
 * copy is closed), so its death is what Hydra sees on the socket; we stand
 * for it in the launcher's exit statuses, and print how it ended.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void ignore(int sig)
{
    (void)sig;  /* the launcher's SIGUSR1 is for the child (same process group) */
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: drills_keep program [args...]\n");
        return 2;
    }
    /* a handler, not SIG_IGN: the child must start with SIGUSR1's default action */
    signal(SIGUSR1, ignore);
    pid_t pid = fork();
    if (pid < 0) {
        perror("drills_keep: fork");
        return 2;
    }
    if (pid == 0) {
        signal(SIGUSR1, SIG_DFL);
        execvp(argv[1], argv + 1);
        perror("drills_keep: exec");
        _exit(127);
    }
    const char *fd = getenv("PMI_FD");
    if (fd)
        close(atoi(fd));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status))
        fprintf(stderr, "drills_keep: %s (pid %d) ended by signal %d (%s)\n", argv[1], (int)pid, WTERMSIG(status),
                strsignal(WTERMSIG(status)));
    return 0;
}
