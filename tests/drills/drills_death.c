/*
 * drills_death WAIT DIE [usr1]: the last rank (the victim) dies while every other
 * rank (a survivor) is blocked waiting for it; each survivor must get an
 * error that names the victim, soon.
 *
 *   WAIT  recv     MPI_Recv from the victim
 *         any      MPI_Recv from MPI_ANY_SOURCE
 *         wait     MPI_Irecv from the victim, MPI_Wait
 *         waitany  two MPI_Irecv from the victim, MPI_Waitany
 *         barrier  MPI_Barrier
 *         bcast    MPI_Bcast rooted at the victim
 *         fence    MPI_Win_fence on a window of all ranks
 *         getw     MPI_Barrier, after the victim's last act: an MPI_Get of
 *                  a vector of 64 K ints from rank 0's MPI_Win_create
 *                  memory, left incomplete, which rank 0 answers by writing
 *                  into the victim's buffer (GETW, src/device/rma_getw.c)
 *                  while or after it dies (which of the two is timing:
 *                  tests/mpi/test_rma_getw_death.c, _lost, makes sure
 *                  chunk writes are in flight when the origin dies)
 *         test     MPI_Irecv from the victim, MPI_Test in a loop (polling)
 *         mt       MPI_Recv from the victim at MPI_THREAD_MULTIPLE (the
 *                  device's waits poll there and never sleep)
 *         probe    MPI_Probe from the victim
 *         mprobe   MPI_Mprobe from MPI_ANY_SOURCE
 *         anylate  MPI_Recv from the victim, and once that has failed, an
 *                  MPI_Irecv from MPI_ANY_SOURCE posted after the failure
 *                  is known, MPI_Wait: nobody else sends, so it must fail
 *                  too (the error returned is the second one's)
 *   DIE   kill     raise(SIGKILL)
 *         exit     _exit(0), no MPI_Finalize
 *         stop     raise(SIGSTOP): a hang (the first survivor SIGKILLs it when done)
 *         compute  no death: the victim computes COMPUTE_S without calling
 *                  MPI (longer than any liveness timeout), then sends each
 *                  survivor COMPUTE_VALUE, tag 0; the survivors (WAIT recv
 *                  only) must receive it, not an error: a rank that
 *                  computes is not a hung one
 *   usr1  the program handles SIGUSR1 itself (installed before MPI_Init):
 *         under Hydra the survivors must see it called (the library keeps
 *         it, RDMACH_SIGUSR1=auto, or chains to it, =on), and with auto
 *         the library hears of no failure from the launcher: its own
 *         liveness checks must find the death.
 *
 * The ranks agree on a moment of death T (MPI_Wtime, CLOCK_MONOTONIC: one
 * clock on the host) 0.5 s ahead, so the survivors have gone through spin
 * and yield and sleep in the device's wait when the victim dies. Each
 * survivor prints how long after T its wait returned, and PASS when the
 * error's class is MPI_ERR_PROC_ABORTED, its text names the victim's rank
 * and it came within LIMIT_S (generous: the machine is shared; the target is
 * 2 s, the printed figure is the measure). A survivor still waiting
 * NO_ERROR_S after T prints FAIL and ends the job. The lines also go to the
 * file $DRILLS_REPORT if set (check_death.sh: Hydra may exit before it
 * forwards a rank's output). A survivor leaves only when every survivor
 * has reported (each holds a shared lock on that file until it has, then
 * waits for an exclusive one): one that left early would be a second
 * failure for the others to see.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>

#define AHEAD_S 0.5
#define LIMIT_S 10.0
#define NO_ERROR_S 20
#define COMPUTE_S 3.5               /* over twice RDMACH_HEARTBEAT_TIMEOUT's default 1.5 s */
#define COMPUTE_VALUE 4242
#define GETW_INTS 65536

static int rank, victim;
static pid_t victim_pid;
static const char *wait_name, *die_name;

static int report_fd = -1;
static volatile sig_atomic_t usr1_calls;

static void on_usr1(int sig)
{
    (void)sig;
    usr1_calls++;
}

/* One line to stdout and to the report file (one write each: async-signal-safe). */
static void say(const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING + 256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(msg))
        n = (int)sizeof(msg) - 1;
    if (write(1, msg, (size_t)n) < 0 || (report_fd >= 0 && write(report_fd, msg, (size_t)n) < 0))
        return;
}

static const char *waiting_for = "error";

static void on_alarm(int sig)
{
    (void)sig;
    say("drills_death: FAIL: rank %d: %s: no %s %d s after rank %d died (%s)\n", rank, wait_name, waiting_for,
        NO_ERROR_S, victim, die_name);
    if (victim_pid > 0)
        kill(victim_pid, SIGKILL);
    _exit(1);
}

