/*
 * MPI dynamic processes (src/mpi/dyn_*.c), by mode (argv[1]):
 *
 *   spawn      world (2 ranks) spawns 3 copies of this program ("child"):
 *              the parents' Comm_get_parent is MPI_COMM_NULL, the children's
 *              is the intercommunicator (local size 3, remote 2) and their
 *              MPI_COMM_WORLD is their own 3; every child sends its world
 *              rank to parent 0, parent 0 broadcasts (MPI_ROOT) a value
 *              the children check; the intercommunicator merged (parents
 *              low) gives ranks 0-1 the parents, 2-4 the children, and an
 *              allreduce over it the sum 1+..+5; MPI_UNIVERSE_SIZE at
 *              least the world; errcodes all MPI_SUCCESS; disconnect.
 *   nospawn [abort]  a spawn that must fail (the launcher cannot spawn, or
 *              the children never connect): MPI_ERR_SPAWN within 5 s; with
 *              "abort", MPI_Abort after the checks (exit status 3).
 *   multiple   Comm_spawn_multiple of two commands (argument "A" x1,
 *              "B" x2): one world of 3 children, ranks in command order,
 *              each telling parent 0 its argument.
 *   server     open a port, publish it (RDMACH_NAMESERV_DIR), print
 *              "PORT <name>", accept a client job (2 + 2 ranks): values
 *              both ways, 16 MiB both ways at once between each pair of
 *              ranks, a merge and an allreduce, then unpublish/close.
 *   client <port>  rank 0 first connects to the port as a stranger (a
 *              wrong key: the connection must be closed on it), then looks
 *              the name up (it must be <port>) and connects.
 *   join       ranks 0 and 1 of one job connect a TCP socket and
 *              MPI_Comm_join over it: a 1+1 intercommunicator, values both
 *              ways, the socket still usable after.
 *   workers N  master/worker: world (the masters) spawns N (2-4) workers;
 *              master 0 hands out tasks 1..40 one at a time to whichever
 *              worker is free (the rest of the masters watch), each worker
 *              returns task^2 + 1000 * its rank and counts its tasks; a
 *              task 0 stops a worker, which then reports its count. Master
 *              0 checks each answer, that every task was done once, the
 *              counts add up to 40 and every worker did at least one.
 *   errors     argument errors with their classes (MPI_ERRORS_RETURN).
 *   iccreate   world rank 0 alone spawns 2 copies ("icchild <np>") over
 *              MPI_COMM_SELF; MPI_Intercomm_create(MPI_COMM_WORLD, 0, that
 *              intercommunicator, 0, ...) on both sides then makes one that
 *              holds every parent, most of which never met a child
 *              (MPI-4.1 7.6.2: peer_comm joins only the leaders); a second
 *              one has other leaders (the last parent, the second child)
 *              and the first as its peer_comm. Each: sizes, every pair
 *              exchanges a message, an allreduce (each side gets the other
 *              side's sum), a merge (parents low), disconnect. A third has
 *              members of both jobs in each group: the first one merged,
 *              split into even and odd ranks, over the merge.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include "mpi_test.h"

static int rank, np;
static const char *self_path;

static void check_intercomm(MPI_Comm ic, int lsize, int rsize)
{
    int flag, n;
    MPI_OK(MPI_Comm_test_inter(ic, &flag));
    CHECK(flag, "not an intercommunicator");
    MPI_OK(MPI_Comm_size(ic, &n));
    CHECK(n == lsize, "local size %d, expected %d", n, lsize);
    MPI_OK(MPI_Comm_remote_size(ic, &n));
    CHECK(n == rsize, "remote size %d, expected %d", n, rsize);
}

/* The merge with the `low` side first, and an allreduce over it. */
static void merge_check(MPI_Comm ic, int high, int first_size)
{
    MPI_Comm m;
    int lrank, lsize, rsize, mr, ms;
    MPI_OK(MPI_Comm_rank(ic, &lrank));
    MPI_OK(MPI_Comm_size(ic, &lsize));
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    MPI_OK(MPI_Intercomm_merge(ic, high, &m));
    MPI_OK(MPI_Comm_rank(m, &mr));
    MPI_OK(MPI_Comm_size(m, &ms));
    CHECK(ms == lsize + rsize, "merged size %d", ms);
    int want = high ? first_size + lrank : lrank;
    CHECK(mr == want, "merged rank %d, expected %d", mr, want);
    int one = mr + 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == ms * (ms + 1) / 2, "allreduce over the merge: %d", sum);
    MPI_OK(MPI_Comm_free(&m));
}

