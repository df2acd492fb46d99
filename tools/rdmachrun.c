/*
 * rdmachrun -n N prog args...: start N ranks of a job on this machine and
 * serve them PMI-1 (run_pmi.c) over one socketpair each (PMI_FD, PMI_RANK,
 * PMI_SIZE in their environment), as MPICH's Hydra does.
 *
 * The job ends when every rank has exited. The first failure — a rank that
 * exits non-zero, dies by a signal, calls PMI abort or breaks the protocol —
 * is printed naming the rank, decides the exit status (its code, 128+signal
 * for a signal) and ends the rest: SIGTERM at once, SIGKILL after
 * RUN_TERM_GRACE_MS. Ranks that died already are judged first (settle), so
 * a killed rank, not the survivor that noticed and aborted, is the verdict.
 * A rank that exits non-zero after PMI finalize only sets the exit status:
 * the others finish their own finalize (as under Hydra).
 *
 * A rank that exits 0 after PMI init without PMI finalize (a program that
 * forgets MPI_Finalize, as OMB 7.4's osu_latency_mt does) draws a warning
 * naming it, as with Hydra the job may still succeed: it fails only if other
 * ranks then wait in a PMI barrier it can never join (e.g. their
 * MPI_Finalize), or are still running RUN_UNFINALIZED_GRACE_S later (they
 * may wait for it elsewhere). SIGINT/SIGTERM/
 * SIGHUP to rdmachrun end the job the same way. Every rank dies with
 * rdmachrun (PR_SET_PDEATHSIG). Afterwards /dev/shm/rdmach-<kvsname>-* is
 * removed, whatever the job left there.
 *
 * A job given a time limit (MPIEXEC_TIMEOUT, Hydra's variable, or --timeout)
 * that is still running when it expires is ended as a failure with status
 * RUN_TIMEOUT_CODE.
 *
 * The ranks inherit rdmachrun's stdout and stderr, except a regular file,
 * which they reach through a pipe that rdmachrun copies (run_io.c).
 *
 * The event loop, in phases: poll (the signalfd, every open PMI socket and
 * the output pipes, with a timeout while ranks are being killed or a time
 * limit runs) -> answer PMI requests, copy output -> handle signals,
 * reaping exited ranks -> end a job out of time -> escalate SIGTERM to
 * SIGKILL.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "run.h"

#define RUN_TERM_GRACE_MS 500
#define RUN_UNFINALIZED_GRACE_S 10.0
#define RUN_SETTLE_MS 200
#define RUN_TIMEOUT_MAX_S 2678400  /* MPIEXEC_TIMEOUT: 31 days at most */
#define RUN_TIMEOUT_CODE 124       /* the exit status of a job that ran out of time, as timeout(1)'s */

static const char *prog_name = "rdmachrun";

