/*
 * The MPICH ABI, seen from a program compiled with MPICH's own mpi.h
 * (mpicc.mpich) and run on rdmach's libmpich.so.12, on 2+ ranks:
 *
 *   - the library that answers is rdmach (MPI_Get_library_version), not MPICH;
 *   - MPI_Status: MPICH's field layout (source, tag, count through
 *     Get_count/Get_elements, cancelled, MPI_ERROR under MPI_ERR_IN_STATUS);
 *   - error classes: MPICH's numbers come back from the calls that raise
 *     them, Error_class is the identity on every class, Error_string has text;
 *   - sentinels: MPI_IN_PLACE, MPI_BOTTOM with absolute addresses,
 *     MPI_STATUS(ES)_IGNORE, MPI_PROC_NULL, MPI_ANY_SOURCE/TAG,
 *     MPI_REQUEST_NULL, MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY (exported
 *     variables: their addresses must be the library's), MPI_TAG_UB;
 *   - predefined handles: datatype sizes against the C types, pair types with
 *     MPI_MAXLOC, MPI_COMM_SELF, MPI_GROUP_EMPTY, MPI_INFO_ENV;
 *   - the attribute copy callback MPI_COMM_DUP_FN (MPIR_Dup_fn in the library).
 *
 * Compiled with rdmach's own mpicc too, where it must pass the same way.
 */
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int rank = -1, size;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", rank, __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fprintf(stderr, "\n");                                                               \
            fflush(stderr);                                                                      \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                        \
        }                                                                                        \
    } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