static void parent_side(MPI_Comm ic, int nchild)
{
    check_intercomm(ic, np, nchild);
    if (rank == 0) {
        int seen = 0;
        for (int i = 0; i < nchild; i++) {
            int v;
            MPI_Status st;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, ic, &st));
            CHECK(v == st.MPI_SOURCE * 100 + nchild, "child %d sent %d", st.MPI_SOURCE, v);
            seen |= 1 << st.MPI_SOURCE;
        }
        CHECK(seen == (1 << nchild) - 1, "children seen %#x", seen);
    }
    int val = 4242;
    MPI_OK(MPI_Bcast(&val, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, ic));
    merge_check(ic, 0, np);
}

static void child_side(const char *tag)
{
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    char pname[MPI_MAX_OBJECT_NAME];
    int plen = -1;
    MPI_OK(MPI_Comm_get_name(parent, pname, &plen));   /* MPI 4.1 11.8.2 names it */
    CHECK(strcmp(pname, "MPI_COMM_PARENT") == 0 && plen == 15, "the parent is named \"%s\" (%d), expected "
          "\"MPI_COMM_PARENT\"", pname, plen);
    int psize;
    MPI_OK(MPI_Comm_remote_size(parent, &psize));
    check_intercomm(parent, np, psize);
    int v = rank * 100 + np;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 7, parent));
    if (tag) {
        /* spawn_multiple: the command's index is the child's MPI_APPNUM */
        int *appnum, flag;
        MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag));
        CHECK(flag && *appnum == (tag[0] == 'A' ? 0 : 1), "command %c: MPI_APPNUM %d", tag[0], flag ? *appnum : -1);
        char t = tag[0];
        MPI_OK(MPI_Send(&t, 1, MPI_CHAR, 0, 8, parent));
    }
    int val = 0;
    MPI_OK(MPI_Bcast(&val, 1, MPI_INT, 0, parent));
    CHECK(val == 4242, "broadcast from the parents gave %d", val);
    merge_check(parent, 1, psize);
    MPI_OK(MPI_Comm_disconnect(&parent));
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "get_parent after disconnect is not MPI_COMM_NULL");
}

/* iccreate (see the top): what both sides check of one intercommunicator. */
static void ic_common(MPI_Comm ic, int child, int lsize, int rsize)
{
    check_intercomm(ic, lsize, rsize);
    int me;
    MPI_OK(MPI_Comm_rank(ic, &me));
    int *got = malloc(sizeof(int) * (size_t)rsize);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)rsize);
    CHECK(got && rq, "no memory");
    int mine = (child ? 1000 : 0) + me;
    for (int r = 0; r < rsize; r++) {
        MPI_OK(MPI_Irecv(&got[r], 1, MPI_INT, r, 5, ic, &rq[r]));
        MPI_OK(MPI_Isend(&mine, 1, MPI_INT, r, 5, ic, &rq[rsize + r]));
    }
    MPI_OK(MPI_Waitall(2 * rsize, rq, MPI_STATUSES_IGNORE));
    for (int r = 0; r < rsize; r++)
        CHECK(got[r] == (child ? 0 : 1000) + r, "remote rank %d sent %d", r, got[r]);
    int one = me + 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ic));
    CHECK(sum == rsize * (rsize + 1) / 2, "allreduce: the remote group's sum is %d, expected %d", sum,
          rsize * (rsize + 1) / 2);
    merge_check(ic, child, child ? rsize : lsize);
    free(got);
    free(rq);
}

/* Both sides of iccreate: peer is the spawn's intercommunicator at parent 0
 * and at the children, MPI_COMM_NULL elsewhere (not looked at there). */
