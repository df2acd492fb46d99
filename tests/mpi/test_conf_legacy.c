/*
 * The MPI-1 functions MPI-2.0 deprecated and MPI-3.0 removed, which rdmach
 * still exports for programs built against MPICH's ABI: each must behave as
 * its replacement (MPI-2.2 2.6.1, Table 2.1; MPI 4.1 Annex B.2 / 17.2 list
 * the pairs) and check its arguments as its replacement does, the error
 * message naming the function the program called and the argument.
 *   MPI_Address          -> MPI_Get_address
 *   MPI_Type_extent/lb/ub -> MPI_Type_get_extent (ub = lb + extent)
 *   MPI_Type_hvector/hindexed/struct -> MPI_Type_create_hvector/hindexed/struct
 *   MPI_Errhandler_create/set/get -> MPI_Comm_create/set/get_errhandler
 *   MPI_Keyval_create/free, MPI_Attr_put/get/delete -> MPI_Comm_*_keyval/attr
 * Every rank runs the same local checks, then one exchange through the
 * deprecated constructors' types over the communicator. Any number of ranks.
 */
#include <stdarg.h>
#include "mpi_test.h"

static int rank, size;
static int checks;

#define EXPECT(rc, cls, arg, what) (checks++, mt_expect_error((rc), (cls), (arg), (what)))
#define TRUE_(cond, ...) do { checks++; CHECK(cond, __VA_ARGS__); } while (0)

/* MPI-1.1 3.12.2: lb, ub and extent of each type equal Type_get_extent's
 * lb, lb + extent and extent. */
static void bounds_of(MPI_Datatype t, const char *name, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Aint glb, gext, e, l, u;
    MPI_OK(MPI_Type_get_extent(t, &glb, &gext));
    TRUE_(glb == lb && gext == extent, "%s: Type_get_extent %ld %ld, expected %ld %ld", name, (long)glb,
          (long)gext, (long)lb, (long)extent);
    MPI_OK(MPI_Type_extent(t, &e));
    MPI_OK(MPI_Type_lb(t, &l));
    MPI_OK(MPI_Type_ub(t, &u));
    TRUE_(e == extent, "%s: MPI_Type_extent %ld, expected %ld", name, (long)e, (long)extent);
    TRUE_(l == lb, "%s: MPI_Type_lb %ld, expected %ld", name, (long)l, (long)lb);
    TRUE_(u == lb + extent, "%s: MPI_Type_ub %ld, expected %ld", name, (long)u, (long)(lb + extent));
}

static void test_bounds(void)
{
    MPI_Datatype v, r, s;
    bounds_of(MPI_INT, "MPI_INT", 0, sizeof(int));
    bounds_of(MPI_DOUBLE, "MPI_DOUBLE", 0, sizeof(double));
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &v));              /* ints 0, 2, 4 */
    bounds_of(v, "vector(3,1,2,int)", 0, 5 * sizeof(int));
    MPI_OK(MPI_Type_create_resized(MPI_INT, -8, 32, &r));
    bounds_of(r, "resized(int,-8,32)", -8, 32);
    int bl = 1;
    MPI_Aint d = -12;
    MPI_Datatype ty = MPI_INT;
    MPI_OK(MPI_Type_create_struct(1, &bl, &d, &ty, &s));       /* one int at -12 */
    bounds_of(s, "struct{int@-12}", -12, sizeof(int));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&r));
    MPI_OK(MPI_Type_free(&s));

    MPI_Aint a;
    EXPECT(MPI_Type_extent(MPI_DATATYPE_NULL, &a), MPI_ERR_TYPE, "MPI_Type_extent", "Type_extent(NULL type)");
    EXPECT(MPI_Type_extent(MPI_INT, NULL), MPI_ERR_ARG, "extent", "Type_extent(extent NULL)");
    EXPECT(MPI_Type_lb(MPI_DATATYPE_NULL, &a), MPI_ERR_TYPE, "MPI_Type_lb", "Type_lb(NULL type)");
    EXPECT(MPI_Type_lb(MPI_INT, NULL), MPI_ERR_ARG, "displacement", "Type_lb(displacement NULL)");
    EXPECT(MPI_Type_ub(MPI_DATATYPE_NULL, &a), MPI_ERR_TYPE, "MPI_Type_ub", "Type_ub(NULL type)");
    EXPECT(MPI_Type_ub(MPI_INT, NULL), MPI_ERR_ARG, "displacement", "Type_ub(displacement NULL)");
}

