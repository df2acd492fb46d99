/* rdmachrun's PMI server, driven in-process over socketpairs: the replies
 * Hydra gives, put-visible-after-barrier, last put wins, and bad requests. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <fcntl.h>
#include "run.h"

static char failure[1024];
static int failed_code;

void run_fail(struct run_job *job, int exit_code, const char *fmt, ...)
{
    if (job->failed)
        return;
    job->failed = 1;
    job->exit_code = failed_code = exit_code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(failure, sizeof(failure), fmt, ap);
    va_end(ap);
}

/* rdmachrun.c's launcher of spawned jobs: records what it was asked. */
static struct run_spawn launched;
static int launches, launch_fails, launched_last_arg;
static pid_t launch_root;

int run_spawn_launch(const struct run_spawn *sp, pid_t root, char *why, size_t len)
{
    launches++;
    launch_root = root;
    launched.total = sp->total;
    launched.cmd[0].nprocs = sp->cmd[0].nprocs;
    launched.cmd[1].nprocs = sp->cmd[1].nprocs;
    launched.cmd[1].argc = sp->cmd[1].argc;
    launched.cmd[0].argc = sp->cmd[0].argc;
    /* the last argument of the first command, "vN": its number */
    launched_last_arg = sp->cmd[0].argc > 0 ? atoi(sp->cmd[0].argv[sp->cmd[0].argc - 1] + 1) : 0;
    snprintf(why, len, "no room here");
    return launch_fails ? -1 : 0;
}

static struct run_job job;
static int client[4];

static void setup_job(int n)
{
    memset(&job, 0, sizeof(job));
    job.size = n;
    strcpy(job.kvsname, "runTEST");
    job.ranks = calloc((size_t)n, sizeof(*job.ranks));
    for (int i = 0; i < n; i++) {
        int sv[2];
        cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
        job.ranks[i].rank = i;
        job.ranks[i].pid = 1000 + i;
        job.ranks[i].fd = sv[0];
        client[i] = sv[1];
    }
    cr_assert_eq(run_pmi_init(&job, NULL), 0);
}

/* Rank i sends `req`; the server handles it. */
static void send_req(int i, const char *req)
{
    cr_assert_eq(write(client[i], req, strlen(req)), (ssize_t)strlen(req));
    run_pmi_input(&job, &job.ranks[i]);
}

/* The next reply to rank i must be exactly `want`. */
static void expect_reply(int i, const char *want)
{
    char buf[2048];
    size_t n = 0;
    while (n + 1 < sizeof(buf)) {
        ssize_t r = recv(client[i], buf + n, 1, MSG_DONTWAIT);
        cr_assert_eq(r, 1, "rank %d: no (complete) reply, expected %s", i, want);
        if (buf[n++] == '\n')
            break;
    }
    buf[n] = '\0';
    cr_assert_str_eq(buf, want);
}

static void no_reply(int i)
{
    char c;
    cr_assert_eq(recv(client[i], &c, 1, MSG_DONTWAIT), -1, "rank %d got an unexpected reply", i);
}