struct run_state {
    struct run_job job;
    int sfd;                   /* signalfd */
    sigset_t blocked, orig_mask;
    int alive;                 /* ranks not yet reaped */
    int killing;               /* SIGTERM sent to the survivors */
    int killed_hard;           /* SIGKILL sent */
    double kill_deadline;      /* when SIGTERM becomes SIGKILL */
    int unfinalized;           /* first rank that exited 0 without PMI finalize, or -1 */
    double unfinalized_deadline; /* the others must have ended by then */
    pid_t launcher;            /* our pid, for the ranks to check their parent */
    int code_after_finalize;   /* first non-zero exit code of a rank that finalized, else 0 */
    int timeout_s;             /* MPIEXEC_TIMEOUT: seconds the job may run (0: no limit) */
    double deadline;           /* ... counted from the start of the ranks */
    /* The commands (MPMD: -n a prog1 args : -n b prog2 args), in rank order. */
    struct run_app {
        int np;
        char path[PATH_MAX];
        char **argv;           /* NULL-terminated, argv[0] the program as given */
        const char *wdir;      /* -wdir: where its ranks start (NULL: here) */
    } *apps;
    int napps;
    const char *preput;        /* --preput KEY=VALUE: in the KVS from the start (a spawned job's) */
    /* Jobs this one spawned (MPI_Comm_spawn): rdmachruns of their own,
     * waited for before we exit; signals reach them too. */
    pid_t spawned[64];
    char *spawned_port[64];    /* the port its root waits on (the preput value), NULL if none */
    pid_t spawned_root[64];    /* the process of the rank that asked for it */
    int nspawned;
    int spawn_code;            /* the first spawned job's non-zero exit code */
};
static struct run_state S;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [-n N] [options] [--] program [args...]\n"
            "  Starts N processes (ranks) of program on this machine and serves them PMI-1\n"
            "  (PMI_FD, PMI_RANK, PMI_SIZE), the protocol of MPICH's Hydra.\n"
            "  -n, -np N          number of ranks, 1..%d (default 1); more than the cores is fine\n"
            "  -genv, -env NAME VALUE, -x NAME[=VALUE]\n"
            "                     set NAME in every rank's environment (which is rdmachrun's)\n"
            "  --bind-to core|numa|socket|none   RDMACH_BIND for every rank\n"
            "  -genvall, --oversubscribe         accepted: that is what rdmachrun does anyway\n"
            "  -hosts H,..., -f FILE             accepted if every host is this machine\n"
            "  -ppn N, --map-by ppr:N:node|slot|core|...   accepted: this machine is the one host\n"
            "                     (RDMACH_VNODE_SIZE=N lays ranks out as pretend nodes of N)\n"
            "  -rankfile, --map-by node, hosts other than this one   refused: use Hydra\n"
            "  -n a prog1 args : -n b prog2 args   several commands in one job (MPMD: appnum 0, 1, ...);\n"
            "                     a command may start with -wdir DIR (its ranks' working directory)\n"
            "  MPI_Comm_spawn starts another rdmachrun for the new processes (a job of its own)\n"
            "  --timeout S        end the job after S seconds (as MPIEXEC_TIMEOUT=S, Hydra's variable);\n"
            "                     the exit status is then %d\n"
            "  -usize N           MPI_UNIVERSE_SIZE (as MPIEXEC_UNIVERSE_SIZE=N, Hydra's; default: the\n"
            "                     processors, or the job if larger)\n"
            "  -h, --help         this text\n"
            "  --version          rdmach version\n"
            "The exit status is 0 if every rank exited 0, else the first failure's code\n"
            "(128+signal for a rank killed by a signal); the other ranks are then ended.\n",
            prog_name, RUN_NP_MAX, RUN_TIMEOUT_CODE);
}

static void kill_survivors(int sig)
{
    for (int i = 0; i < S.job.size; i++)
        if (S.job.ranks[i].pid > 0)
            kill(S.job.ranks[i].pid, sig);
    for (int k = 0; k < S.nspawned; k++)
        if (S.spawned[k] > 0)
            kill(S.spawned[k], sig);
}

static void start_ending(void)
{
    if (S.killing || S.alive == 0)
        return;
    S.killing = 1;
    S.kill_deadline = rch_base_wtime() + RUN_TERM_GRACE_MS / 1000.0;
    kill_survivors(SIGTERM);
}

static void settle(void);

/* The first failure decides the verdict and the exit status; the ones after
 * it are its consequences and are not reported. Before a failure is judged
 * the ranks that died already are reaped (settle): a rank killed by a signal
 * makes the others fail (a broken connection, an abort), and their report
 * often arrives before the SIGCHLD. Such a death becomes the verdict, and
 * the failure that was being judged is printed as its consequence. */
void run_fail(struct run_job *job, int exit_code, const char *fmt, ...)
{
    if (job->failed)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    settle();
    run_io_drain();   /* what the ranks said before it, first */
    if (job->failed) {
        fprintf(stderr, "%s: then %s (a consequence)\n", prog_name, msg);
        fflush(stderr);
        return;
    }
    job->failed = 1;
    job->exit_code = exit_code;
    fprintf(stderr, "%s: %s\n", prog_name, msg);
    fflush(stderr);
    start_ending();
}

/* ---- arguments and the program ---- */