/* MPI-2.2 4.1.5: MPI_Address is MPI_Get_address. */
static void test_address(void)
{
    int arr[4];
    MPI_Aint a0, a3, g3;
    MPI_OK(MPI_Address(&arr[0], &a0));
    MPI_OK(MPI_Address(&arr[3], &a3));
    MPI_OK(MPI_Get_address(&arr[3], &g3));
    TRUE_(a3 == g3, "MPI_Address %ld, MPI_Get_address %ld", (long)a3, (long)g3);
    TRUE_(MPI_Aint_diff(a3, a0) == 3 * (MPI_Aint)sizeof(int), "address difference %ld",
          (long)MPI_Aint_diff(a3, a0));
    EXPECT(MPI_Address(arr, NULL), MPI_ERR_ARG, "address", "Address(address NULL)");
}

/* The type's combiner (MPI 4.1 5.1.13: a C call of a deprecated constructor
 * reports the combiner of its replacement), size, extent, and the ints a
 * self-exchange through it picks from src. */
static void same_type(MPI_Datatype t, const char *name, int combiner, int tsize, MPI_Aint extent, int count,
                      const int *want)
{
    int ni, na, nd, comb, sz;
    MPI_Aint lb, ext;
    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    TRUE_(comb == combiner, "%s: combiner %d, expected %d", name, comb, combiner);
    MPI_OK(MPI_Type_size(t, &sz));
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    TRUE_(sz == tsize && ext == extent, "%s: size %d extent %ld, expected %d %ld", name, sz, (long)ext, tsize,
          (long)extent);
    int src[32], dst[32];
    for (int i = 0; i < 32; i++)
        src[i] = 100 + i, dst[i] = -1;
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Sendrecv(src, 1, t, 0, 7, dst, count, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    for (int i = 0; i < count; i++)
        TRUE_(dst[i] == want[i], "%s: int %d is %d, expected %d", name, i, dst[i], want[i]);
    TRUE_(dst[count] == -1, "%s: int %d written", name, count);
}

static void test_constructors(void)
{
    MPI_Datatype t;
    int bls[2] = { 2, 1 };
    MPI_Aint disps[2] = { 4 * sizeof(int), 1 * sizeof(int) };
    MPI_Datatype types[2] = { MPI_INT, MPI_INT };

    MPI_OK(MPI_Type_hvector(3, 2, 5 * sizeof(int), MPI_INT, &t));   /* ints 0,1 5,6 10,11 */
    same_type(t, "Type_hvector", MPI_COMBINER_HVECTOR, 6 * sizeof(int), 12 * sizeof(int), 6,
              (const int[]){ 100, 101, 105, 106, 110, 111 });
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_hindexed(2, bls, disps, MPI_INT, &t));           /* ints 4,5 then 1 */
    same_type(t, "Type_hindexed", MPI_COMBINER_HINDEXED, 3 * sizeof(int), 5 * sizeof(int), 3,
              (const int[]){ 104, 105, 101 });
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_struct(2, bls, disps, types, &t));
    same_type(t, "Type_struct", MPI_COMBINER_STRUCT, 3 * sizeof(int), 5 * sizeof(int), 3,
              (const int[]){ 104, 105, 101 });
    MPI_OK(MPI_Type_free(&t));

    /* MPI 4.1 5.1.2: a negative count or block length is MPI_ERR_COUNT (as
     * for the replacements); MPI_DATATYPE_NULL as a component MPI_ERR_TYPE;
     * a NULL out-handle MPI_ERR_ARG. */
    EXPECT(MPI_Type_hvector(-1, 1, 8, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_hvector", "hvector count -1");
    EXPECT(MPI_Type_hvector(1, 1, 8, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE, "MPI_Type_hvector",
           "hvector of MPI_DATATYPE_NULL");
    EXPECT(MPI_Type_hvector(1, 1, 8, MPI_INT, NULL), MPI_ERR_ARG, "newtype", "hvector newtype NULL");
    EXPECT(MPI_Type_hindexed(-1, bls, disps, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_hindexed",
           "hindexed count -1");
    bls[1] = -1;
    EXPECT(MPI_Type_hindexed(2, bls, disps, MPI_INT, &t), MPI_ERR_COUNT, "MPI_Type_hindexed",
           "hindexed block length -1");
    EXPECT(MPI_Type_struct(2, bls, disps, types, &t), MPI_ERR_COUNT, "MPI_Type_struct", "struct block length -1");
    bls[1] = 1;
    types[1] = MPI_DATATYPE_NULL;
    EXPECT(MPI_Type_struct(2, bls, disps, types, &t), MPI_ERR_TYPE, "MPI_Type_struct",
           "struct with MPI_DATATYPE_NULL");
    EXPECT(MPI_Type_struct(-2, bls, disps, types, &t), MPI_ERR_COUNT, "MPI_Type_struct", "struct count -2");
}

/* MPI-1.1 7.2: the handler gets the communicator and the error code. */
static int eh_calls;
static MPI_Comm eh_comm;
static int eh_code;

static void legacy_handler(MPI_Comm *comm, int *code, ...)
{
    eh_calls++;
    eh_comm = *comm;
    eh_code = *code;
}

static void test_errhandlers(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Errhandler_create(legacy_handler, &eh));
    MPI_OK(MPI_Errhandler_set(c, eh));
    MPI_OK(MPI_Errhandler_get(c, &got));
    TRUE_(got == eh, "MPI_Errhandler_get returned 0x%x, set 0x%x", (unsigned)got, (unsigned)eh);
    MPI_OK(MPI_Errhandler_free(&got));
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size + 3, 0, c);           /* no such rank */
    TRUE_(mt_class(rc) == MPI_ERR_RANK, "Send to rank %d: class %d", size + 3, mt_class(rc));
    TRUE_(eh_calls == 1 && eh_comm == c && eh_code == rc,
          "handler calls %d comm 0x%x (expected 0x%x) code %d (returned %d)", eh_calls, (unsigned)eh_comm,
          (unsigned)c, eh_code, rc);
    /* MPI 4.1 9.3: the handler is inherited by a duplicate. */
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(c, &d));
    MPI_OK(MPI_Errhandler_get(d, &got));
    TRUE_(got == eh, "the duplicate's handler 0x%x, expected 0x%x", (unsigned)got, (unsigned)eh);
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Errhandler_free(&eh));
    TRUE_(eh == MPI_ERRHANDLER_NULL, "Errhandler_free left 0x%x", (unsigned)eh);
    /* Freed: still attached to c and d (MPI 4.1 9.3.4). */
    rc = MPI_Send(&x, 1, MPI_INT, -7, 0, d);
    TRUE_(eh_calls == 2 && eh_comm == d && mt_class(eh_code) == MPI_ERR_RANK,
          "after free: handler calls %d comm 0x%x code class %d", eh_calls, (unsigned)eh_comm, mt_class(eh_code));
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&c));

    EXPECT(MPI_Errhandler_set(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM, "MPI_Errhandler_set",
           "Errhandler_set(MPI_COMM_NULL)");
    EXPECT(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG, "MPI_Errhandler_set",
           "Errhandler_set(MPI_ERRHANDLER_NULL)");
    EXPECT(MPI_Errhandler_get(MPI_COMM_NULL, &got), MPI_ERR_COMM, "MPI_Errhandler_get",
           "Errhandler_get(MPI_COMM_NULL)");
    EXPECT(MPI_Errhandler_get(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Errhandler_get",
           "Errhandler_get(errhandler NULL)");
    EXPECT(MPI_Errhandler_create(legacy_handler, NULL), MPI_ERR_ARG, "MPI_Errhandler_create",
           "Errhandler_create(errhandler NULL)");
    EXPECT(MPI_Errhandler_create(NULL, &got), MPI_ERR_ARG, "MPI_Errhandler_create",
           "Errhandler_create(function NULL)");
}

/* MPI-1.1 5.7: Keyval_create/Attr_put/get/delete/Keyval_free; the delete
 * function runs on Attr_delete and on Comm_free. */
static int deleted;

static int legacy_delete(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)kv, (void)extra;
    deleted += (int)(intptr_t)val;
    return MPI_SUCCESS;
}