static void iccreate_both(MPI_Comm peer, int child, int nparents)
{
    enum { NCHILD = 2 };
    int lsize = child ? NCHILD : nparents, rsize = child ? nparents : NCHILD;
    MPI_Comm ic, ic2;
    MPI_OK(MPI_Intercomm_create(MPI_COMM_WORLD, 0, peer, 0, 77, &ic));
    ic_common(ic, child, lsize, rsize);
    /* leaders the last parent and the second child, met over ic */
    MPI_OK(MPI_Intercomm_create(MPI_COMM_WORLD, child ? 1 : nparents - 1, ic, child ? nparents - 1 : 1, 78, &ic2));
    ic_common(ic2, child, lsize, rsize);
    MPI_OK(MPI_Comm_disconnect(&ic2));
    /* groups of both jobs: the merge's even ranks and odd ranks, leaders
     * (two parents, or parent and child) met over the merge */
    MPI_Comm m, half, ic3;
    MPI_OK(MPI_Intercomm_merge(ic, child, &m));
    int r, n;
    MPI_OK(MPI_Comm_rank(m, &r));
    MPI_OK(MPI_Comm_size(m, &n));
    MPI_OK(MPI_Comm_split(m, r % 2, r, &half));
    MPI_OK(MPI_Intercomm_create(half, 0, m, r % 2 ? 0 : 1, 79, &ic3));
    int want = 0, sum = -1, rs = -1;
    for (int k = 1 - r % 2; k < n; k += 2)
        want += k;
    MPI_OK(MPI_Comm_remote_size(ic3, &rs));
    CHECK(rs == (n + 1 - (1 - r % 2)) / 2, "merge rank %d: the other half has %d", r, rs);
    MPI_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, ic3));
    CHECK(sum == want, "merge rank %d: the other half's sum is %d, expected %d", r, sum, want);
    MPI_OK(MPI_Comm_free(&ic3));
    MPI_OK(MPI_Comm_free(&half));
    MPI_OK(MPI_Comm_free(&m));
    MPI_OK(MPI_Comm_disconnect(&ic));
}

static void iccreate(void)
{
    MPI_Comm ic = MPI_COMM_NULL;
    char n[16];
    snprintf(n, sizeof(n), "%d", np);
    char *args[] = { "icchild", n, NULL };
    if (rank == 0)
        MPI_OK(MPI_Comm_spawn(self_path, args, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic, MPI_ERRCODES_IGNORE));
    iccreate_both(ic, 0, np);
    if (rank == 0)
        MPI_OK(MPI_Comm_disconnect(&ic));
}

static void icchild(int nparents)
{
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    check_intercomm(parent, np, 1);
    iccreate_both(parent, 1, nparents);
    MPI_OK(MPI_Comm_disconnect(&parent));
}

#define NTASKS 40

static void worker(void)
{
    MPI_Comm parent;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent != MPI_COMM_NULL, "a spawned worker has no parent");
    int done = 0;
    for (;;) {
        int task;
        MPI_OK(MPI_Recv(&task, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE));
        if (task == 0)
            break;
        int answer[2] = { task, task * task + 1000 * rank };
        MPI_OK(MPI_Send(answer, 2, MPI_INT, 0, 2, parent));
        done++;
    }
    MPI_OK(MPI_Send(&done, 1, MPI_INT, 0, 3, parent));
    MPI_OK(MPI_Comm_disconnect(&parent));
}

