/*
 * Reads that reach the end of the file (MPI-4.1 14.4.1: a read reads the
 * data the file holds; MPI_Get_count on its status says how much, and
 * nothing else of the user's buffer is written), in every flavour: explicit
 * offset, individual and shared pointer, ordered, collective, non-blocking
 * and split collective; through a contiguous view and a strided one (each
 * rank its own 4-byte blocks of an interleaved file); into contiguous
 * memory and into every other byte (a resized MPI_BYTE); with the default
 * hints, with data sieving and collective buffering forced on, and with
 * both off. The buffer is filled with a mark first: the bytes past what the
 * file holds must keep it.
 *
 * Then the view rules of MPI-4.1 14.3 at MPI_File_set_view: a filetype
 * with a negative or a decreasing displacement, and (a file open for
 * writing) an etype or filetype with overlapping regions, are refused with
 * MPI_ERR_IO naming the argument; overlaps are accepted read-only.
 *
 * Usage: test_io_eof <dir>
 */
#include <unistd.h>
#include "../mpi/mpi_test.h"

enum { N = 37, B = 4, MARK = 0x63, M_CONTIG = 50, M_STRIDED = 30 };
static int rank, nprocs;
static char path[4096];

/* The file's bytes: byte i is file_byte(i), i < N. */
static unsigned char file_byte(long i)
{
    return (unsigned char)(i * 7 + 1);
}

/* The view: contiguous (disp 0) or strided (rank r's B bytes of each
 * nprocs * B, from disp 3 + r * B). The file offset of view data byte j. */
struct view {
    int strided;
};
static long view_offset(const struct view *v, long j)
{
    if (!v->strided)
        return j;
    return 3 + rank * B + j / B * (long)nprocs * B + j % B;
}

