/*
 * Every one-sided operation under every synchronisation mode, on every kind
 * of window. Rank r operates on target (r + 1) % size, in the slice of the
 * target's window that belongs to r, so all ranks work at once and every
 * result is known in advance:
 *
 *   window of rank t, slot i (N = size * K slots of int64): g(t, i)
 *   data of origin r, element i:                             f(r, i)
 *
 * operations: Put (contiguous; into a strided target type), Get
 * (contiguous; into a strided origin type), Accumulate (SUM, REPLACE, MAX,
 * BXOR), Get_accumulate (SUM, NO_OP), Fetch_and_op, Compare_and_swap
 * (a hit and a miss), and the request-based Rput/Rget/Raccumulate/
 * Rget_accumulate;
 * modes: fence, lock exclusive, lock shared, lock_all, lock_all + flush,
 * lock + flush_local, post/start/complete/wait, requests in lock_all;
 * windows: Win_create, Win_allocate, Win_create_dynamic (+ attach),
 * Win_allocate_shared (when every rank is on one node).
 *
 * Usage: test_mpi_win_ops [create|allocate|dynamic|shared|all]
 */
#include "mpi_test.h"

#define K 16

enum flavor { F_CREATE, F_ALLOCATE, F_DYNAMIC, F_SHARED, F_MAX };
static const char *flavor_name[F_MAX] = { "create", "allocate", "dynamic", "shared" };

enum mode { M_FENCE, M_LOCK_EXCL, M_LOCK_SHARED, M_LOCK_ALL, M_FLUSH, M_FLUSH_LOCAL, M_PSCW, M_REQ, M_MAX };
static const char *mode_name[M_MAX] = { "fence", "lock-exclusive", "lock-shared", "lock_all", "flush",
                                        "flush_local", "pscw", "requests" };

enum op {
    O_PUT, O_PUT_STRIDED, O_GET, O_GET_STRIDED, O_ACC_SUM, O_ACC_REPLACE, O_ACC_MAX, O_ACC_BXOR,
    O_GACC_SUM, O_GACC_NOOP, O_FOP, O_CAS, O_MAX
};
static const char *op_name[O_MAX] = { "put", "put-strided", "get", "get-strided", "acc-sum", "acc-replace",
                                      "acc-max", "acc-bxor", "gacc-sum", "gacc-noop", "fetch_and_op",
                                      "compare_and_swap" };

static int rank, size, N;
static long checks;

static int64_t g(int t, int i) { return 100000 * (int64_t)(t + 1) + i; }
static int64_t f(int r, int i) { return 1000 * (int64_t)r + i + 1; }

struct win {
    MPI_Win win;
    int64_t *mem;          /* my window memory */
    MPI_Aint *addr;        /* dynamic: every rank's memory address */
    enum flavor fl;
};

static void win_make(struct win *w, enum flavor fl)
{
    w->fl = fl;
    w->addr = NULL;
    MPI_Aint bytes = (MPI_Aint)N * 8;
    switch (fl) {
    case F_CREATE:
        w->mem = malloc((size_t)bytes);
        MPI_OK(MPI_Win_create(w->mem, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        break;
    case F_ALLOCATE:
        MPI_OK(MPI_Win_allocate(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem, &w->win));
        break;
    case F_SHARED:
        MPI_OK(MPI_Win_allocate_shared(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem, &w->win));
        break;
    default: {
        w->mem = malloc((size_t)bytes);
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        MPI_OK(MPI_Win_attach(w->win, w->mem, bytes));
        MPI_Aint mine;
        MPI_OK(MPI_Get_address(w->mem, &mine));
        w->addr = malloc(sizeof(MPI_Aint) * (size_t)size);
        MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, w->addr, 1, MPI_AINT, MPI_COMM_WORLD));
        break;
    }
    }
    MPI_OK(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
}

static void win_free(struct win *w)
{
    if (w->fl == F_DYNAMIC)
        MPI_OK(MPI_Win_detach(w->win, w->mem));
    MPI_OK(MPI_Win_free(&w->win));
    CHECK(w->win == MPI_WIN_NULL, "Win_free left the handle");
    if (w->fl == F_CREATE || w->fl == F_DYNAMIC)
        free(w->mem);
    free(w->addr);
}

/* Displacement of slot i at target t. */
static MPI_Aint disp(const struct win *w, int t, int i)
{
    return w->fl == F_DYNAMIC ? w->addr[t] + (MPI_Aint)i * 8 : i;
}

/* ---- one epoch ---- */

static MPI_Group group_of(int r)
{
    MPI_Group world, g;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_OK(MPI_Group_incl(world, 1, &r, &g));
    MPI_OK(MPI_Group_free(&world));
    return g;
}

static void epoch_open(struct win *w, enum mode m, int target, int origin)
{
    switch (m) {
    case M_FENCE:       MPI_OK(MPI_Win_fence(0, w->win)); break;
    case M_LOCK_EXCL:   MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, w->win)); break;
    case M_LOCK_SHARED:
    case M_FLUSH_LOCAL: MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w->win)); break;
    case M_PSCW: {
        MPI_Group go = group_of(origin), gt = group_of(target);
        MPI_OK(MPI_Win_post(go, 0, w->win));
        MPI_OK(MPI_Win_start(gt, 0, w->win));
        MPI_OK(MPI_Group_free(&go));
        MPI_OK(MPI_Group_free(&gt));
        break;
    }
    default:            MPI_OK(MPI_Win_lock_all(0, w->win)); break;
    }
}

