/*
 * One-sided operations whose origin or result buffer is MPI_BOTTOM, the
 * datatype giving absolute addresses (MPI-4.0 §12.3: "origin_addr ...
 * initial address of origin buffer", any buffer may be MPI_BOTTOM with a
 * datatype built from addresses, §5.1.12). ARMCI-MPI's IOV transfers (NWChem,
 * Global Arrays) do exactly this. MPI_BOTTOM is a null pointer, which must
 * not be taken for "no buffer".
 *
 * Every rank accesses the window of the next one, in one exclusive-lock
 * epoch per case (every operation, each on its own ints), for each window
 * flavor (allocate, create), each target type (8 ints
 * contiguous, 8 ints every other) and each origin shape (an hindexed of 4
 * blocks of 2 ints at absolute addresses; a struct of one block of 8 ints
 * at its absolute address): Put, Get, Accumulate (SUM, REPLACE),
 * Get_accumulate (SUM; NO_OP with only the result at MPI_BOTTOM) and their
 * request forms. Checked: the target's ints and the origin's or result's
 * ints where the type puts them, and that nothing else changed.
 */
#include "mpi_test.h"

#define WN 16
#define NE 8

enum op { PUT, GET, ACC_SUM, ACC_REPLACE, GACC_SUM, GACC_NOOP, NOPS };
static const char *op_name[NOPS] = { "Put", "Get", "Accumulate(SUM)", "Accumulate(REPLACE)",
                                     "Get_accumulate(SUM)", "Get_accumulate(NO_OP)" };

static int me, np, to, from;

