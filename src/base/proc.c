/*
 * What this process can learn about another process of the host without
 * its help, for the liveness checks of the channels and the device:
 * whether it is gone and whether it is stopped (SIGSTOP, a job-control
 * stop): a stopped process never runs its progress again, so no message of
 * its own can say so.
 *
 * And the "a process failed" alert: Hydra's proxy sends SIGUSR1 to the
 * remaining ranks when one fails (with -disable-auto-cleanup, the launcher
 * mode that lets them live on). Its default action kills the process, so a
 * rank without a handler can never report the failure. As MPICH does, the
 * library installs a handler that counts the alerts (the liveness checks
 * then run at once instead of at their next period) and chains to the
 * handler it replaced; RDMACH_SIGUSR1 says when: auto (default) only if
 * SIGUSR1 has its default action (the program has not claimed it), on
 * (always, chaining to the program's handler), off (never). The handler is
 * removed again at finalize if it is still ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"

int rch_base_proc_stopped(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? -1 : 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* "pid (comm) S ...": comm may hold anything, the state follows its last ')' */
    const char *rp = strrchr(buf, ')');
    if (rp == NULL || rp[1] != ' ')
        return 0;
    if (rp[2] == 'Z' || rp[2] == 'X')
        return -1;         /* exited, not yet reaped */
    return rp[2] == 'T';   /* 't' (stopped by a tracer, a debugger) is not a hang */
}

/* ---- SIGUSR1: "a process failed" ---- */

static unsigned alerts;                  /* atomic: the handler bumps it */
static struct sigaction prev;            /* the disposition we replaced */
static int installed;

static void on_sigusr1(int sig, siginfo_t *si, void *uc)
{
    __atomic_fetch_add(&alerts, 1, __ATOMIC_RELAXED);
    if (prev.sa_flags & SA_SIGINFO) {
        if (prev.sa_sigaction)
            prev.sa_sigaction(sig, si, uc);
    } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
        prev.sa_handler(sig);
    }
}

unsigned rch_base_alerts(void)
{
    return __atomic_load_n(&alerts, __ATOMIC_RELAXED);
}

void rch_base_alert_install(void)
{
    if (installed || rch_tun.sigusr1 == RCH_SIGUSR1_OFF)
        return;
    struct sigaction cur;
    if (sigaction(SIGUSR1, NULL, &cur) != 0)
        return;
    int claimed = (cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL;
    if (claimed && rch_tun.sigusr1 == RCH_SIGUSR1_AUTO) {
        RCH_DEBUG("base", "SIGUSR1 has a handler of the program's: none installed (RDMACH_SIGUSR1=auto)");
        return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sigusr1;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, &prev) != 0) {
        RCH_WARN("base", "installing the SIGUSR1 handler: %s", strerror(errno));
        return;
    }
    installed = 1;
}

void rch_base_alert_uninstall(void)
{
    if (!installed)
        return;
    struct sigaction cur;
    if (sigaction(SIGUSR1, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigusr1)
        sigaction(SIGUSR1, &prev, NULL);
    installed = 0;
}

/* ---- whole-job aborts (base.h) ---- */

static void (*abort_announce)(int code);
static int abort_seen;                  /* atomic: 1 + set below */
static int abort_seen_code;

void rch_base_abort_hook(void (*announce)(int code))
{
    __atomic_store_n(&abort_announce, announce, __ATOMIC_RELEASE);
}

void rch_base_abort_announce(int code)
{
    void (*fn)(int) = __atomic_load_n(&abort_announce, __ATOMIC_ACQUIRE);
    if (fn)
        fn(code);
}

void rch_base_abort_seen(int code)
{
    int none = 0;
    if (__atomic_load_n(&abort_seen, __ATOMIC_ACQUIRE))
        return;
    abort_seen_code = code;
    __atomic_compare_exchange_n(&abort_seen, &none, 1, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

int rch_base_abort_code(int *code)
{
    if (!__atomic_load_n(&abort_seen, __ATOMIC_ACQUIRE))
        return 0;
    *code = abort_seen_code;
    return 1;
}