static void workers(int n)
{
    CHECK(n >= 2 && n <= 4, "workers: 2 to 4, not %d", n);
    char *args[] = { "worker", NULL };
    int codes[4];
    MPI_Comm ic;
    MPI_OK(MPI_Comm_spawn(self_path, args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes));
    check_intercomm(ic, np, n);
    for (int i = 0; i < n; i++)
        CHECK(codes[i] == MPI_SUCCESS, "errcode %d is %d", i, codes[i]);
    if (rank == 0) {
        int seen[NTASKS + 1] = { 0 }, next = 1, busy = 0, count = 0;
        for (int w = 0; w < n; w++, next++, busy++)
            MPI_OK(MPI_Send(&next, 1, MPI_INT, w, 1, ic));
        while (busy > 0) {
            int a[2];
            MPI_Status st;
            MPI_OK(MPI_Recv(a, 2, MPI_INT, MPI_ANY_SOURCE, 2, ic, &st));
            CHECK(a[0] >= 1 && a[0] <= NTASKS && !seen[a[0]], "task %d answered twice or never given", a[0]);
            CHECK(a[1] == a[0] * a[0] + 1000 * st.MPI_SOURCE, "worker %d: task %d gave %d", st.MPI_SOURCE, a[0],
                  a[1]);
            seen[a[0]] = 1;
            int t = next <= NTASKS ? next++ : 0;
            MPI_OK(MPI_Send(&t, 1, MPI_INT, st.MPI_SOURCE, 1, ic));
            busy -= t == 0;
        }
        for (int w = 0; w < n; w++) {
            int done;
            MPI_OK(MPI_Recv(&done, 1, MPI_INT, w, 3, ic, MPI_STATUS_IGNORE));
            CHECK(done >= 1, "worker %d did no task", w);
            count += done;
        }
        for (int t = 1; t <= NTASKS; t++)
            CHECK(seen[t], "task %d never answered", t);
        CHECK(count == NTASKS, "the workers counted %d tasks, %d were given", count, NTASKS);
        printf("dyn workers: %d workers did %d tasks\n", n, count);
    }
    MPI_OK(MPI_Comm_disconnect(&ic));
}

static void spawn(void)
{
    MPI_Comm parent, ic;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "a launched process has a parent");
    int *usize, flag;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag));
    CHECK(flag && *usize >= np, "MPI_UNIVERSE_SIZE %d (flag %d)", flag ? *usize : -1, flag);
    char *args[] = { "child", NULL };
    int codes[3] = { -1, -1, -1 };
    MPI_OK(MPI_Comm_spawn(self_path, args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes));
    for (int i = 0; i < 3; i++)
        CHECK(codes[i] == MPI_SUCCESS, "errcode %d is %d", i, codes[i]);
    parent_side(ic, 3);
    MPI_OK(MPI_Comm_disconnect(&ic));
}

/* Where the launcher cannot spawn (srun with PMI-2; Slurm's PMIx server,
 * which has no PMIx_Spawn), or spawns processes that never come:
 * MPI_ERR_SPAWN at every rank within 5 s, every errcode MPI_ERR_SPAWN, no
 * intercommunicator, and the root's message says why (printed: the test
 * matches it). */
static void nospawn(int then_abort)
{
    char *args[] = { "child", NULL };
    int codes[3] = { -1, -1, -1 };
    MPI_Comm ic = MPI_COMM_WORLD;
    double t0 = MPI_Wtime();
    int rc = MPI_Comm_spawn(self_path, args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes);
    double t = MPI_Wtime() - t0;
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    CHECK(mt_class(rc) == MPI_ERR_SPAWN, "class %d, expected MPI_ERR_SPAWN: %s", mt_class(rc), msg);
    CHECK(t < 5.0, "the failure took %.1f s", t);
    CHECK(ic == MPI_COMM_NULL, "an intercommunicator after a failed spawn");
    for (int i = 0; i < 3; i++)
        CHECK(codes[i] == MPI_ERR_SPAWN, "errcode %d is %d", i, codes[i]);
    if (rank == 0) {
        printf("dyn nospawn: %.1f s: %s\n", t, msg);
        if (then_abort)
            printf("dyn nospawn: ok\n");   /* no MPI_Finalize to print it after */
        fflush(stdout);
    }
    /* A launcher still starting the children would wait for them (Hydra
     * under Slurm, for the step Slurm holds): the abort ends it now. */
    if (then_abort) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static void multiple(void)
{
    char *cmds[2] = { (char *)self_path, (char *)self_path };
    char *a0[] = { "childtag", "A", NULL }, *a1[] = { "childtag", "B", NULL };
    char **argvs[2] = { a0, a1 };
    int maxprocs[2] = { 1, 2 }, codes[3];
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    MPI_Comm ic;
    MPI_OK(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &ic, codes));
    check_intercomm(ic, np, 3);
    if (rank == 0) {
        for (int i = 0; i < 3; i++) {
            int v;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, i, 7, ic, MPI_STATUS_IGNORE));
            CHECK(v == i * 100 + 3, "child %d sent %d", i, v);
            char t;
            MPI_OK(MPI_Recv(&t, 1, MPI_CHAR, i, 8, ic, MPI_STATUS_IGNORE));
            CHECK(t == (i == 0 ? 'A' : 'B'), "child %d ran command %c", i, t);
        }
    }
    int val = 4242;
    MPI_OK(MPI_Bcast(&val, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, ic));
    merge_check(ic, 0, np);
    MPI_OK(MPI_Comm_disconnect(&ic));
}

