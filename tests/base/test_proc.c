/* What base/proc.c tells of another process (stopped, running, gone), and
 * the SIGUSR1 alert handler: installed per RDMACH_SIGUSR1, counting, chained
 * to the program's handler, removed again. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/base.h"
#include "base/tunables.h"

static pid_t child_that_waits(void)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

Test(proc, stopped_running_gone)
{
    pid_t pid = child_that_waits();
    int st;
    cr_assert_eq(kill(pid, SIGSTOP), 0);
    cr_assert_eq(waitpid(pid, &st, WUNTRACED), pid);
    cr_assert(WIFSTOPPED(st));
    cr_expect_eq(rch_base_proc_stopped(pid), 1, "a SIGSTOPped process is stopped");
    cr_assert_eq(kill(pid, SIGCONT), 0);
    cr_assert_eq(waitpid(pid, &st, WCONTINUED), pid);
    cr_expect_eq(rch_base_proc_stopped(pid), 0, "a continued process runs (or sleeps)");
    cr_assert_eq(kill(pid, SIGKILL), 0);
    siginfo_t si;
    cr_assert_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
    cr_expect_eq(rch_base_proc_stopped(pid), -1, "a zombie is gone");
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_expect_eq(rch_base_proc_stopped(pid), -1, "a reaped process is gone");
}

static volatile sig_atomic_t program_calls;

static void program_handler(int sig)
{
    (void)sig;
    program_calls++;
}

static int disposition_is(void (*h)(int))
{
    struct sigaction cur;
    sigaction(SIGUSR1, NULL, &cur);
    return !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == h;
}

Test(proc, sigusr1_auto_takes_the_default_and_gives_it_back)
{
    signal(SIGUSR1, SIG_DFL);
    rch_tun.sigusr1 = RCH_SIGUSR1_AUTO;
    rch_base_alert_install();
    unsigned before = rch_base_alerts();
    cr_assert_eq(raise(SIGUSR1), 0);   /* would kill the process without the handler */
    cr_expect_eq(rch_base_alerts(), before + 1);
    rch_base_alert_uninstall();
    cr_expect(disposition_is(SIG_DFL), "the default action is back after uninstall");
}

Test(proc, sigusr1_auto_leaves_the_programs_handler)
{
    signal(SIGUSR1, program_handler);
    rch_tun.sigusr1 = RCH_SIGUSR1_AUTO;
    rch_base_alert_install();
    cr_expect(disposition_is(program_handler), "auto must not replace the program's handler");
    unsigned before = rch_base_alerts();
    program_calls = 0;
    raise(SIGUSR1);
    cr_expect_eq(program_calls, 1);
    cr_expect_eq(rch_base_alerts(), before);
    rch_base_alert_uninstall();
    cr_expect(disposition_is(program_handler));
}

Test(proc, sigusr1_on_chains_to_the_programs_handler)
{
    signal(SIGUSR1, program_handler);
    rch_tun.sigusr1 = RCH_SIGUSR1_ON;
    rch_base_alert_install();
    unsigned before = rch_base_alerts();
    program_calls = 0;
    raise(SIGUSR1);
    cr_expect_eq(rch_base_alerts(), before + 1);
    cr_expect_eq(program_calls, 1, "the program's handler runs after ours");
    rch_base_alert_uninstall();
    cr_expect(disposition_is(program_handler), "the program's handler is back after uninstall");
}

Test(proc, sigusr1_off_installs_nothing)
{
    signal(SIGUSR1, SIG_DFL);
    rch_tun.sigusr1 = RCH_SIGUSR1_OFF;
    rch_base_alert_install();
    cr_expect(disposition_is(SIG_DFL));
    rch_base_alert_uninstall();
}