static int parse_np(const char *text, int *np)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 1 || v > RUN_NP_MAX) {
        fprintf(stderr, "%s: invalid -n '%s': expected a number of processes from 1 to %d\n",
                prog_name, text, RUN_NP_MAX);
        return -1;
    }
    *np = (int)v;
    return 0;
}

/* Find the program as execvp would, so that a missing or non-executable
 * program is reported once, before anything starts. Returns 0, 126 or 127. */
static int resolve_program(const char *prog, char *path, size_t len)
{
    struct stat sb;
    if (strchr(prog, '/')) {
        snprintf(path, len, "%s", prog);
        if (stat(path, &sb) < 0) {
            fprintf(stderr, "%s: program '%s' not found: %s\n", prog_name, prog, strerror(errno));
            return 127;
        }
        if (S_ISDIR(sb.st_mode) || access(path, X_OK) < 0) {
            fprintf(stderr, "%s: program '%s' is not executable\n", prog_name, prog);
            return 126;
        }
        return 0;
    }
    const char *p = getenv("PATH");
    if (p == NULL || *p == '\0')
        p = "/usr/local/bin:/usr/bin:/bin";
    int found_nonexec = 0;
    while (*p) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(path, len, "%.*s%s%s", (int)dl, p, dl ? "/" : "", prog);
        if (stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
            if (access(path, X_OK) == 0)
                return 0;
            found_nonexec = 1;
        }
        p = colon ? colon + 1 : p + dl;
    }
    fprintf(stderr, "%s: program '%s' %s\n", prog_name, prog,
            found_nonexec ? "is not executable" : "not found in PATH");
    return found_nonexec ? 126 : 127;
}

/* Room for one socket per rank plus a few. */
static int check_fd_limit(int np)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    rlim_t need = (rlim_t)np + 32;
    if (rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        fprintf(stderr, "%s: -n %d needs %llu open files but the limit is %llu (ulimit -n)\n",
                prog_name, np, (unsigned long long)need, (unsigned long long)rl.rlim_max);
        return -1;
    }
    rl.rlim_cur = need;
    return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -1 : 0;
}

/* ---- starting the ranks ---- */

/* In the child: become rank `i` and exec; never returns. */
static void exec_rank(int i, int fd, const struct run_app *app)
{
    const char *path = app->path;
    char **argv = app->argv;
    char num[16];
    /* die with rdmachrun even if it is SIGKILLed; if it died before the
     * prctl, our parent is no longer rdmachrun. (Not "getppid() == 1": as
     * the first process of a PID namespace or container rdmachrun IS pid 1,
     * and an orphan's new parent may be a subreaper instead.) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != S.launcher)
        _exit(127);
    sigprocmask(SIG_SETMASK, &S.orig_mask, NULL);
    run_io_child();
    int flags = fcntl(fd, F_GETFD);
    fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    snprintf(num, sizeof(num), "%d", fd);
    setenv("PMI_FD", num, 1);
    snprintf(num, sizeof(num), "%d", i);
    setenv("PMI_RANK", num, 1);
    setenv("MPI_LOCALRANKID", num, 1);
    snprintf(num, sizeof(num), "%d", S.job.size);
    setenv("PMI_SIZE", num, 1);
    setenv("MPI_LOCALNRANKS", num, 1);
    if (i != 0) { /* only rank 0 reads the terminal, as under Hydra */
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) {
            dup2(nul, STDIN_FILENO);
            close(nul);
        }
    }
    if (app->wdir && chdir(app->wdir) != 0) {
        fprintf(stderr, "%s: rank %d: cannot enter directory '%s': %s\n", prog_name, i, app->wdir, strerror(errno));
        _exit(127);
    }
    execv(path, argv);
    fprintf(stderr, "%s: rank %d: cannot execute '%s': %s\n", prog_name, i, path, strerror(errno));
    _exit(127);
}