/* Both ways at once between this rank and the remote rank of the same
 * number: NFLOOD messages of FLOOD ints in flight each way, far more than
 * the sockets hold, so sends find their connection's output full and
 * queue behind it (sock.c) while data arrives; each value says who sent
 * it, which message and where, so a byte lost, repeated or reordered
 * shows. */
static void flood(MPI_Comm ic, int accepting)
{
    enum { NFLOOD = 4, FLOOD = 1 << 20 };
    int *out = malloc((size_t)NFLOOD * FLOOD * sizeof(int)), *in = malloc((size_t)NFLOOD * FLOOD * sizeof(int));
    CHECK(out && in, "no memory for the flood");
    MPI_Request rq[2 * NFLOOD];
    int me = accepting ? 1 : 2, them = accepting ? 2 : 1;
    for (int m = 0; m < NFLOOD; m++) {
        for (int i = 0; i < FLOOD; i++) {
            out[(size_t)m * FLOOD + i] = (me << 28) + (m << 24) + (i ^ rank);
            in[(size_t)m * FLOOD + i] = -1;
        }
        MPI_OK(MPI_Irecv(in + (size_t)m * FLOOD, FLOOD, MPI_INT, rank, 20 + m, ic, &rq[m]));
    }
    for (int m = 0; m < NFLOOD; m++)
        MPI_OK(MPI_Isend(out + (size_t)m * FLOOD, FLOOD, MPI_INT, rank, 20 + m, ic, &rq[NFLOOD + m]));
    MPI_OK(MPI_Waitall(2 * NFLOOD, rq, MPI_STATUSES_IGNORE));
    for (int m = 0; m < NFLOOD; m++)
        for (int i = 0; i < FLOOD; i++) {
            int want = (them << 28) + (m << 24) + (i ^ rank);
            if (in[(size_t)m * FLOOD + i] != want)
                CHECK(0, "flood: message %d int %d is %#x, expected %#x", m, i, in[(size_t)m * FLOOD + i], want);
        }
    free(out);
    free(in);
}

/* Both sides of a connected pair of jobs: values both ways, large messages
 * both ways at once, merge, allreduce. */
static void pair_check(MPI_Comm ic, int accepting)
{
    check_intercomm(ic, np, 2);
    int mine = (accepting ? 1000 : 2000) + rank, got = -1;
    MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, rank, 3, &got, 1, MPI_INT, rank, 3, ic, MPI_STATUS_IGNORE));
    CHECK(got == (accepting ? 2000 : 1000) + rank, "got %d from remote rank %d", got, rank);
    /* a message larger than one packet of the sock channel (rendezvous DATA) */
    enum { BIG = 300000 };
    int *big = malloc(BIG * sizeof(int));
    for (int i = 0; i < BIG; i++)
        big[i] = accepting ? i : -1;
    if (accepting && rank == 0)
        MPI_OK(MPI_Send(big, BIG, MPI_INT, 1, 4, ic));
    if (!accepting && rank == 1) {
        MPI_OK(MPI_Recv(big, BIG, MPI_INT, 0, 4, ic, MPI_STATUS_IGNORE));
        for (int i = 0; i < BIG; i++)
            CHECK(big[i] == i, "big[%d] = %d", i, big[i]);
    }
    free(big);
    flood(ic, accepting);
    merge_check(ic, accepting ? 0 : 1, np);
}