static void init_all(int n)
{
    for (int i = 0; i < n; i++) {
        send_req(i, "cmd=init pmi_version=1 pmi_subversion=1\n");
        expect_reply(i, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
    }
}

Test(run_pmi, answers_like_hydra)
{
    setup_job(2);
    init_all(2);
    send_req(0, "cmd=get_maxes\n");
    expect_reply(0, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");
    send_req(0, "cmd=get_appnum\n");
    expect_reply(0, "cmd=appnum appnum=0\n");
    send_req(1, "cmd=get_my_kvsname\n");
    expect_reply(1, "cmd=my_kvsname kvsname=runTEST\n");
    char usize[64];   /* the job, or this machine's processors if more (room to spawn) */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(usize, sizeof(usize), "cmd=universe_size size=%ld\n", cpus > 2 ? cpus : 2);
    send_req(1, "cmd=get_universe_size\n");
    expect_reply(1, usize);
    job.universe = 9;   /* -usize 9 (MPIEXEC_UNIVERSE_SIZE): as given */
    send_req(1, "cmd=get_universe_size\n");
    expect_reply(1, "cmd=universe_size size=9\n");
    job.universe = 1;   /* ... but at least the job */
    send_req(1, "cmd=get_universe_size\n");
    expect_reply(1, "cmd=universe_size size=2\n");
    job.universe = 0;
    send_req(0, "cmd=get kvsname=runTEST key=PMI_process_mapping\n");
    expect_reply(0, "cmd=get_result rc=0 msg=success value=(vector,(0,1,2))\n");
    send_req(0, "cmd=finalize\n");
    expect_reply(0, "cmd=finalize_ack\n");
    cr_assert_eq(job.failed, 0, "%s", failure);
}

Test(run_pmi, puts_become_visible_at_the_barrier_and_the_last_wins)
{
    setup_job(2);
    init_all(2);
    send_req(0, "cmd=put kvsname=runTEST key=r0.a value=1\n");
    expect_reply(0, "cmd=put_result rc=0 msg=success\n");
    send_req(0, "cmd=put kvsname=runTEST key=r0.a value=2\n");
    expect_reply(0, "cmd=put_result rc=0 msg=success\n");
    send_req(1, "cmd=get kvsname=runTEST key=r0.a\n");
    expect_reply(1, "cmd=get_result rc=-1 msg=key_r0.a_not_found value=unknown\n");
    /* several requests in one write are all answered */
    send_req(0, "cmd=barrier_in\n");
    no_reply(0);
    send_req(1, "cmd=barrier_in\ncmd=get kvsname=runTEST key=r0.a\n");
    expect_reply(0, "cmd=barrier_out\n");
    expect_reply(1, "cmd=barrier_out\n");
    expect_reply(1, "cmd=get_result rc=0 msg=success value=2\n");
    send_req(1, "cmd=get kvsname=other key=r0.a\n");
    expect_reply(1, "cmd=get_result rc=-1 msg=kvsname_mismatch value=unknown\n");
    cr_assert_eq(job.failed, 0, "%s", failure);
}

Test(run_pmi, request_split_across_writes)
{
    setup_job(1);
    send_req(0, "cmd=init pmi_vers");
    no_reply(0);
    send_req(0, "ion=1 pmi_subversion=1\n");
    expect_reply(0, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
}

Test(run_pmi, abort_fails_the_job_with_its_code)
{
    setup_job(2);
    init_all(2);
    send_req(1, "cmd=abort exitcode=7\n");
    cr_assert_eq(job.failed, 1);
    cr_assert_eq(failed_code, 7);
    cr_assert_str_eq(failure, "rank 1 (pid 1001) called abort with exit code 7");
}

Test(run_pmi, abort_with_code_0_ends_the_job_with_0)
{
    setup_job(3);
    init_all(3);
    failed_code = -1;
    send_req(2, "cmd=abort exitcode=0\n");
    cr_assert_eq(job.failed, 1, "the job ends");
    cr_assert_eq(failed_code, 0);
    cr_assert_str_eq(failure, "rank 2 (pid 1002) called abort with exit code 0");
}

Test(run_pmi, abort_code_is_taken_modulo_256_as_an_exit_status)
{
    setup_job(2);
    init_all(2);
    send_req(0, "cmd=abort exitcode=514\n");
    cr_assert_eq(failed_code, 2);
}

Test(run_pmi, malformed_request_names_the_rank)
{
    setup_job(2);
    init_all(2);
    send_req(1, "cmd=put kvsname\n");
    cr_assert_eq(job.failed, 1);
    cr_assert(strstr(failure, "rank 1 (pid 1001) sent a bad PMI request: PMI: field 'kvsname' has no '='"),
              "%s", failure);
    cr_assert_eq(job.ranks[1].fd, -1, "the connection is closed");
}

Test(run_pmi, replies_and_unknown_commands_are_not_requests)
{
    setup_job(1);
    init_all(1);
    send_req(0, "cmd=barrier_out\n");
    cr_assert(strstr(failure, "'barrier_out' is not a request"), "%s", failure);
}

Test(run_pmi, requests_before_init_are_refused)
{
    setup_job(1);
    send_req(0, "cmd=get_maxes\n");
    cr_assert(strstr(failure, "rank 0 (pid 1000) sent a bad PMI request: 'get_maxes' before init"), "%s", failure);
}

Test(run_pmi, pmi2_init_is_refused)
{
    setup_job(1);
    send_req(0, "cmd=init pmi_version=2 pmi_subversion=0\n");
    expect_reply(0, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n");
    cr_assert(strstr(failure, "pmi_version=2"), "%s", failure);
}

Test(run_pmi, oversized_request)
{
    static char big[RCH_PMI_LINE_MAX + 10];
    setup_job(1);
    init_all(1);
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    send_req(0, big);
    cr_assert(strstr(failure, "oversized line"), "%s", failure);
}

Test(run_pmi, barrier_that_a_finalized_rank_cannot_join)
{
    setup_job(3);
    init_all(3);
    send_req(0, "cmd=finalize\n");
    expect_reply(0, "cmd=finalize_ack\n");
    send_req(1, "cmd=barrier_in\n");
    cr_assert(strstr(failure, "can never join (it called finalize)"), "%s", failure);
}

Test(run_pmi, abort_read_from_a_dead_rank_socket)
{
    setup_job(2);
    init_all(2);
    cr_assert_eq(write(client[0], "cmd=abort exitcode=3\n", 21), 21);
    close(client[0]);
    run_pmi_drain(&job, &job.ranks[0]);
    cr_assert_eq(failed_code, 3);
    cr_assert_eq(job.ranks[0].fd, -1);
}

Test(run_kvs, grows_and_overwrites)
{
    struct run_kvs kvs = { 0 };
    char k[32], v[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(k, sizeof(k), "key%d", i);
        snprintf(v, sizeof(v), "val%d", i);
        cr_assert_eq(run_kvs_put(&kvs, k, v), 0);
    }
    cr_assert_null(run_kvs_get(&kvs, "key5"));
    cr_assert_eq(run_kvs_commit(&kvs), 0);
    cr_assert_eq(run_kvs_put(&kvs, "key5", "new"), 0);
    cr_assert_eq(run_kvs_commit(&kvs), 0);
    for (int i = 0; i < 1000; i++) {
        snprintf(k, sizeof(k), "key%d", i);
        snprintf(v, sizeof(v), "val%d", i);
        cr_assert_str_eq(run_kvs_get(&kvs, k), i == 5 ? "new" : v);
    }
    cr_assert_eq(kvs.count, 1000);
    run_kvs_free(&kvs);
}

/* MPI_Comm_spawn_multiple's request: one mcmd=spawn block per command, a
 * reply only after the last (MPICH's simple PMI-1 form, as Hydra parses it). */
Test(run_pmi, spawn_blocks_launch_once_after_the_last)
{
    setup_job(1);
    init_all(1);
    launches = launch_fails = 0;
    send_req(0, "mcmd=spawn\nnprocs=1\nexecname=/bin/a\ntotspawns=2\nspawnssofar=1\nargcnt=0\n"
                "preput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\npreput_val_0=p q\ninfo_num=0\nendcmd\n");
    no_reply(0);
    cr_assert_eq(launches, 0);
    send_req(0, "mcmd=spawn\nnprocs=2\nexecname=/bin/b\ntotspawns=2\nspawnssofar=2\nargcnt=2\narg1=x y\n"
                "arg2=z\npreput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\npreput_val_0=p q\ninfo_num=1\n"
                "info_key_0=wdir\ninfo_val_0=/tmp\nendcmd\n");
    expect_reply(0, "cmd=spawn_result rc=0\n");
    cr_assert_eq(launches, 1);
    cr_assert(launched.total == 2 && launched.cmd[0].nprocs == 1 && launched.cmd[1].nprocs == 2 &&
              launched.cmd[1].argc == 2);
    cr_assert_eq(launch_root, job.ranks[0].pid, "the launch names the asking rank's process");
    /* a launch that fails is answered rc=-1, the job goes on */
    launch_fails = 1;
    send_req(0, "mcmd=spawn\nnprocs=1\nexecname=/bin/a\ntotspawns=1\nspawnssofar=1\nargcnt=0\nendcmd\n");
    expect_reply(0, "cmd=spawn_result rc=-1 msg=no_room_here\n");
    send_req(0, "cmd=get_appnum\n");
    expect_reply(0, "cmd=appnum appnum=0\n");
    cr_assert_eq(job.failed, 0, "%s", failure);
}

/* A command with many arguments (MPICH's spawn/spawnmanyarg passes 1024):
 * every one reaches the launch, in order; none is dropped. */
Test(run_pmi, spawn_with_a_thousand_arguments)
{
    setup_job(1);
    init_all(1);
    launches = launch_fails = 0;
    enum { N = 1000 };
    size_t cap = 256 + (size_t)N * 24, len = 0;
    char *req = malloc(cap);
    cr_assert_not_null(req);
    len += (size_t)snprintf(req + len, cap - len, "mcmd=spawn\nnprocs=1\nexecname=/bin/a\ntotspawns=1\n"
                                                  "spawnssofar=1\nargcnt=%d\n", N);
    for (int i = 1; i <= N; i++)
        len += (size_t)snprintf(req + len, cap - len, "arg%d=v%d\n", i, i);
    len += (size_t)snprintf(req + len, cap - len, "endcmd\n");
    send_req(0, req);
    free(req);
    for (int k = 0; k < 64; k++)   /* the rest of the request, a reader's buffer at a time */
        run_pmi_input(&job, &job.ranks[0]);
    expect_reply(0, "cmd=spawn_result rc=0\n");
    cr_assert_eq(launches, 1);
    cr_assert_eq(launched.cmd[0].argc, N, "%d arguments reached the launch", launched.cmd[0].argc);
    cr_assert_eq(launched_last_arg, N, "the last argument was v%d", launched_last_arg);
    cr_assert_eq(job.failed, 0, "%s", failure);
}

Test(run_pmi, spawn_block_without_execname_is_a_protocol_error)
{
    setup_job(1);
    init_all(1);
    send_req(0, "mcmd=spawn\nnprocs=1\ntotspawns=1\nendcmd\n");
    cr_assert_eq(job.failed, 1);
    cr_assert(strstr(failure, "without nprocs, execname or totspawns"), "%s", failure);
}