static unsigned long long pid_ns(void)
{
    struct stat sb;
    return stat("/proc/self/ns/pid", &sb) == 0 ? (unsigned long long)sb.st_ino : 0;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* compute mode: the victim computes (no MPI call), then sends; a survivor
 * must receive the value. Both finalize. */
static int compute(double t_die, int size)
{
    if (rank == victim) {
        volatile double x = 1.0;
        while (mono_s() < t_die + COMPUTE_S)
            x = x * 1.0000001 + 1e-9;
        int v = COMPUTE_VALUE;
        for (int r = 0; r < size - 1; r++)
            MPI_Send(&v, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    int v = 0;
    int rc = MPI_Recv(&v, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t = MPI_Wtime() - t_die;
    int ok = rc == MPI_SUCCESS && v == COMPUTE_VALUE && t >= COMPUTE_S - 0.01;
    say("drills_death: %s: rank %d %s %d after %.3f s (rc %d; the victim computed %.1f s without MPI)\n",
        ok ? "PASS" : "FAIL", rank, ok ? "got the message" : "did not get", COMPUTE_VALUE, t, rc, COMPUTE_S);
    MPI_Finalize();
    return ok ? 0 : 1;
}

static void die(const char *how)
{
    if (strcmp(how, "kill") == 0)
        raise(SIGKILL);
    else if (strcmp(how, "stop") == 0)
        raise(SIGSTOP);
    _exit(0);
}

/* Wait in the way named; return the first MPI error code. */
static int wait_for_victim(const char *how, MPI_Win win)
{
    int buf[2] = { 0, 0 };
    MPI_Status st;
    MPI_Request rq[2];
    if (strcmp(how, "recv") == 0)
        return MPI_Recv(buf, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, &st);
    if (strcmp(how, "any") == 0)
        return MPI_Recv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
    if (strcmp(how, "wait") == 0) {
        int rc = MPI_Irecv(buf, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, &rq[0]);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&rq[0], &st);
    }
    if (strcmp(how, "waitany") == 0) {
        int rc = MPI_Irecv(&buf[0], 1, MPI_INT, victim, 0, MPI_COMM_WORLD, &rq[0]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Irecv(&buf[1], 1, MPI_INT, victim, 1, MPI_COMM_WORLD, &rq[1]);
        int idx;
        return rc != MPI_SUCCESS ? rc : MPI_Waitany(2, rq, &idx, &st);
    }
    if (strcmp(how, "barrier") == 0)
        return MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(how, "bcast") == 0)
        return MPI_Bcast(buf, 2, MPI_INT, victim, MPI_COMM_WORLD);
    if (strcmp(how, "fence") == 0)
        return MPI_Win_fence(0, win);
    if (strcmp(how, "getw") == 0)
        return MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(how, "test") == 0) {
        int rc = MPI_Irecv(buf, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, &rq[0]);
        int flag = 0;
        while (rc == MPI_SUCCESS && !flag)
            rc = MPI_Test(&rq[0], &flag, &st);
        return rc;
    }
    if (strcmp(how, "mt") == 0)
        return MPI_Recv(buf, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, &st);
    if (strcmp(how, "probe") == 0)
        return MPI_Probe(victim, 0, MPI_COMM_WORLD, &st);
    if (strcmp(how, "mprobe") == 0) {
        MPI_Message msg;
        return MPI_Mprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &msg, &st);
    }
    if (strcmp(how, "anylate") == 0) {
        if (MPI_Recv(buf, 1, MPI_INT, victim, 0, MPI_COMM_WORLD, &st) == MPI_SUCCESS)
            return MPI_SUCCESS;      /* the caller reports a wait that did not fail */
        int rc = MPI_Irecv(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &rq[0]);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&rq[0], &st);
    }
    fprintf(stderr, "drills_death: unknown way of waiting '%s'\n", how);
    exit(2);
}