static int start_ranks(void)
{
    struct run_job *job = &S.job;
    S.launcher = getpid();
    for (int i = 0, app = 0, first = 0; i < job->size; i++) {
        while (i >= first + S.apps[app].np)
            first += S.apps[app++].np;
        job->ranks[i].app = app;
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
            fprintf(stderr, "%s: socketpair for rank %d: %s\n", prog_name, i, strerror(errno));
            return -1;
        }
        job->ranks[i].rank = i;
        job->ranks[i].fd = sv[0];
        fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "%s: fork for rank %d: %s\n", prog_name, i, strerror(errno));
            close(sv[0]);
            close(sv[1]);
            job->ranks[i].fd = -1;
            return -1;
        }
        if (pid == 0)
            exec_rank(i, sv[1], &S.apps[app]);
        close(sv[1]);
        job->ranks[i].pid = pid;
        S.alive++;
    }
    return 0;
}

/* ---- the event loop's phases ---- */

static const char *sig_name(int sig)
{
    static char buf[32];
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev == NULL)
        return "unknown signal";
    snprintf(buf, sizeof(buf), "SIG%s", abbrev);
    return buf;
}

/* A rank has exited: drain what it said last, then judge how it ended. */
static void rank_exited(struct run_rank *r, int status)
{
    pid_t pid = r->pid;
    run_pmi_drain(&S.job, r);
    r->pid = 0;
    S.alive--;
    /* run_fail keeps only the first failure: the ranks ended because of it
     * (SIGTERM, SIGKILL) are not reported again; a rank that aborted was
     * judged by its abort */
    if (r->aborted)
        return;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        run_fail(&S.job, 128 + sig, "rank %d (pid %d) killed by signal %d (%s)", r->rank, (int)pid, sig,
                 sig_name(sig));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && r->pmi_finalized) {
        /* After MPI_Finalize the others need nothing from it (they are in or
         * past their own Finalize): its code becomes the job's, but they are
         * let finish, as under Hydra. */
        if (S.code_after_finalize == 0) {
            S.code_after_finalize = WEXITSTATUS(status);
            fprintf(stderr, "%s: rank %d (pid %d) exited with code %d after MPI_Finalize\n", prog_name, r->rank,
                    (int)pid, WEXITSTATUS(status));
        }
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        run_fail(&S.job, WEXITSTATUS(status), "rank %d (pid %d) exited with code %d", r->rank, (int)pid,
                 WEXITSTATUS(status));
    } else if (r->pmi_inited && !r->pmi_finalized && !r->aborted) {
        r->unfinalized_pid = pid;
        if (S.unfinalized < 0) {
            S.unfinalized = r->rank;
            S.unfinalized_deadline = rch_base_wtime() + RUN_UNFINALIZED_GRACE_S;
        }
        if (!S.killing)
            fprintf(stderr,
                    "%s: warning: rank %d (pid %d) exited with code 0 without calling MPI_Finalize "
                    "(no PMI finalize); the job fails if other ranks wait for it\n",
                    prog_name, r->rank, (int)pid);
        run_pmi_check_barrier(&S.job);
    }
}

/* Ranks still running long after one left without finalize: they may wait
 * for it (a receive from it, a collective): end the job, naming it. */
static void check_unfinalized(void)
{
    if (S.unfinalized < 0 || S.killing || S.alive == 0 || rch_base_wtime() < S.unfinalized_deadline)
        return;
    const struct run_rank *r = &S.job.ranks[S.unfinalized];
    run_fail(&S.job, 1,
             "rank %d (pid %d) exited with code 0 without PMI finalize (after PMI init), and %d rank(s) were "
             "still running %.0f s later",
             r->rank, (int)r->unfinalized_pid, S.alive, RUN_UNFINALIZED_GRACE_S);
}

/* A job we spawned has ended: its code is ours if nothing else failed. */
static void spawned_exited(pid_t pid, int status)
{
    for (int k = 0; k < S.nspawned; k++) {
        if (S.spawned[k] != pid)
            continue;
        S.spawned[k] = 0;
        S.alive--;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (S.spawned_port[k])
            run_spawn_exited(S.spawned_port[k], S.spawned_root[k], code);
        free(S.spawned_port[k]);
        S.spawned_port[k] = NULL;
        if (code != 0 && S.spawn_code == 0) {
            S.spawn_code = code;
            fprintf(stderr, "%s: a job spawned by MPI_Comm_spawn (pid %d) ended with code %d\n", prog_name, (int)pid,
                    code);
        }
    }
}