static void test_attrs(void)
{
    int kv, flag;
    void *v;
    MPI_Comm c;
    MPI_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, legacy_delete, &kv, NULL));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Attr_put(c, kv, (void *)(intptr_t)5));
    MPI_OK(MPI_Attr_get(c, kv, &v, &flag));
    TRUE_(flag && v == (void *)(intptr_t)5, "Attr_get flag %d value %p", flag, v);
    MPI_OK(MPI_Attr_delete(c, kv));
    TRUE_(deleted == 5, "Attr_delete ran the delete function %d", deleted);
    MPI_OK(MPI_Attr_get(c, kv, &v, &flag));
    TRUE_(!flag, "Attr_get after Attr_delete: flag set");
    MPI_OK(MPI_Attr_put(c, kv, (void *)(intptr_t)7));
    MPI_OK(MPI_Comm_free(&c));
    TRUE_(deleted == 12, "Comm_free ran the delete function: %d", deleted);
    MPI_OK(MPI_Keyval_free(&kv));
    TRUE_(kv == MPI_KEYVAL_INVALID, "Keyval_free left %d", kv);
    EXPECT(MPI_Attr_put(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL), MPI_ERR_KEYVAL, "MPI_Attr_put",
           "Attr_put(MPI_KEYVAL_INVALID)");
    EXPECT(MPI_Attr_delete(MPI_COMM_NULL, MPI_TAG_UB), MPI_ERR_COMM, "MPI_Attr_delete",
           "Attr_delete(MPI_COMM_NULL)");
    /* MPI 4.1 7.7.2: predefined attributes cannot be changed or deleted. */
    int rc = MPI_Attr_delete(MPI_COMM_WORLD, MPI_TAG_UB);
    TRUE_(rc != MPI_SUCCESS, "Attr_delete(MPI_TAG_UB) succeeded");
    EXPECT(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, NULL, NULL), MPI_ERR_ARG, "MPI_Keyval_create",
           "Keyval_create(keyval NULL)");
}