int main(int argc, char **argv)
{
    int own_usr1 = argc == 4 && strcmp(argv[3], "usr1") == 0;
    if ((argc != 3 && !own_usr1) ||
        (strcmp(argv[2], "kill") && strcmp(argv[2], "exit") && strcmp(argv[2], "stop") &&
         strcmp(argv[2], "compute")) ||
        (strcmp(argv[2], "compute") == 0 && strcmp(argv[1], "recv") != 0)) {
        fprintf(stderr, "usage: drills_death recv|any|wait|waitany|barrier|bcast|fence|getw|test|mt|probe|mprobe|anylate "
                        "kill|exit|stop [usr1]\n"
                        "       drills_death recv compute\n");
        return 2;
    }
    if (own_usr1)
        signal(SIGUSR1, on_usr1);
    wait_name = argv[1];
    die_name = argv[2];
    const char *report = getenv("DRILLS_REPORT");
    if (report && *report)
        report_fd = open(report, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    int provided;
    MPI_Init_thread(&argc, &argv, strcmp(wait_name, "mt") == 0 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                    &provided);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "drills_death: needs 2 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    victim = size - 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int winbuf = 0;
    MPI_Win win = MPI_WIN_NULL;
    if (strcmp(wait_name, "fence") == 0) {
        MPI_Win_create(&winbuf, sizeof(winbuf), sizeof(winbuf), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        MPI_Win_fence(0, win);
    }
    int *getw_mem = NULL, *getw_out = NULL;
    MPI_Datatype getw_type = MPI_DATATYPE_NULL;
    if (strcmp(wait_name, "getw") == 0) {
        getw_mem = calloc(GETW_INTS * 2, sizeof(int));
        getw_out = calloc(GETW_INTS, sizeof(int));
        MPI_Win_create(getw_mem, GETW_INTS * 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        MPI_Type_vector(GETW_INTS, 1, 2, MPI_INT, &getw_type);
        MPI_Type_commit(&getw_type);
    }
    /* a first barrier while all live: a barrier backend sets itself up then
     * (the shm backend's segment), so the one below waits in its steady state */
    MPI_Barrier(MPI_COMM_WORLD);
    /* the victim's pid, and the moment of death; its pid is ours to kill
     * only in our pid namespace (death_pidns.cmake runs a rank in another) */
    unsigned long long who[2] = { (unsigned long long)getpid(), pid_ns() }, mine = who[1];
    MPI_Bcast(who, 2, MPI_UNSIGNED_LONG_LONG, victim, MPI_COMM_WORLD);
    victim_pid = who[1] == mine ? (pid_t)who[0] : 0;
    if (rank != victim && report_fd >= 0)
        flock(report_fd, LOCK_SH);      /* released when this survivor has reported */
    MPI_Barrier(MPI_COMM_WORLD);
    double t_die = MPI_Wtime() + AHEAD_S;
    MPI_Bcast(&t_die, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (strcmp(die_name, "compute") == 0)
        return compute(t_die, size);

    if (rank == victim) {
        double left = t_die - MPI_Wtime();
        if (left > 0) {
            struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };
            nanosleep(&ts, NULL);
        }
        if (win != MPI_WIN_NULL && getw_type != MPI_DATATYPE_NULL) {
            MPI_Win_lock_all(0, win);
            MPI_Get(getw_out, GETW_INTS, MPI_INT, 0, 0, 1, getw_type, win);
        }
        die(die_name);
    }
    signal(SIGALRM, on_alarm);
    alarm((unsigned)(AHEAD_S + NO_ERROR_S));
    int rc = wait_for_victim(wait_name, win);
    double t = MPI_Wtime() - t_die;
    if (own_usr1 && strcmp(die_name, "stop") != 0) {
        /* Hydra's SIGUSR1 may come after the error (a broken connection is
         * seen first): wait for it */
        sigset_t usr1, old;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        sigprocmask(SIG_BLOCK, &usr1, &old);
        waiting_for = "SIGUSR1 for the program's handler";
        while (usr1_calls == 0)
            sigsuspend(&old);
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    alarm(0);
    if (rank == 0 && victim_pid > 0 && strcmp(die_name, "stop") == 0)
        kill(victim_pid, SIGKILL);

    int cls = -1, len = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, text, &len);
    }
    char name[32];
    snprintf(name, sizeof(name), "rank %d", victim);
    const char *bad = rc == MPI_SUCCESS ? "the wait succeeded"
                      : cls != MPI_ERR_PROC_ABORTED ? "the error class is not MPI_ERR_PROC_ABORTED"
                      : strstr(text, name) == NULL ? "the error does not name the dead rank"
                      : t > LIMIT_S ? "the error came too late"
                      : NULL;
    say("drills_death: rank %d: %s, rank %d dies by %s: error after %.3f s (class %d): \"%s\"\n", rank, wait_name,
        victim, die_name, t, cls, text);
    if (bad)
        say("drills_death: FAIL: rank %d: %s\n", rank, bad);
    else
        say("drills_death: PASS: rank %d\n", rank);
    if (report_fd >= 0) {
        flock(report_fd, LOCK_UN);
        flock(report_fd, LOCK_EX);      /* every survivor has reported */
    }
    /* A peer is gone: finalize's exchanges could not complete; leave. */
    _exit(bad ? 1 : 0);
}