/* ---- MPI_Comm_spawn: another rdmachrun for the new job ---- */

int run_spawn_launch(const struct run_spawn *sp, pid_t root, char *why, size_t len)
{
    int slot = 0;   /* a slot of a job that has ended is free again */
    while (slot < S.nspawned && S.spawned[slot] != 0)
        slot++;
    if (slot == (int)(sizeof(S.spawned) / sizeof(S.spawned[0]))) {
        snprintf(why, len, "more than %d spawned jobs running at once", slot);
        return -1;
    }
    int n = 4;
    for (int k = 0; k < sp->total; k++)
        n += 6 + sp->cmd[k].argc;
    char **argv = calloc((size_t)n, sizeof(char *)), *pre = NULL, (*nps)[16] = calloc((size_t)sp->total, 16);
    if (!argv || !nps || (sp->preput_key && asprintf(&pre, "%s=%s", sp->preput_key,
                                                      sp->preput_val ? sp->preput_val : "") < 0)) {
        free(argv);
        free(nps);
        snprintf(why, len, "out of memory");
        return -1;
    }
    int a = 0;
    argv[a++] = (char *)"rdmachrun";
    if (pre) {
        argv[a++] = (char *)"--preput";
        argv[a++] = pre;
    }
    for (int k = 0; k < sp->total; k++) {
        const struct run_spawn_cmd *c = &sp->cmd[k];
        if (k > 0)
            argv[a++] = (char *)":";
        snprintf(nps[k], 16, "%d", c->nprocs);
        argv[a++] = (char *)"-n";
        argv[a++] = nps[k];
        if (c->wdir) {
            argv[a++] = (char *)"-wdir";
            argv[a++] = c->wdir;
        }
        argv[a++] = c->exec;
        for (int i = 0; i < c->argc; i++)
            argv[a++] = c->argv[i];
    }
    argv[a] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &S.orig_mask, NULL);
        setenv("PMI_SPAWNED", "1", 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr, "%s: spawn: cannot execute /proc/self/exe: %s\n", prog_name, strerror(errno));
        _exit(127);
    }
    int e = errno;
    free(argv);
    free(pre);
    free(nps);
    if (pid < 0) {
        snprintf(why, len, "fork: %s", strerror(e));
        return -1;
    }
    S.spawned_port[slot] = sp->preput_val ? strdup(sp->preput_val) : NULL;
    S.spawned_root[slot] = root;
    S.spawned[slot] = pid;
    if (slot == S.nspawned)
        S.nspawned++;
    S.alive++;
    return 0;
}

/* Every child that has exited, ranks or not: as the first process of a PID
 * namespace (a container's init) rdmachrun also inherits the namespace's
 * orphans, and waiting for any pid reaps them too. Ranks killed by a signal
 * are judged before ranks that exited: waitpid returns zombies in the order
 * the children were started, not the order they died, and a rank that
 * exited with an error after another was killed is its consequence. */
static void reap(void)
{
    for (;;) {
        struct { struct run_rank *r; int status; } dead[64];
        int n = 0, status;
        pid_t pid;
        while (n < (int)(sizeof(dead) / sizeof(dead[0])) && (pid = waitpid(-1, &status, WNOHANG)) > 0) {
            spawned_exited(pid, status);
            for (int i = 0; i < S.job.size; i++) {
                if (S.job.ranks[i].pid == pid) {
                    dead[n].r = &S.job.ranks[i];
                    dead[n++].status = status;
                    break;
                }
            }
        }
        if (n == 0)
            return;
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < n; k++)
                if ((WIFSIGNALED(dead[k].status) != 0) == (pass == 0))
                    rank_exited(dead[k].r, dead[k].status);
    }
}

/* Is rank r in the middle of exiting, not yet a zombie? The kernel marks a
 * task PF_EXITING (flag 0x4, field 9 of /proc/<pid>/stat) when it starts to
 * exit; its memory goes first (a peer's process_vm_readv or pidfd may tell
 * it died), its files (the PMI socket) later, and only then does it become
 * reapable. A rank that closed its PMI socket without finalize or abort is
 * taken for exiting too (no /proc). */