static void server(void)
{
    char port[MPI_MAX_PORT_NAME], svc[64];
    snprintf(svc, sizeof(svc), "rdmach-dyn-test");
    if (rank == 0) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        MPI_OK(MPI_Publish_name(svc, MPI_INFO_NULL, port));
        CHECK(mt_class(MPI_Publish_name(svc, MPI_INFO_NULL, port)) == MPI_ERR_SERVICE, "a second publish");
        printf("PORT %s\n", port);
        fflush(stdout);
    }
    MPI_Comm ic;
    MPI_OK(MPI_Comm_accept(rank == 0 ? port : NULL, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
    pair_check(ic, 1);
    MPI_OK(MPI_Comm_disconnect(&ic));
    if (rank == 0) {
        MPI_OK(MPI_Unpublish_name(svc, MPI_INFO_NULL, port));
        MPI_OK(MPI_Close_port(port));
    }
}

/* A connection that does not know the port's key is closed on it. */
static void stranger(const char *port)
{
    char ip[64];
    unsigned p;
    CHECK(sscanf(port, "rdmach-port:%63[0-9.]:%u:", ip, &p) == 2, "port name '%s'", port);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p) };
    inet_pton(AF_INET, ip, &a.sin_addr);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0, "connect to the port");
    uint32_t hello[4] = { 0x5244594eu, 0, 0xdeadbeef, 0x12345678 };
    CHECK(write(fd, hello, sizeof(hello)) == (ssize_t)sizeof(hello), "write");
    char c;
    CHECK(read(fd, &c, 1) == 0, "a stranger's connection was answered, not closed");
    close(fd);
}

