/*
 * The _c datatype constructors and queries with values beyond INT_MAX,
 * checked against what MPI-4.1 chapter 5 defines for them:
 *   - MPI_Type_vector_c, MPI_Type_create_hvector_c, MPI_Type_indexed_c,
 *     MPI_Type_create_hindexed_c with a stride or displacement beyond 2^31
 *     (few bytes, a huge extent): size, extent, true extent, and the bytes
 *     they send from and receive into sparse buffers (MPI_Sendrecv to self);
 *   - MPI_Type_indexed_c with a block of 2^31 + 3 elements of a zero-size
 *     type, and a contiguous type of 2^31 + 1 bytes: MPI_Type_size_c,
 *     MPI_Type_size (MPI_UNDEFINED, 5.1.5), MPI_Type_get_envelope_c and
 *     MPI_Type_get_contents_c (the large count), MPI_Pack_size_c,
 *     MPI_Pack_external_size_c;
 *   - MPI_Get_count_c / MPI_Get_elements_c after MPI_Status_set_elements_c
 *     of 2^31 + 5 (and MPI_UNDEFINED from the int forms);
 *   - MPI_Type_create_subarray_c and MPI_Type_create_darray_c of a 2^16 x
 *     2^16 array (extent 2^32) build it (sizes beyond INT_MAX:
 *     test_mpi_large_arrays.c).
 */
#include <sys/mman.h>
#include "mpi_test.h"

#define BIG ((MPI_Count)1 << 31)

static int me, p;
static unsigned char *sbuf, *rbuf;

static void expect_layout(const char *what, MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent,
                          MPI_Count tlb, MPI_Count textent)
{
    MPI_Count s, l, e, tl, te;
    MPI_OK(MPI_Type_size_c(t, &s));
    MPI_OK(MPI_Type_get_extent_c(t, &l, &e));
    MPI_OK(MPI_Type_get_true_extent_c(t, &tl, &te));
    CHECK(s == size && l == lb && e == extent && tl == tlb && te == textent,
          "%s: size %lld lb %lld extent %lld true lb %lld true extent %lld, expected %lld %lld %lld %lld %lld", what,
          (long long)s, (long long)l, (long long)e, (long long)tl, (long long)te, (long long)size, (long long)lb,
          (long long)extent, (long long)tlb, (long long)textent);
}

/* n bytes at offs[] of sbuf through t, received through t into rbuf: the
 * bytes at offs[] arrive, and nothing beside them. */
static void move(const char *what, MPI_Datatype t, int n, const MPI_Aint *offs)
{
    for (int i = 0; i < n; i++)
        sbuf[offs[i]] = (unsigned char)(0x40 + i);
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Sendrecv(sbuf, 1, t, 0, 7, rbuf, 1, t, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) {
        CHECK(rbuf[offs[i]] == 0x40 + i, "%s: byte %d at %ld is %u, expected %u", what, i, (long)offs[i],
              rbuf[offs[i]], 0x40 + i);
        CHECK(rbuf[offs[i] + 1] == 0 && (offs[i] == 0 || rbuf[offs[i] - 1] == 0), "%s: wrote beside byte %d",
              what, i);
        rbuf[offs[i]] = sbuf[offs[i]] = 0;
    }
    MPI_OK(MPI_Type_free(&t));
}

static void strided(void)
{
    MPI_Datatype t;
    MPI_Aint far2[2] = { 0, BIG + 8 }, far3[3] = { 16, BIG + 64, 2 * BIG + 32 };
    /* vector(2, 1, 2^31 + 8): typemap {(byte, 0), (byte, 2^31 + 8)} */
    MPI_OK(MPI_Type_vector_c(2, 1, BIG + 8, MPI_BYTE, &t));
    expect_layout("vector_c stride 2^31 + 8", t, 2, 0, BIG + 9, 0, BIG + 9);
    move("vector_c", t, 2, far2);
    MPI_OK(MPI_Type_create_hvector_c(2, 1, BIG + 8, MPI_BYTE, &t));
    expect_layout("hvector_c stride 2^31 + 8", t, 2, 0, BIG + 9, 0, BIG + 9);
    move("hvector_c", t, 2, far2);
    /* indexed_c: displacements in extents (bytes here), one beyond an int */
    MPI_Count bl[3] = { 1, 1, 1 }, d[3] = { 16, BIG + 64, 2 * BIG + 32 };
    MPI_OK(MPI_Type_indexed_c(3, bl, d, MPI_BYTE, &t));
    expect_layout("indexed_c displacements to 2^32 + 32", t, 3, 16, 2 * BIG + 17, 16, 2 * BIG + 17);
    move("indexed_c", t, 3, far3);
    MPI_OK(MPI_Type_create_hindexed_c(3, bl, d, MPI_BYTE, &t));
    expect_layout("hindexed_c displacements to 2^32 + 32", t, 3, 16, 2 * BIG + 17, 16, 2 * BIG + 17);
    move("hindexed_c", t, 3, far3);
    /* indexed_c of MPI_INT: displacement 2^29 + 2 ints is 2^31 + 8 bytes */
    MPI_Count bli[2] = { 1, 1 }, di[2] = { 0, ((MPI_Count)1 << 29) + 2 };
    MPI_OK(MPI_Type_indexed_c(2, bli, di, MPI_INT, &t));
    expect_layout("indexed_c of MPI_INT", t, 8, 0, BIG + 12, 0, BIG + 12);
    MPI_OK(MPI_Type_free(&t));
}