static int exiting(const struct run_rank *r)
{
    if (r->pid <= 0)
        return 0;
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)r->pid);
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        char state;
        unsigned long flags;
        if (p && sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) == 2)
            return state != 'Z' && state != 'X' && (flags & 0x4);
    }
    if (r->fd < 0 || r->pmi_finalized || r->aborted)
        return 0;
    struct pollfd pf = { .fd = r->fd, .events = POLLRDHUP };
    return poll(&pf, 1, 0) == 1 && (pf.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* Before the first failure is judged: wait up to RUN_SETTLE_MS until no rank
 * is half-way through exiting, then judge the ranks killed by a signal (the
 * cause; the others are reaped by the loop: an abort drained from one of
 * them now would be judged before the failure at hand); a rank that left
 * earlier without finalize (exit code 0) is the cause of an abort if
 * nothing else is. */
static void settle(void)
{
    static int settling;
    if (settling || S.job.failed)
        return;
    settling = 1;
    double deadline = rch_base_wtime() + RUN_SETTLE_MS / 1000.0;
    for (;;) {
        int waiting = 0;
        for (int i = 0; i < S.job.size && !waiting; i++)
            waiting = exiting(&S.job.ranks[i]);
        if (!waiting || rch_base_wtime() >= deadline)
            break;
        poll(NULL, 0, 1);
    }
    for (int i = 0; i < S.job.size && !S.job.failed; i++) {
        struct run_rank *r = &S.job.ranks[i];
        siginfo_t si = { 0 };
        int status;
        if (r->pid > 0 && waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            si.si_pid == r->pid && (si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) &&
            waitpid(r->pid, &status, 0) == r->pid)
            rank_exited(r, status);
    }
    int aborting = 0;   /* the failure being judged is an abort (of a survivor?) */
    for (int i = 0; i < S.job.size; i++)
        aborting |= S.job.ranks[i].aborted;
    if (!S.job.failed && aborting && S.unfinalized >= 0) {
        const struct run_rank *r = &S.job.ranks[S.unfinalized];
        run_fail(&S.job, 1, "rank %d (pid %d) exited with code 0 without calling MPI_Finalize (no PMI finalize)",
                 r->rank, (int)r->unfinalized_pid);
    }
    settling = 0;
}

static void handle_signals(void)
{
    struct signalfd_siginfo si;
    while (read(S.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD)
            continue; /* reaped below, whichever child it was */
        if (S.killing && !S.killed_hard) {
            /* asked again while ending: do not wait for the grace period */
            kill_survivors(SIGKILL);
            S.killed_hard = 1;
        }
        run_fail(&S.job, 128 + sig, "received %s, ending the job", sig_name(sig));
    }
    reap();
}

static void escalate(void)
{
    if (S.killing && !S.killed_hard && S.alive > 0 && rch_base_wtime() >= S.kill_deadline) {
        kill_survivors(SIGKILL);
        S.killed_hard = 1;
    }
}

/* A whole number from 1 to max in the environment variable name (Hydra's
 * MPIEXEC_TIMEOUT and MPIEXEC_UNIVERSE_SIZE, which test suites and batch
 * scripts set; --timeout and -usize set them too): *out, else left alone if
 * unset or empty; -1 with a message naming it if malformed. */
static int env_count(const char *name, int max, const char *what, int *out)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return 0;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n < 1 || n > max) {
        fprintf(stderr, "%s: %s '%s': not a %s from 1 to %d\n", prog_name, name, v, what, max);
        return -1;
    }
    *out = (int)n;
    return 0;
}

/* The job ran out of time: ended as a failure, every rank killed. */
static void check_timeout(void)
{
    if (S.timeout_s > 0 && !S.job.failed && rch_base_wtime() >= S.deadline)
        run_fail(&S.job, RUN_TIMEOUT_CODE, "the job ran for %d s, the limit MPIEXEC_TIMEOUT sets: ending it",
                 S.timeout_s);
}