static void client(const char *port)
{
    char found[MPI_MAX_PORT_NAME];
    if (rank == 0) {
        stranger(port);
        MPI_OK(MPI_Lookup_name("rdmach-dyn-test", MPI_INFO_NULL, found));
        CHECK(strcmp(found, port) == 0, "Lookup_name gave '%s', not '%s'", found, port);
    }
    MPI_Comm ic;
    MPI_OK(MPI_Comm_connect(rank == 0 ? found : NULL, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
    pair_check(ic, 0);
    MPI_OK(MPI_Comm_disconnect(&ic));
}

static void join(void)
{
    int fd = -1;
    if (rank == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t alen = sizeof(a);
        CHECK(bind(l, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(l, 1) == 0 &&
              getsockname(l, (struct sockaddr *)&a, &alen) == 0, "listen");
        int port = ntohs(a.sin_port);
        MPI_OK(MPI_Send(&port, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
        fd = accept(l, NULL, NULL);
        close(l);
    } else if (rank == 1) {
        int port;
        MPI_OK(MPI_Recv(&port, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        CHECK(connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0, "connect");
    }
    if (rank < 2) {
        MPI_Comm ic;
        MPI_OK(MPI_Comm_join(fd, &ic));
        check_intercomm(ic, 1, 1);
        int mine = 77 + rank, got = -1;
        MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 1, &got, 1, MPI_INT, 0, 1, ic, MPI_STATUS_IGNORE));
        CHECK(got == 77 + (1 - rank), "join: got %d", got);
        MPI_OK(MPI_Comm_disconnect(&ic));
        /* the socket is the user's again */
        char c = (char)('a' + rank), d = 0;
        CHECK(write(fd, &c, 1) == 1 && read(fd, &d, 1) == 1 && d == 'a' + (1 - rank), "socket after join: %d", d);
        close(fd);
    }
    CHECK(mt_class(MPI_Comm_join(-1, NULL)) == MPI_ERR_ARG, "join with no intercomm");
    MPI_Comm ic;
    CHECK(mt_class(MPI_Comm_join(-1, &ic)) == MPI_ERR_ARG && ic == MPI_COMM_NULL, "join of fd -1");
}

static void errors(void)
{
    MPI_Comm ic = MPI_COMM_WORLD;
    int codes[2];
    CHECK(mt_class(MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes)) ==
              MPI_ERR_ARG && ic == MPI_COMM_NULL, "spawn of maxprocs 0");
    CHECK(mt_class(MPI_Comm_spawn(self_path, MPI_ARGV_NULL, -2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes)) ==
              MPI_ERR_ARG, "spawn of maxprocs -2");
    CHECK(mt_class(MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 1, MPI_INFO_NULL, np, MPI_COMM_WORLD, &ic, codes)) ==
              MPI_ERR_ROOT, "spawn with root np");
    CHECK(mt_class(MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL, codes)) ==
              MPI_ERR_ARG, "spawn with intercomm NULL");
    CHECK(mt_class(MPI_Comm_spawn_multiple(0, NULL, NULL, NULL, NULL, 0, MPI_COMM_WORLD, &ic, codes)) == MPI_ERR_ARG,
          "spawn_multiple of count 0");
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "host", "no-such-host.invalid"));
    CHECK(mt_class(MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 2, info, 0, MPI_COMM_WORLD, &ic, codes)) ==
              MPI_ERR_SPAWN && mt_class(codes[1]) == MPI_ERR_SPAWN, "spawn on another host");
    MPI_OK(MPI_Info_set(info, "host", "localhost"));
    MPI_OK(MPI_Info_set(info, "wdir", "/nonexistent-dir"));
    CHECK(mt_class(MPI_Comm_spawn(self_path, MPI_ARGV_NULL, 1, info, 0, MPI_COMM_WORLD, &ic, codes)) ==
              MPI_ERR_SPAWN, "spawn into a missing wdir");
    MPI_OK(MPI_Info_free(&info));
    const char *bad[] = { "", "rdmach-port:", "rdmach-port:1.2.3.4:0:00", "rdmach-port:127.0.0.1:70000:1",
                          "tcp://host:1" };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc = MPI_Comm_connect(bad[i], MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic);
        CHECK(mt_class(rc) == MPI_ERR_PORT && ic == MPI_COMM_NULL, "connect to '%s': class %d", bad[i], mt_class(rc));
    }
    /* a well-formed name of a port that was closed: nobody listens */
    char port[MPI_MAX_PORT_NAME] = "";
    if (rank == 0) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        MPI_OK(MPI_Close_port(port));
    }
    CHECK(mt_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic)) == MPI_ERR_PORT,
          "connect to a closed port");
    CHECK(mt_class(MPI_Comm_accept(port, MPI_INFO_NULL, np + 1, MPI_COMM_WORLD, &ic)) == MPI_ERR_ROOT,
          "accept with root np + 1");
    CHECK(mt_class(MPI_Open_port(MPI_INFO_NULL, NULL)) == MPI_ERR_ARG, "Open_port into NULL");
    CHECK(mt_class(MPI_Publish_name(NULL, MPI_INFO_NULL, "x")) == MPI_ERR_ARG, "Publish_name of NULL");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = rank;
    self_path = argv[0];
    const char *mode = argc > 1 ? argv[1] : "spawn";
    if (strcmp(mode, "child") == 0) {
        child_side(NULL);
    } else if (strcmp(mode, "worker") == 0) {
        worker();
    } else if (strcmp(mode, "icchild") == 0 && argc > 2) {
        icchild(atoi(argv[2]));
    } else if (strcmp(mode, "childtag") == 0) {
        child_side(argc > 2 ? argv[2] : "?");
    } else {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        if (strcmp(mode, "spawn") == 0)
            spawn();
        else if (strcmp(mode, "multiple") == 0)
            multiple();
        else if (strcmp(mode, "workers") == 0 && argc > 2)
            workers(atoi(argv[2]));
        else if (strcmp(mode, "nospawn") == 0)
            nospawn(argc > 2 && strcmp(argv[2], "abort") == 0);
        else if (strcmp(mode, "server") == 0)
            server();
        else if (strcmp(mode, "client") == 0 && argc > 2)
            client(argv[2]);
        else if (strcmp(mode, "join") == 0)
            join();
        else if (strcmp(mode, "errors") == 0)
            errors();
        else if (strcmp(mode, "iccreate") == 0)
            iccreate();
        else
            CHECK(0, "unknown mode %s", mode);
    }
    MPI_Finalize();
    if (rank == 0 && strcmp(mode, "child") != 0 && strcmp(mode, "childtag") != 0 && strcmp(mode, "worker") != 0 &&
        strcmp(mode, "icchild") != 0)
        printf("dyn %s: ok\n", mode);
    return 0;
}
