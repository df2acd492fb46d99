/*
 * Large-count I/O (MPI-4.1 14.4, the _c forms): counts above INT_MAX move
 * all their bytes, MPI_Get_count_c reports them and MPI_Get_count is
 * MPI_UNDEFINED (MPI-4.1 4.1.11). The bytes go to /dev/null and come from
 * /dev/zero, so that no 2 GiB file is made; the user buffers are anonymous
 * mappings whose untouched pages cost no memory.
 *   - write_at_c of INT_MAX + 17 contiguous bytes;
 *   - write_c of INT_MAX + 17 items of a non-contiguous type (every other
 *     byte): the memory side is packed in pieces of at most INT_MAX items;
 *   - read_at_c of INT_MAX + 17 bytes from /dev/zero: the marked bytes on
 *     both sides of item INT_MAX are overwritten with zeros;
 *   - a registered data representation with int-count conversion
 *     functions is called in pieces: (INT_MAX items, position 0, filebuf),
 *     then (17, position INT_MAX, filebuf + INT_MAX) (MPI-4.1 14.5.3);
 *   - one element of a 2 GiB struct type, collectively, through a 2 GiB
 *     filetype (a type size above INT_MAX in the file's representation).
 *
 * Usage: test_io_large <dir> (one rank)
 */
#include <limits.h>
#include <sys/mman.h>
#include "../mpi/mpi_test.h"

static const MPI_Count big = (MPI_Count)INT_MAX + 17;

static unsigned char *map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(p != MAP_FAILED, "mmap of %zu bytes", len);
    return p;
}

static void check_count(const MPI_Status *st, MPI_Datatype dt, MPI_Count want, const char *what)
{
    MPI_Count c = -1;
    int ci = 0;
    MPI_OK(MPI_Get_count_c(st, dt, &c));
    CHECK(c == want, "%s: MPI_Get_count_c %lld, want %lld", what, (long long)c, (long long)want);
    MPI_OK(MPI_Get_count(st, dt, &ci));
    CHECK(ci == MPI_UNDEFINED, "%s: MPI_Get_count %d, want MPI_UNDEFINED", what, ci);
}