/* The origin types over buf: idx[k] is the int of buf that element k is. */
static MPI_Datatype at_bottom(int *buf, int shape, int *idx)
{
    MPI_Datatype t;
    if (shape == 0) {
        int bl[4];
        MPI_Aint d[4];
        for (int b = 0; b < 4; b++) {
            bl[b] = 2;
            MPI_OK(MPI_Get_address(&buf[4 * b], &d[b]));
            idx[2 * b] = 4 * b;
            idx[2 * b + 1] = 4 * b + 1;
        }
        MPI_OK(MPI_Type_create_hindexed(4, bl, d, MPI_INT, &t));
    } else {
        int len = NE;
        MPI_Aint d;
        MPI_Datatype i = MPI_INT;
        MPI_OK(MPI_Get_address(buf, &d));
        MPI_OK(MPI_Type_create_struct(1, &len, &d, &i, &t));
        for (int k = 0; k < NE; k++)
            idx[k] = k;
    }
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

/* One epoch: every operation, each on its own WN ints of the window and
 * with its own buffers. */
static void one(MPI_Win win, int *wmem, const char *flavor, int vec, int shape, int req)
{
    int buf[NOPS][WN], res[NOPS][WN], idx[NE], ridx[NE], pos[NE];
    MPI_Datatype ot[NOPS], rt[NOPS], tt = MPI_INT;
    for (int op = 0; op < NOPS; op++) {
        for (int i = 0; i < WN; i++) {
            wmem[op * WN + i] = 1000 * me + i;
            buf[op][i] = 10 * me + i + 1;
            res[op][i] = -1;
        }
        ot[op] = at_bottom(buf[op], shape, idx);
        rt[op] = at_bottom(res[op], shape, ridx);
    }
    int tcount = NE;
    if (vec) {
        MPI_OK(MPI_Type_vector(NE, 1, 2, MPI_INT, &tt));
        MPI_OK(MPI_Type_commit(&tt));
        tcount = 1;
    }
    for (int k = 0; k < NE; k++)
        pos[k] = vec ? 2 * k : k;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Request r[NOPS];
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));
    for (int op = 0; op < NOPS; op++) {
        MPI_Aint d = op * WN;
        r[op] = MPI_REQUEST_NULL;
        switch ((enum op)op) {
        case PUT:
            MPI_OK(req ? MPI_Rput(MPI_BOTTOM, 1, ot[op], to, d, tcount, tt, win, &r[op])
                       : MPI_Put(MPI_BOTTOM, 1, ot[op], to, d, tcount, tt, win));
            break;
        case GET:
            MPI_OK(req ? MPI_Rget(MPI_BOTTOM, 1, ot[op], to, d, tcount, tt, win, &r[op])
                       : MPI_Get(MPI_BOTTOM, 1, ot[op], to, d, tcount, tt, win));
            break;
        case ACC_SUM:
        case ACC_REPLACE: {
            MPI_Op o = op == ACC_SUM ? MPI_SUM : MPI_REPLACE;
            MPI_OK(req ? MPI_Raccumulate(MPI_BOTTOM, 1, ot[op], to, d, tcount, tt, o, win, &r[op])
                       : MPI_Accumulate(MPI_BOTTOM, 1, ot[op], to, d, tcount, tt, o, win));
            break;
        }
        case GACC_SUM:
            MPI_OK(req ? MPI_Rget_accumulate(MPI_BOTTOM, 1, ot[op], MPI_BOTTOM, 1, rt[op], to, d, tcount, tt, MPI_SUM,
                                             win, &r[op])
                       : MPI_Get_accumulate(MPI_BOTTOM, 1, ot[op], MPI_BOTTOM, 1, rt[op], to, d, tcount, tt, MPI_SUM,
                                            win));
            break;
        case GACC_NOOP:
            MPI_OK(req ? MPI_Rget_accumulate(NULL, 0, MPI_INT, MPI_BOTTOM, 1, rt[op], to, d, tcount, tt, MPI_NO_OP,
                                             win, &r[op])
                       : MPI_Get_accumulate(NULL, 0, MPI_INT, MPI_BOTTOM, 1, rt[op], to, d, tcount, tt, MPI_NO_OP,
                                            win));
            break;
        default:
            break;
        }
    }
    if (req)
        MPI_OK(MPI_Waitall(NOPS, r, MPI_STATUSES_IGNORE));
    MPI_OK(MPI_Win_unlock(to, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* What `from` did to my window, and what came back to my buffers from `to`'s. */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    for (int op = 0; op < NOPS; op++) {
        int want_w[WN], want_b[WN], want_r[WN];
        for (int i = 0; i < WN; i++) {
            want_w[i] = 1000 * me + i;
            want_b[i] = 10 * me + i + 1;
            want_r[i] = -1;
        }
        for (int k = 0; k < NE; k++) {
            int mine = 10 * from + idx[k] + 1;      /* the value from's element k carried */
            if (op == PUT || op == ACC_REPLACE)
                want_w[pos[k]] = mine;
            else if (op == ACC_SUM || op == GACC_SUM)
                want_w[pos[k]] += mine;
            if (op == GET)
                want_b[idx[k]] = 1000 * to + pos[k];
            if (op == GACC_SUM || op == GACC_NOOP)
                want_r[ridx[k]] = 1000 * to + pos[k];
        }
        const char *what = vec ? "vector" : "contiguous", *rf = req ? "R-form of " : "";
        for (int i = 0; i < WN; i++) {
            CHECK(wmem[op * WN + i] == want_w[i], "%s window, %s target, origin shape %d, %s%s: window int %d is %d, "
                  "expected %d", flavor, what, shape, rf, op_name[op], i, wmem[op * WN + i], want_w[i]);
            CHECK(buf[op][i] == want_b[i], "%s window, %s target, origin shape %d, %s%s: origin int %d is %d, "
                  "expected %d", flavor, what, shape, rf, op_name[op], i, buf[op][i], want_b[i]);
            CHECK(res[op][i] == want_r[i], "%s window, %s target, origin shape %d, %s%s: result int %d is %d, "
                  "expected %d", flavor, what, shape, rf, op_name[op], i, res[op][i], want_r[i]);
        }
        MPI_OK(MPI_Type_free(&ot[op]));
        MPI_OK(MPI_Type_free(&rt[op]));
    }
    MPI_OK(MPI_Win_unlock(me, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (vec)
        MPI_OK(MPI_Type_free(&tt));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &np);
    to = (me + 1) % np;
    from = (me + np - 1) % np;
    int cases = 0;
    for (int flavor = 0; flavor < 2; flavor++) {
        int *wmem;
        MPI_Win win;
        if (flavor == 0) {
            MPI_OK(MPI_Win_allocate(NOPS * WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &win));
        } else {
            wmem = malloc(NOPS * WN * sizeof(int));
            CHECK(wmem != NULL, "no memory");
            MPI_OK(MPI_Win_create(wmem, NOPS * WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        }
        for (int vec = 0; vec < 2; vec++)
            for (int shape = 0; shape < 2; shape++)
                for (int req = 0; req < 2; req++, cases += NOPS)
                    one(win, wmem, flavor ? "create" : "allocate", vec, shape, req);
        MPI_OK(MPI_Win_free(&win));
        if (flavor)
            free(wmem);
    }
    if (me == 0)
        printf("conf_rma_bottom: %d ranks: %d cases with buffers at MPI_BOTTOM: ok\n", np, cases);
    MPI_Finalize();
    return 0;
}