/* The deprecated constructors' types carry data between ranks too: rank r
 * sends the hindexed pick of its array to r+1, which receives it into a
 * struct-typed buffer. */
static void test_exchange(void)
{
    int bls[2] = { 2, 1 };
    MPI_Aint disps[2] = { 4 * sizeof(int), 1 * sizeof(int) };
    MPI_Datatype types[2] = { MPI_INT, MPI_INT }, hi, st;
    MPI_OK(MPI_Type_hindexed(2, bls, disps, MPI_INT, &hi));
    MPI_OK(MPI_Type_struct(2, bls, disps, types, &st));
    MPI_OK(MPI_Type_commit(&hi));
    MPI_OK(MPI_Type_commit(&st));
    int src[8], dst[8];
    for (int i = 0; i < 8; i++)
        src[i] = rank * 10 + i, dst[i] = -1;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_OK(MPI_Sendrecv(src, 1, hi, to, 3, dst, 1, st, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    const int want[8] = { -1, from * 10 + 1, -1, -1, from * 10 + 4, from * 10 + 5, -1, -1 };
    for (int i = 0; i < 8; i++)
        TRUE_(dst[i] == want[i], "exchange: int %d is %d, expected %d", i, dst[i], want[i]);
    MPI_OK(MPI_Type_free(&hi));
    MPI_OK(MPI_Type_free(&st));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &rank, &size);
    test_bounds();
    test_address();
    test_constructors();
    test_errhandlers();
    test_attrs();
    test_exchange();
    int total;
    MPI_OK(MPI_Reduce(&checks, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Finalize());
    if (rank == 0)
        printf("test_conf_legacy: OK (%d checks on rank 0, %d in all)\n", checks, total);
    return 0;
}