static int run_loop(void)
{
    struct pollfd *pfd = calloc((size_t)S.job.size + 3, sizeof(*pfd));
    struct run_rank **who = calloc((size_t)S.job.size + 3, sizeof(*who));
    if (pfd == NULL || who == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog_name);
        free(pfd);
        free(who);
        return -1;
    }
    while (S.alive > 0) {
        int n = 0, timeout = -1;
        pfd[n++] = (struct pollfd){ .fd = S.sfd, .events = POLLIN };
        for (int i = 0; i < S.job.size; i++) {
            if (S.job.ranks[i].fd >= 0) {
                who[n] = &S.job.ranks[i];
                pfd[n++] = (struct pollfd){ .fd = S.job.ranks[i].fd, .events = POLLIN };
            }
        }
        int nranks = n;
        n += run_io_poll_add(&pfd[n]);
        if (S.killing && !S.killed_hard) {
            double left = S.kill_deadline - rch_base_wtime();
            timeout = left > 0 ? (int)(left * 1000) + 1 : 0;
        } else if (S.unfinalized >= 0 && !S.killing) {
            double left = S.unfinalized_deadline - rch_base_wtime();
            timeout = left > 0 ? (int)(left * 1000) + 1 : 0;
        }
        if (S.timeout_s > 0 && !S.job.failed) {
            double left = S.deadline - rch_base_wtime();
            int ms = left > 0 ? (int)(left * 1000) + 1 : 0;
            if (timeout < 0 || ms < timeout)
                timeout = ms;
        }
        int pr = poll(pfd, (nfds_t)n, timeout);
        if (pr < 0 && errno != EINTR) {
            fprintf(stderr, "%s: poll: %s\n", prog_name, strerror(errno));
            kill_survivors(SIGKILL);
            break;
        }
        /* requests first: a rank's abort is read before its exit is judged */
        for (int k = 1; pr > 0 && k < nranks; k++)
            if (pfd[k].revents)
                run_pmi_input(&S.job, who[k]);
        for (int k = nranks; pr > 0 && k < n; k++)
            if (pfd[k].revents)
                run_io_input(pfd[k].fd);
        if (pr > 0 && pfd[0].revents)
            handle_signals();
        check_unfinalized();
        check_timeout();
        escalate();
    }
    free(pfd);
    free(who);
    return 0;
}

/* Remove /dev/shm/rdmach-<kvsname>-*: segments of this job that a killed rank
 * could not unlink. */
static void clean_shm(void)
{
    char prefix[96];
    snprintf(prefix, sizeof(prefix), "rdmach-%s-", S.job.kvsname);
    DIR *d = opendir("/dev/shm");
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

/* One command of the command line: [-n N] [-wdir DIR] program args, up to
 * ":" or the end; argv's ":" becomes the NULL that ends its arguments. A
 * status for main (2 for usage errors), or 0. */
static int parse_app(int argc, char **argv, int *i, int first, struct run_app *app)
{
    app->np = 1;
    for (; *i < argc; (*i)++) {
        const char *a = argv[*i];
        if (strcmp(a, "--") == 0) {
            (*i)++;
            break;
        }
        if (a[0] != '-')
            break;
        if (first && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            usage(stdout);
            exit(0);
        }
        if (first && strcmp(a, "--version") == 0) {
            printf("rdmachrun (rdmach) %s\n", RDMACH_VERSION_STRING);
            exit(0);
        }
        if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0 || strcmp(a, "-wdir") == 0 ||
            (first && strcmp(a, "--preput") == 0)) {
            if (*i + 1 >= argc) {
                fprintf(stderr, "%s: option %s needs %s\n", prog_name, a,
                        a[1] == 'n' ? "a number of processes" : "a value");
                return 2;
            }
            const char *v = argv[++*i];
            if (a[1] == 'n' && parse_np(v, &app->np) < 0)
                return 2;
            if (strcmp(a, "-wdir") == 0)
                app->wdir = v;
            if (strcmp(a, "--preput") == 0)
                S.preput = v;
            continue;
        }
        int known = first ? run_parse_option(argc, argv, i, prog_name) : 0;
        if (known < 0)
            return 2;
        if (known > 0)
            continue;
        fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", prog_name, a, prog_name);
        return 2;
    }
    if (*i >= argc || strcmp(argv[*i], ":") == 0) {
        fprintf(stderr, "%s: no program to run\n", prog_name);
        usage(stderr);
        return 2;
    }
    int rc = resolve_program(argv[*i], app->path, sizeof(app->path));
    if (rc != 0)
        return rc;
    app->argv = argv + *i;
    while (*i < argc && strcmp(argv[*i], ":") != 0)
        (*i)++;
    if (*i < argc)
        argv[(*i)++] = NULL;
    return 0;
}