static void epoch_close(struct win *w, enum mode m, int target)
{
    switch (m) {
    case M_FENCE:       MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win)); break;
    case M_LOCK_EXCL:
    case M_LOCK_SHARED: MPI_OK(MPI_Win_unlock(target, w->win)); break;
    case M_FLUSH_LOCAL:
        MPI_OK(MPI_Win_flush_local(target, w->win));
        MPI_OK(MPI_Win_unlock(target, w->win));
        break;
    case M_FLUSH:
        MPI_OK(MPI_Win_flush(target, w->win));
        MPI_OK(MPI_Win_flush_all(w->win));
        MPI_OK(MPI_Win_unlock_all(w->win));
        break;
    case M_PSCW:
        MPI_OK(MPI_Win_complete(w->win));
        MPI_OK(MPI_Win_wait(w->win));
        break;
    default:            MPI_OK(MPI_Win_unlock_all(w->win)); break;
    }
}

/* ---- the operations ---- */

static void issue(struct win *w, enum op o, int req_mode, int t, int64_t *buf, int64_t *res, MPI_Datatype strided)
{
    MPI_Request rq[2];
    int nrq = 0;
    MPI_Aint d = disp(w, t, rank * K);
    int64_t five = 5, cmp;
    switch (o) {
    case O_PUT:
        if (req_mode)
            MPI_OK(MPI_Rput(buf, K, MPI_INT64_T, t, d, K, MPI_INT64_T, w->win, &rq[nrq++]));
        else
            MPI_OK(MPI_Put(buf, K, MPI_INT64_T, t, d, K, MPI_INT64_T, w->win));
        break;
    case O_PUT_STRIDED:
        MPI_OK(MPI_Put(buf, K / 2, MPI_INT64_T, t, d, 1, strided, w->win));
        break;
    case O_GET:
        if (req_mode)
            MPI_OK(MPI_Rget(res, K, MPI_INT64_T, t, d, K, MPI_INT64_T, w->win, &rq[nrq++]));
        else
            MPI_OK(MPI_Get(res, K, MPI_INT64_T, t, d, K, MPI_INT64_T, w->win));
        break;
    case O_GET_STRIDED:
        MPI_OK(MPI_Get(res, 1, strided, t, d, K / 2, MPI_INT64_T, w->win));
        break;
    case O_ACC_SUM:
        if (req_mode)
            MPI_OK(MPI_Raccumulate(buf, K, MPI_INT64_T, t, d, K, MPI_INT64_T, MPI_SUM, w->win, &rq[nrq++]));
        else
            MPI_OK(MPI_Accumulate(buf, K, MPI_INT64_T, t, d, K, MPI_INT64_T, MPI_SUM, w->win));
        break;
    case O_ACC_REPLACE:
        MPI_OK(MPI_Accumulate(buf, K, MPI_INT64_T, t, d, K, MPI_INT64_T, MPI_REPLACE, w->win));
        break;
    case O_ACC_MAX:
        MPI_OK(MPI_Accumulate(buf, K, MPI_INT64_T, t, d, K, MPI_INT64_T, MPI_MAX, w->win));
        break;
    case O_ACC_BXOR:
        /* into a strided target: every other slot */
        MPI_OK(MPI_Accumulate(buf, K / 2, MPI_INT64_T, t, d, 1, strided, MPI_BXOR, w->win));
        break;
    case O_GACC_SUM:
        if (req_mode)
            MPI_OK(MPI_Rget_accumulate(buf, K, MPI_INT64_T, res, K, MPI_INT64_T, t, d, K, MPI_INT64_T, MPI_SUM,
                                       w->win, &rq[nrq++]));
        else
            MPI_OK(MPI_Get_accumulate(buf, K, MPI_INT64_T, res, K, MPI_INT64_T, t, d, K, MPI_INT64_T, MPI_SUM,
                                      w->win));
        break;
    case O_GACC_NOOP:
        MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, res, K, MPI_INT64_T, t, d, K, MPI_INT64_T, MPI_NO_OP,
                                  w->win));
        break;
    case O_FOP:
        MPI_OK(MPI_Fetch_and_op(&five, &res[0], MPI_INT64_T, t, d, MPI_SUM, w->win));
        break;
    default:
        cmp = g(t, rank * K + 1);
        MPI_OK(MPI_Compare_and_swap(&buf[0], &cmp, &res[0], MPI_INT64_T, t, disp(w, t, rank * K + 1), w->win));
        /* a miss: the slot holds buf[0] now (or soon); comparing with g again must not swap */
        MPI_OK(MPI_Compare_and_swap(&buf[1], &cmp, &res[1], MPI_INT64_T, t, disp(w, t, rank * K + 2), w->win));
        break;
    }
    if (nrq) {
        MPI_Status st[2];
        MPI_OK(MPI_Waitall(nrq, rq, st));
    }
}