static void test_write(void)
{
    MPI_File fh;
    MPI_Status st;
    unsigned char *buf = map((size_t)big * 2);
    MPI_OK(MPI_File_open(MPI_COMM_SELF, "/dev/null", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_write_at_c(fh, 0, buf, big, MPI_BYTE, &st));
    check_count(&st, MPI_BYTE, big, "write_at_c contiguous");
    MPI_Datatype every_other;
    MPI_OK(MPI_Type_create_resized(MPI_BYTE, 0, 2, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    MPI_OK(MPI_File_write_c(fh, buf, big, every_other, &st));
    check_count(&st, every_other, big, "write_c non-contiguous");
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == big, "the individual pointer moved to %lld, want %lld", (long long)pos, (long long)big);
    MPI_OK(MPI_Type_free(&every_other));
    MPI_OK(MPI_File_close(&fh));
    munmap(buf, (size_t)big * 2);
}

static void test_read(void)
{
    MPI_File fh;
    MPI_Status st;
    unsigned char *buf = map((size_t)big);
    const MPI_Count marks[] = { 0, INT_MAX - 1, INT_MAX, INT_MAX + 1L, big - 1 };
    for (int i = 0; i < 5; i++)
        buf[marks[i]] = 0xa5;
    MPI_OK(MPI_File_open(MPI_COMM_SELF, "/dev/zero", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_read_at_c(fh, 0, buf, big, MPI_BYTE, &st));
    check_count(&st, MPI_BYTE, big, "read_at_c");
    for (int i = 0; i < 5; i++)
        CHECK(buf[marks[i]] == 0, "byte %lld not read: %#x", (long long)marks[i], buf[marks[i]]);
    MPI_OK(MPI_File_close(&fh));
    munmap(buf, (size_t)big);
}

/* A datatype of 2 GiB (a struct of INT_MAX bytes and one more: its size
 * does not fit MPI_Type_size's int) through a filetype of as many bytes:
 * one element is written collectively, blocking and non-blocking, and read
 * back from /dev/zero; MPI_Get_count_c says 1 and MPI_Get_elements_c the
 * bytes. */
static void test_big_element(void)
{
    const MPI_Count bytes = (MPI_Count)INT_MAX + 1;
    MPI_Datatype inner, one, mt, ft;
    MPI_OK(MPI_Type_contiguous(INT_MAX, MPI_BYTE, &inner));
    MPI_OK(MPI_Type_contiguous(1, MPI_BYTE, &one));
    int len[2] = { 1, 1 };
    MPI_Aint disp[2] = { 0, INT_MAX };
    MPI_Datatype types[2] = { inner, one };
    MPI_OK(MPI_Type_create_struct(2, len, disp, types, &mt));
    MPI_OK(MPI_Type_commit(&mt));
    MPI_OK(MPI_Type_contiguous_c(bytes, MPI_BYTE, &ft));
    MPI_OK(MPI_Type_commit(&ft));
    unsigned char *buf = map((size_t)bytes);
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    MPI_Count c = -1;
    MPI_OK(MPI_File_open(MPI_COMM_SELF, "/dev/null", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 2144, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_at_all(fh, 0, buf, 1, mt, &st));
    MPI_OK(MPI_Get_count_c(&st, mt, &c));
    CHECK(c == 1, "write_at_all of one 2 GiB element: count %lld", (long long)c);
    MPI_OK(MPI_File_iwrite_at_all(fh, 0, buf, 1, mt, &rq));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_Get_elements_c(&st, MPI_BYTE, &c));
    CHECK(c == bytes, "iwrite_at_all of one 2 GiB element: %lld bytes", (long long)c);
    MPI_OK(MPI_File_close(&fh));
    buf[0] = buf[INT_MAX] = 0xa5;
    MPI_OK(MPI_File_open(MPI_COMM_SELF, "/dev/zero", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 2144, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_OK(MPI_File_read_at_all(fh, 0, buf, 1, mt, &st));
    MPI_OK(MPI_Get_count_c(&st, mt, &c));
    CHECK(c == 1 && buf[0] == 0 && buf[INT_MAX] == 0, "read_at_all of one 2 GiB element: count %lld", (long long)c);
    MPI_OK(MPI_File_close(&fh));
    munmap(buf, (size_t)bytes);
    MPI_OK(MPI_Type_free(&mt));
    MPI_OK(MPI_Type_free(&ft));
    MPI_OK(MPI_Type_free(&inner));
    MPI_OK(MPI_Type_free(&one));
}

/* The conversion calls seen: count, position, filebuf offset from the first. */
static struct {
    int n;
    int count[4];
    MPI_Offset position[4];
    char *filebuf[4];
} calls;

static int record(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position, void *extra)
{
    (void)userbuf, (void)dt, (void)extra;
    if (calls.n < 4) {
        calls.count[calls.n] = count;
        calls.position[calls.n] = position;
        calls.filebuf[calls.n] = filebuf;
    }
    calls.n++;
    return MPI_SUCCESS;
}

static int native_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, extent);
}

static void test_datarep(void)
{
    MPI_File fh;
    MPI_Status st;
    unsigned char *buf = map((size_t)big);
    MPI_OK(MPI_Register_datarep("io_large_record", record, record, native_extent, NULL));
    MPI_OK(MPI_File_open(MPI_COMM_SELF, "/dev/null", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "io_large_record", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_at_c(fh, 0, buf, big, MPI_BYTE, &st));
    check_count(&st, MPI_BYTE, big, "write_at_c through a data representation");
    CHECK(calls.n == 2, "the int-count write conversion was called %d times, want 2", calls.n);
    CHECK(calls.count[0] == INT_MAX && calls.position[0] == 0, "first call: count %d position %lld",
          calls.count[0], (long long)calls.position[0]);
    CHECK(calls.count[1] == 17 && calls.position[1] == INT_MAX, "second call: count %d position %lld",
          calls.count[1], (long long)calls.position[1]);
    CHECK(calls.filebuf[1] - calls.filebuf[0] == INT_MAX, "second call's filebuf is %td bytes after the first",
          calls.filebuf[1] - calls.filebuf[0]);
    MPI_OK(MPI_File_close(&fh));
    munmap(buf, (size_t)big);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    (void)argc, (void)argv;
    test_write();
    test_read();
    test_big_element();
    test_datarep();
    if (mt_rank == 0)
        printf("test_io_large: counts of INT_MAX + 17 written, read and converted in pieces\n");
    MPI_Finalize();
    return 0;
}