static void set_view(MPI_File fh, const struct view *v)
{
    if (!v->strided) {
        MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
        return;
    }
    MPI_Datatype blk, ft;
    MPI_OK(MPI_Type_contiguous(B, MPI_BYTE, &blk));
    MPI_OK(MPI_Type_create_resized(blk, 0, (MPI_Aint)nprocs * B, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    MPI_OK(MPI_File_set_view(fh, 3 + rank * B, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_Type_free(&blk));
}

enum how { AT, INDIV, SHARED, ORDERED, AT_ALL, ALL, IREAD_AT, IREAD_AT_ALL, IREAD_ALL, SPLIT, HOW_N };
static const char *how_name[HOW_N] = { "read_at", "read", "read_shared", "read_ordered", "read_at_all",
                                       "read_all", "iread_at", "iread_at_all", "iread_all", "read_at_all_begin" };

/* The view byte position this rank's read of m bytes starts at. */
static long start_of(enum how h, long m)
{
    return h == SHARED || h == ORDERED ? rank * m : 0;
}

/* Read m elements of mt (one byte each) into buf by h: the status. */
static MPI_Status do_read(MPI_File fh, enum how h, unsigned char *buf, int m, MPI_Datatype mt)
{
    MPI_Status st;
    MPI_Request rq;
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    switch (h) {
    case AT: MPI_OK(MPI_File_read_at(fh, 0, buf, m, mt, &st)); break;
    case INDIV: MPI_OK(MPI_File_read(fh, buf, m, mt, &st)); break;
    case SHARED:
        /* in rank order, so that rank r starts at r * m */
        for (int r = 0; r < nprocs; r++) {
            if (r == rank)
                MPI_OK(MPI_File_read_shared(fh, buf, m, mt, &st));
            MPI_Barrier(MPI_COMM_WORLD);
        }
        break;
    case ORDERED: MPI_OK(MPI_File_read_ordered(fh, buf, m, mt, &st)); break;
    case AT_ALL: MPI_OK(MPI_File_read_at_all(fh, 0, buf, m, mt, &st)); break;
    case ALL: MPI_OK(MPI_File_read_all(fh, buf, m, mt, &st)); break;
    case IREAD_AT: MPI_OK(MPI_File_iread_at(fh, 0, buf, m, mt, &rq)); MPI_OK(MPI_Wait(&rq, &st)); break;
    case IREAD_AT_ALL: MPI_OK(MPI_File_iread_at_all(fh, 0, buf, m, mt, &rq)); MPI_OK(MPI_Wait(&rq, &st)); break;
    case IREAD_ALL: MPI_OK(MPI_File_iread_all(fh, buf, m, mt, &rq)); MPI_OK(MPI_Wait(&rq, &st)); break;
    default:
        MPI_OK(MPI_File_read_at_all_begin(fh, 0, buf, m, mt));
        MPI_OK(MPI_File_read_at_all_end(fh, buf, &st));
        break;
    }
    return st;
}

/* One read and its check: the count is the data bytes located before the
 * end of the file, those bytes are the file's, and every other byte of the
 * buffer (past them, and the gaps of a strided memory type) keeps MARK. */
static void check_read(MPI_File fh, const struct view *v, enum how h, int mstride, const char *hints)
{
    long m = v->strided ? M_STRIDED : M_CONTIG, p0 = start_of(h, m);
    unsigned char buf[2 * M_CONTIG];
    MPI_Datatype mt = MPI_BYTE;
    if (mstride == 2) {
        MPI_OK(MPI_Type_create_resized(MPI_BYTE, 0, 2, &mt));
        MPI_OK(MPI_Type_commit(&mt));
    }
    memset(buf, MARK, sizeof(buf));
    MPI_Status st = do_read(fh, h, buf, (int)m, mt);
    long want = 0;
    while (want < m && view_offset(v, p0 + want) < N)
        want++;
    int count = -1;
    MPI_OK(MPI_Get_count(&st, mt, &count));
    CHECK(count == want, "%s (%s view, memory stride %d, hints %s): count %d, want %ld", how_name[h],
          v->strided ? "strided" : "contiguous", mstride, hints, count, want);
    for (long i = 0; i < (long)sizeof(buf); i++) {
        long j = i % mstride ? -1 : i / mstride;
        int exp = j >= 0 && j < want ? file_byte(view_offset(v, p0 + j)) : MARK;
        CHECK(buf[i] == exp, "%s (%s view, memory stride %d, hints %s): buffer byte %ld is %#x, want %#x",
              how_name[h], v->strided ? "strided" : "contiguous", mstride, hints, i, buf[i], exp);
    }
    if (mstride == 2)
        MPI_OK(MPI_Type_free(&mt));
}

static void test_read_past_end(void)
{
    snprintf(path + strlen(path), 64, "/eof_np%d.dat", nprocs);
    MPI_File fh;
    mt_open_empty(path, &fh);
    unsigned char data[N];
    for (int i = 0; i < N; i++)
        data[i] = file_byte(i);
    if (rank == 0)
        MPI_OK(MPI_File_write_at(fh, 0, data, N, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_close(&fh));
    /* default hints; sieving and two-phase forced; both off */
    const char *sets[3][2] = { { NULL, NULL }, { "enable", "enable" }, { "disable", "disable" } };
    for (int s = 0; s < 3; s++) {
        MPI_Info info = MPI_INFO_NULL;
        if (sets[s][0]) {
            MPI_OK(MPI_Info_create(&info));
            MPI_OK(MPI_Info_set(info, "romio_ds_read", sets[s][0]));
            MPI_OK(MPI_Info_set(info, "romio_cb_read", sets[s][1]));
        }
        MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
        for (int strided = 0; strided < 2; strided++) {
            struct view v = { strided };
            set_view(fh, &v);
            for (int h = 0; h < HOW_N; h++)
                for (int ms = 1; ms <= 2; ms++)
                    check_read(fh, &v, (enum how)h, ms, sets[s][0] ? sets[s][0] : "default");
        }
        MPI_OK(MPI_File_close(&fh));
        if (info != MPI_INFO_NULL)
            MPI_OK(MPI_Info_free(&info));
    }
}

/* An indexed type of two MPI_INT blocks: (len0 at disp0, len1 at disp1). */
static MPI_Datatype two_blocks(int len0, int disp0, int len1, int disp1)
{
    int len[2] = { len0, len1 }, disp[2] = { disp0, disp1 };
    MPI_Datatype t;
    MPI_OK(MPI_Type_indexed(2, len, disp, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

static void test_view_rules(void)
{
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Datatype neg = two_blocks(1, -2, 1, 2), dec = two_blocks(1, 3, 1, 0), ovl = two_blocks(3, 0, 1, 1);
    MPI_Datatype tiles;   /* 2 ints of extent 4 bytes: tile 1 overlaps tile 0 */
    MPI_OK(MPI_Type_create_resized(ovl, 0, 4, &tiles));
    MPI_OK(MPI_Type_commit(&tiles));
    /* open for writing: all of them erroneous */
    mt_expect_error(MPI_File_set_view(fh, 0, MPI_INT, neg, "native", MPI_INFO_NULL), MPI_ERR_IO, "filetype",
                    "set_view, negative displacement");
    mt_expect_error(MPI_File_set_view(fh, 0, MPI_INT, dec, "native", MPI_INFO_NULL), MPI_ERR_IO, "filetype",
                    "set_view, decreasing displacements");
    mt_expect_error(MPI_File_set_view(fh, 0, MPI_INT, ovl, "native", MPI_INFO_NULL), MPI_ERR_IO, "filetype",
                    "set_view, overlapping filetype, writable");
    mt_expect_error(MPI_File_set_view(fh, 0, ovl, ovl, "native", MPI_INFO_NULL), MPI_ERR_IO, "etype",
                    "set_view, overlapping etype, writable");
    mt_expect_error(MPI_File_set_view(fh, 0, MPI_INT, tiles, "native", MPI_INFO_NULL), MPI_ERR_IO, "filetype",
                    "set_view, overlapping tiles, writable");
    /* the view is unchanged by a refused call: still bytes */
    MPI_Offset off = -1;
    MPI_OK(MPI_File_get_byte_offset(fh, 5, &off));
    CHECK(off == 5, "after refused views the view maps 5 to %lld", (long long)off);
    MPI_OK(MPI_File_close(&fh));
    /* read-only: overlaps are allowed, the rest is not */
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    mt_expect_error(MPI_File_set_view(fh, 0, MPI_INT, neg, "native", MPI_INFO_NULL), MPI_ERR_IO, "filetype",
                    "set_view, negative displacement, read-only");
    mt_expect_error(MPI_File_set_view(fh, 0, MPI_INT, dec, "native", MPI_INFO_NULL), MPI_ERR_IO, "filetype",
                    "set_view, decreasing displacements, read-only");
    MPI_OK(MPI_File_set_view(fh, 0, ovl, ovl, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, ovl, "native", MPI_INFO_NULL));
    /* the overlapping view reads ints 0 1 2 then 1 again (the file's bytes) */
    int got[4] = { 0 }, want[4];
    unsigned char raw[16];
    for (int i = 0; i < 16; i++)
        raw[i] = file_byte(i);
    memcpy(&want[0], raw, 12);
    memcpy(&want[3], raw + 4, 4);
    MPI_OK(MPI_File_read_at(fh, 0, got, 4, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(!memcmp(got, want, sizeof(got)), "a read-only overlapping view read other bytes");
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Type_free(&neg));
    MPI_OK(MPI_Type_free(&dec));
    MPI_OK(MPI_Type_free(&ovl));
    MPI_OK(MPI_Type_free(&tiles));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    mt_rank = rank;
    CHECK(argc > 1, "usage: test_io_eof <dir>");
    snprintf(path, 2048, "%s", argv[1]);
    test_read_past_end();
    test_view_rules();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        printf("test_io_eof: reads past the end leave the buffer alone; bad views refused\n");
    }
    MPI_Finalize();
    return 0;
}