int main(int argc, char **argv)
{
    int np = 0, i = 1;

    /* installed also as mpiexec and mpirun: speak under the name it was run by */
    if (argc > 0 && argv[0][0] != '\0')
        prog_name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

    S.apps = calloc((size_t)argc, sizeof(*S.apps));
    if (S.apps == NULL)
        return 1;
    do {
        int rc = parse_app(argc, argv, &i, S.napps == 0, &S.apps[S.napps]);
        if (rc != 0)
            return rc;
        np += S.apps[S.napps++].np;
    } while (i < argc);
    if (np > RUN_NP_MAX) {
        fprintf(stderr, "%s: %d ranks in all, more than %d\n", prog_name, np, RUN_NP_MAX);
        return 2;
    }
    if (check_fd_limit(np) < 0)
        return 1;
    if (env_count("MPIEXEC_TIMEOUT", RUN_TIMEOUT_MAX_S, "whole number of seconds", &S.timeout_s) < 0 ||
        env_count("MPIEXEC_UNIVERSE_SIZE", RUN_NP_MAX, "number of processes", &S.job.universe) < 0)
        return 2;
    S.job.size = np;
    /* unique per job: the pid, and the time against a recycled pid */
    snprintf(S.job.kvsname, sizeof(S.job.kvsname), "run%dx%llx", (int)getpid(),
             (unsigned long long)(rch_base_now_ns() & 0xffffffffffull));
    S.job.ranks = calloc((size_t)np, sizeof(*S.job.ranks));
    if (S.job.ranks == NULL) {
        fprintf(stderr, "%s: out of memory for %d ranks\n", prog_name, np);
        return 1;
    }
    for (int r = 0; r < np; r++)
        S.job.ranks[r].fd = -1;
    S.unfinalized = -1;

    /* signals arrive through a signalfd, as events of the loop */
    sigemptyset(&S.blocked);
    sigaddset(&S.blocked, SIGCHLD);
    sigaddset(&S.blocked, SIGINT);
    sigaddset(&S.blocked, SIGTERM);
    sigaddset(&S.blocked, SIGHUP);
    sigprocmask(SIG_BLOCK, &S.blocked, &S.orig_mask);
    S.sfd = signalfd(-1, &S.blocked, SFD_NONBLOCK | SFD_CLOEXEC);
    if (S.sfd < 0) {
        fprintf(stderr, "%s: signalfd: %s\n", prog_name, strerror(errno));
        return 1;
    }

    if (run_io_setup(prog_name) < 0)
        return 1;
    S.deadline = rch_base_wtime() + S.timeout_s;
    if (start_ranks() < 0) {
        run_fail(&S.job, 1, "could not start all %d ranks", np);
    }
    if (run_pmi_init(&S.job, S.preput) < 0)
        run_fail(&S.job, 1, "out of memory for the PMI key-value store");
    run_loop();
    run_io_close();
    clean_shm();
    run_pmi_fini(&S.job);
    for (int r = 0; r < np; r++)
        if (S.job.ranks[r].fd >= 0)
            close(S.job.ranks[r].fd);
    free(S.job.ranks);
    free(S.apps);
    close(S.sfd);
    if (S.job.failed)
        return S.job.exit_code;
    return S.job.partial_code ? S.job.partial_code : S.code_after_finalize ? S.code_after_finalize : S.spawn_code;
}