/* What my window slice written by `o` and my results must hold now. */
static void verify(struct win *w, enum op o, enum mode m, int origin, int t, const int64_t *res, const char *where)
{
    const int64_t *mine = w->mem + origin * K;
    char tag[160];
    snprintf(tag, sizeof(tag), "%s %s %s", flavor_name[w->fl], mode_name[m], op_name[o]);
    for (int i = 0; i < K; i++) {
        int64_t old = g(rank, origin * K + i), in = f(origin, i), want = old;
        switch (o) {
        case O_PUT:         want = in; break;
        case O_PUT_STRIDED: want = i % 2 == 0 ? f(origin, i / 2) : old; break;
        case O_ACC_SUM:
        case O_GACC_SUM:    want = old + in; break;
        case O_ACC_REPLACE: want = in; break;
        case O_ACC_MAX:     want = old > in ? old : in; break;
        case O_ACC_BXOR:    want = i % 2 == 0 ? old ^ f(origin, i / 2) : old; break;
        case O_FOP:         want = i == 0 ? old + 5 : old; break;
        case O_CAS:         want = i == 1 ? f(origin, 0) : old; break;
        default: break;
        }
        CHECK(mine[i] == want, "%s: %s slot %d of origin %d's slice: %lld, expected %lld", tag, where, i, origin,
              (long long)mine[i], (long long)want);
        checks++;
    }
    /* results at the origin (about target t) */
    for (int i = 0; i < K; i++) {
        int64_t tv = g(t, rank * K + i), want;
        switch (o) {
        case O_GET:
        case O_GACC_SUM:
        case O_GACC_NOOP:    want = tv; break;
        case O_GET_STRIDED:  want = i % 2 == 0 ? g(t, rank * K + i / 2) : -7; break;
        case O_FOP:          want = i == 0 ? tv : -7; break;
        case O_CAS:          want = i == 0 ? g(t, rank * K + 1) : i == 1 ? g(t, rank * K + 2) : -7; break;
        default:             continue;
        }
        CHECK(res[i] == want, "%s: result %d from target %d: %lld, expected %lld", tag, i, t, (long long)res[i],
              (long long)want);
        checks++;
    }
}

static int op_in_mode(enum op o, enum mode m)
{
    if (m != M_REQ)
        return 1;
    return o == O_PUT || o == O_GET || o == O_ACC_SUM || o == O_GACC_SUM;
}

static void run_flavor(enum flavor fl)
{
    struct win w;
    win_make(&w, fl);
    int t = (rank + 1) % size, origin = (rank + size - 1) % size;
    MPI_Datatype strided;
    MPI_OK(MPI_Type_vector(K / 2, 1, 2, MPI_INT64_T, &strided));
    MPI_OK(MPI_Type_commit(&strided));
    int64_t buf[K], res[K];
    for (int i = 0; i < K; i++)
        buf[i] = f(rank, i);

    for (int m = 0; m < M_MAX; m++) {
        for (int o = 0; o < O_MAX; o++) {
            if (!op_in_mode(o, m))
                continue;
            /* fresh window contents, visible to everyone before the epoch */
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w.win));
            for (int i = 0; i < N; i++)
                w.mem[i] = g(rank, i);
            MPI_OK(MPI_Win_unlock(rank, w.win));
            for (int i = 0; i < K; i++)
                res[i] = -7;
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

            epoch_open(&w, m, t, origin);
            issue(&w, o, m == M_REQ, t, buf, res, strided);
            epoch_close(&w, m, t);

            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
            MPI_OK(MPI_Win_sync(w.win));
            verify(&w, o, m, origin, t, res, "window");
        }
    }
    MPI_OK(MPI_Type_free(&strided));
    win_free(&w);
    if (rank == 0)
        printf("test_mpi_win_ops: %s windows: every operation in every mode correct\n", flavor_name[fl]);
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    mt_rank = rank;
    N = size * K;
    const char *which = argc > 1 ? argv[1] : "all";
    MPI_Comm node;
    int nsize;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Comm_size(node, &nsize));
    MPI_OK(MPI_Comm_free(&node));
    int ran = 0;
    for (int fl = 0; fl < F_MAX; fl++) {
        if (strcmp(which, "all") != 0 && strcmp(which, flavor_name[fl]) != 0)
            continue;
        if (fl == F_SHARED && nsize != size) {
            if (rank == 0)
                printf("test_mpi_win_ops: shared windows need one node (%d of %d ranks share it): not run\n", nsize,
                       size);
            continue;
        }
        run_flavor(fl);
        ran++;
    }
    CHECK(ran > 0, "no window flavor matches '%s'", which);
    long total = 0;
    MPI_OK(MPI_Reduce(&checks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0)
        printf("test_mpi_win_ops: %d ranks, %ld checks passed\n", size, total);
    MPI_OK(MPI_Finalize());
    return 0;
}