/* Values that fit an int, layouts that do not: a 65536 x 65536 byte array.
 * Subarray: row 65535, columns 0 and 1 (MPI-4.1 5.1.3: extent the whole
 * array's). Darray: rank 1 of 2 in a block distribution of the rows holds
 * rows 32768.. (2^31 bytes from byte 2^31; the extent the whole array's). */
static void arrays(void)
{
    MPI_Datatype t;
    MPI_Count sizes[2] = { 65536, 65536 }, subs[2] = { 1, 2 }, starts[2] = { 65535, 0 };
    MPI_OK(MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_C, MPI_BYTE, &t));
    expect_layout("subarray_c of a 2^16 x 2^16 array", t, 2, 0, 2 * BIG, 65535 * (MPI_Count)65536, 2);
    MPI_OK(MPI_Type_free(&t));
    int distribs[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE };
    int dargs[2] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, psizes[2] = { 2, 1 }, isize;
    MPI_OK(MPI_Type_create_darray_c(2, 1, 2, sizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_BYTE, &t));
    expect_layout("darray_c rank 1 of 2 of a 2^16 x 2^16 array", t, BIG, 0, 2 * BIG, BIG, BIG);
    MPI_OK(MPI_Type_size(t, &isize));
    CHECK(isize == MPI_UNDEFINED, "MPI_Type_size of 2^31 bytes: %d, expected MPI_UNDEFINED", isize);
    MPI_OK(MPI_Type_free(&t));
}

static void big_counts(void)
{
    MPI_Datatype none, t;
    MPI_Count size, ni, na, nc, nd, big[1];
    int isize, combiner, ints[1];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &none));
    /* indexed_c with a block of 2^31 + 3 (elements of size 0) and one of 2 ints */
    MPI_Count bl[2] = { BIG + 3, 2 }, d[2] = { 0, 4 };
    MPI_OK(MPI_Type_indexed_c(2, bl, d, none, &t));
    MPI_OK(MPI_Type_size_c(t, &size));
    CHECK(size == 0, "indexed_c of a zero-size type: size %lld", (long long)size);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&none));

    MPI_OK(MPI_Type_contiguous_c(BIG + 1, MPI_BYTE, &t));
    MPI_OK(MPI_Type_commit(&t));
    expect_layout("contiguous_c 2^31 + 1", t, BIG + 1, 0, BIG + 1, 0, BIG + 1);
    MPI_OK(MPI_Type_size(t, &isize));
    CHECK(isize == MPI_UNDEFINED, "MPI_Type_size of 2^31 + 1 bytes: %d, expected MPI_UNDEFINED", isize);
    MPI_OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner));
    CHECK(combiner == MPI_COMBINER_CONTIGUOUS && ni == 0 && na == 0 && nc == 1 && nd == 1,
          "envelope_c: combiner %d ni %lld na %lld nc %lld nd %lld, expected CONTIGUOUS 0 0 1 1", combiner,
          (long long)ni, (long long)na, (long long)nc, (long long)nd);
    MPI_OK(MPI_Type_get_contents_c(t, 1, 1, 1, 1, ints, addrs, big, types));
    CHECK(big[0] == BIG + 1 && types[0] == MPI_BYTE, "contents_c: count %lld type 0x%x", (long long)big[0],
          (unsigned)types[0]);
    MPI_Count psize;
    MPI_OK(MPI_Pack_size_c(1, t, MPI_COMM_SELF, &psize));
    CHECK(psize >= BIG + 1, "Pack_size_c: %lld, expected at least 2^31 + 1", (long long)psize);
    MPI_OK(MPI_Pack_external_size_c("external32", 1, t, &psize));
    CHECK(psize == BIG + 1, "Pack_external_size_c: %lld, expected 2^31 + 1", (long long)psize);
    MPI_OK(MPI_Type_free(&t));

    MPI_Status st;
    MPI_Count c;
    int ic;
    MPI_OK(MPI_Status_set_elements_c(&st, MPI_INT, BIG + 5));
    MPI_OK(MPI_Get_count_c(&st, MPI_INT, &c));
    CHECK(c == BIG + 5, "Get_count_c: %lld, expected 2^31 + 5", (long long)c);
    MPI_OK(MPI_Get_elements_c(&st, MPI_INT, &c));
    CHECK(c == BIG + 5, "Get_elements_c: %lld, expected 2^31 + 5", (long long)c);
    MPI_OK(MPI_Get_count(&st, MPI_INT, &ic));
    CHECK(ic == MPI_UNDEFINED, "Get_count of 2^31 + 5: %d, expected MPI_UNDEFINED", ic);
}

static void refused(void)
{
    MPI_Datatype t;
    MPI_Count bl[1] = { -1 }, d[1] = { BIG };
    mt_expect_error(MPI_Type_indexed_c(1, bl, d, MPI_BYTE, &t), MPI_ERR_COUNT, "blocklength",
                 "indexed_c blocklength -1");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &p);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);   /* errors of no object (MPI-4.1 9.3) */
    const size_t len = (size_t)(2 * BIG + 4096);
    sbuf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    rbuf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(sbuf != MAP_FAILED && rbuf != MAP_FAILED, "no address space for 2 x %zu bytes", len);
    strided();
    arrays();
    big_counts();
    refused();
    munmap(sbuf, len);
    munmap(rbuf, len);
    MPI_Finalize();
    if (me == 0)
        printf("large_types: rank %d of %d ok\n", me, p);
    return 0;
}