static int cls(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

static void check_library(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    OK(MPI_Get_library_version(v, &len));
    CHECK(len > 0 && strstr(v, "rdmach"), "the MPI library is not rdmach: '%s'", v);
    if (rank == 0)
        printf("library: %s\n", v);
}

static void check_status(void)
{
    _Static_assert(sizeof(MPI_Status) == 5 * sizeof(int), "MPICH's MPI_Status is five ints");
    if (rank == 1) {
        char msg[12] = "hello, abi!";
        OK(MPI_Send(msg, 12, MPI_BYTE, 0, 77, MPI_COMM_WORLD));
        int v[3] = { 1, 2, 3 };
        OK(MPI_Send(v, 3, MPI_INT, 0, 78, MPI_COMM_WORLD));
        OK(MPI_Send(v, 3, MPI_INT, 0, 79, MPI_COMM_WORLD));   /* truncated at rank 0 */
    } else if (rank == 0) {
        char buf[32];
        MPI_Status st;
        st.MPI_ERROR = 12345;
        OK(MPI_Recv(buf, 32, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int n = -1, flag = 1;
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 77, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == 12 && strcmp(buf, "hello, abi!") == 0, "count %d", n);
        OK(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(n == 3, "12 bytes as MPI_INT: %d", n);
        OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
        CHECK(n == MPI_UNDEFINED, "12 bytes as MPI_DOUBLE: %d", n);
        OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "cancelled");
        int v[3];
        OK(MPI_Recv(v, 3, MPI_INT, 1, 78, MPI_COMM_WORLD, &st));
        OK(MPI_Get_elements(&st, MPI_INT, &n));
        CHECK(n == 3 && v[2] == 3, "elements %d", n);
        /* Truncation inside Waitall: MPI_ERR_IN_STATUS, the class in MPI_ERROR. */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Request rq[2];
        MPI_Status sts[2];
        OK(MPI_Irecv(v, 1, MPI_INT, 1, 79, MPI_COMM_WORLD, &rq[0]));
        rq[1] = MPI_REQUEST_NULL;
        int err = MPI_Waitall(2, rq, sts);
        CHECK(cls(err) == MPI_ERR_IN_STATUS, "Waitall returned class %d", cls(err));
        CHECK(cls(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE, "status class %d", cls(sts[0].MPI_ERROR));
        CHECK(sts[1].MPI_ERROR == MPI_SUCCESS, "the null request's status error %d", sts[1].MPI_ERROR);
        CHECK(rq[0] == MPI_REQUEST_NULL, "the request was not freed");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    /* MPI_PROC_NULL: an empty status. */
    MPI_Status st;
    int x = 5, n = -1;
    OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0 && x == 5, "PROC_NULL status");
    OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD));
}

static void check_error_classes(void)
{
    static const int classes[] = {
        MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM, MPI_ERR_RANK,
        MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TOPOLOGY, MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_UNKNOWN,
        MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN, MPI_ERR_IN_STATUS, MPI_ERR_PENDING, MPI_ERR_REQUEST,
        MPI_ERR_INFO, MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY, MPI_ERR_NO_MEM, MPI_ERR_WIN,
        MPI_ERR_BASE, MPI_ERR_SIZE, MPI_ERR_DISP, MPI_ERR_LOCKTYPE, MPI_ERR_RMA_SYNC, MPI_ERR_KEYVAL,
    };
    for (unsigned i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        CHECK(cls(classes[i]) == classes[i], "Error_class(%d) = %d", classes[i], cls(classes[i]));
        OK(MPI_Error_string(classes[i], s, &len));
        CHECK(len > 0 && (int)strlen(s) == len, "no text for class %d", classes[i]);
    }
    /* The calls raise MPICH's numbers. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, y = 0;
    CHECK(cls(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD)) == MPI_ERR_RANK, "bad rank");
    CHECK(cls(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD)) == MPI_ERR_TAG, "bad tag");
    CHECK(cls(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_COUNT, "bad count");
    CHECK(cls(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE, "bad type");
    CHECK(cls(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL)) == MPI_ERR_COMM, "bad comm");
    CHECK(cls(MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD)) == MPI_ERR_ROOT, "bad root");
    CHECK(cls(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD)) == MPI_ERR_OP, "bad op");
    int n;
    CHECK(cls(MPI_Info_get_nkeys(MPI_INFO_NULL, &n)) == MPI_ERR_INFO, "bad info");
    CHECK(cls(MPI_Group_size(MPI_GROUP_NULL, &n)) == MPI_ERR_GROUP, "bad group");
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK(cls(MPI_Start(&r)) == MPI_ERR_REQUEST, "start of MPI_REQUEST_NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

struct dint {
    double v;
    int i;
};

static void check_sentinels_and_types(void)
{
    /* MPI_IN_PLACE */
    int v = rank + 1;
    OK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(v == size * (size + 1) / 2, "in-place sum %d", v);
    /* MPI_BOTTOM with a struct type of absolute addresses. */
    int a = 100 + rank;
    double b = 0.5 * rank;
    MPI_Aint disp[2];
    OK(MPI_Get_address(&a, &disp[0]));
    OK(MPI_Get_address(&b, &disp[1]));
    int bl[2] = { 1, 1 };
    MPI_Datatype tys[2] = { MPI_INT, MPI_DOUBLE }, abs_t;
    OK(MPI_Type_create_struct(2, bl, disp, tys, &abs_t));
    OK(MPI_Type_commit(&abs_t));
    OK(MPI_Bcast(MPI_BOTTOM, 1, abs_t, 0, MPI_COMM_WORLD));
    CHECK(a == 100 && b == 0.0, "MPI_BOTTOM bcast gave %d %g", a, b);
    OK(MPI_Type_free(&abs_t));
    /* MPI_STATUSES_IGNORE with MPI_ANY_SOURCE. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_Request rq[2];
    OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Isend(&rank, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(got == left, "ring got %d", got);
    /* MPI_TAG_UB. */
    int *ub, flag = 0;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && *ub >= 32767, "MPI_TAG_UB");
    /* The weight sentinels are the library's objects: passing them must be
     * recognised (unweighted), not read as arrays. */
    MPI_Comm g;
    int src[1] = { left }, dst[1] = { right }, in, out, w;
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                      0, &g));
    OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 1 && out == 1 && !w, "MPI_UNWEIGHTED was taken for weights (weighted = %d)", w);
    OK(MPI_Comm_free(&g));
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, src, MPI_WEIGHTS_EMPTY, 0, dst, MPI_WEIGHTS_EMPTY,
                                      MPI_INFO_NULL, 0, &g));
    OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
    CHECK(in == 0 && out == 0 && w, "MPI_WEIGHTS_EMPTY: in %d out %d weighted %d", in, out, w);
    OK(MPI_Comm_free(&g));

    /* Datatype sizes against the C types. */
    static const struct {
        MPI_Datatype t;
        int size;
        const char *name;
    } types[] = {
        { MPI_CHAR, sizeof(char), "MPI_CHAR" },
        { MPI_SHORT, sizeof(short), "MPI_SHORT" },
        { MPI_INT, sizeof(int), "MPI_INT" },
        { MPI_LONG, sizeof(long), "MPI_LONG" },
        { MPI_LONG_LONG, sizeof(long long), "MPI_LONG_LONG" },
        { MPI_FLOAT, sizeof(float), "MPI_FLOAT" },
        { MPI_DOUBLE, sizeof(double), "MPI_DOUBLE" },
        { MPI_LONG_DOUBLE, sizeof(long double), "MPI_LONG_DOUBLE" },
        { MPI_INT64_T, 8, "MPI_INT64_T" },
        { MPI_UINT8_T, 1, "MPI_UINT8_T" },
        { MPI_C_BOOL, sizeof(_Bool), "MPI_C_BOOL" },
        { MPI_C_DOUBLE_COMPLEX, sizeof(double complex), "MPI_C_DOUBLE_COMPLEX" },
        { MPI_AINT, sizeof(MPI_Aint), "MPI_AINT" },
        { MPI_OFFSET, sizeof(MPI_Offset), "MPI_OFFSET" },
        { MPI_COUNT, sizeof(MPI_Count), "MPI_COUNT" },
        { MPI_2INT, 2 * sizeof(int), "MPI_2INT" },
        { MPI_DOUBLE_INT, sizeof(double) + sizeof(int), "MPI_DOUBLE_INT" },
    };
    for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        int s = -1;
        OK(MPI_Type_size(types[i].t, &s));
        CHECK(s == types[i].size, "size of %s is %d, expected %d", types[i].name, s, types[i].size);
    }
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext));
    CHECK(lb == 0 && ext == (MPI_Aint)sizeof(struct dint), "MPI_DOUBLE_INT extent %ld", (long)ext);
    /* MAXLOC over (value, rank). */
    struct dint in_v = { (double)(rank % 3), rank }, out_v;
    OK(MPI_Allreduce(&in_v, &out_v, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    double maxv = size >= 3 ? 2.0 : (double)(size - 1);
    CHECK(out_v.v == maxv && out_v.i == (int)maxv, "MAXLOC gave (%g, %d)", out_v.v, out_v.i);

    /* Predefined communicator, group, info. */
    int n;
    OK(MPI_Comm_size(MPI_COMM_SELF, &n));
    CHECK(n == 1, "MPI_COMM_SELF size %d", n);
    OK(MPI_Group_size(MPI_GROUP_EMPTY, &n));
    CHECK(n == 0, "MPI_GROUP_EMPTY size %d", n);
    char val[MPI_MAX_INFO_VAL];
    OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL - 1, val, &flag));
    CHECK(flag && atoi(val) == size, "MPI_INFO_ENV maxprocs");
    /* MPI_COMM_DUP_FN copies an attribute to a duplicate. */
    int key;
    static int payload = 99;
    OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &payload));
    MPI_Comm d;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    int *p = NULL;
    OK(MPI_Comm_get_attr(d, key, &p, &flag));
    CHECK(flag && p == &payload, "MPI_COMM_DUP_FN did not copy the attribute");
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    OK(MPI_Comm_free_keyval(&key));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    check_library();
    CHECK(size >= 2, "run on 2 or more ranks");
    check_status();
    check_error_classes();
    check_sentinels_and_types();
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("test_abi_mpich: OK on %d ranks\n", size);
    OK(MPI_Finalize());
    return 0;
}
