/*
 * external32 (MPI-4.1 14.5.2): for each predefined type whose external32
 * size is its native size (the others: test_io_filerep), three values are written through a view in
 * "external32" (etype = filetype = the type) at the rank's own offset, the
 * file's bytes are read with POSIX and compared with the standard's
 * encoding (big-endian two's complement and IEEE 754; a pair or complex
 * type: each component so), and the values are read back through the view.
 * The expected bytes are the native ones with each component's bytes
 * reversed, which is the encoding on a little-endian IEEE host (checked).
 * MPI_LONG_DOUBLE is 128-bit IEEE 754 in external32 whatever the native
 * format: its bytes are checked against encodings worked out by hand.
 *
 * Usage: test_io_ext32 <dir>
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <wchar.h>
#include "../mpi/mpi_test.h"

struct ty {
    MPI_Datatype t;
    const char *name;
    int comp;   /* bytes of one component (the unit reversed) */
};
#define TY(t, c) { t, #t, c }

static void test_type(const char *path, const struct ty *ty, int rank)
{
    int size = 0;
    MPI_OK(MPI_Type_size(ty->t, &size));
    unsigned char v[3 * 64], back[3 * 64], want[3 * 64], got[3 * 64];
    CHECK(size > 0 && size <= 64, "%s: size %d", ty->name, size);
    /* values: distinct bytes per rank and element; a bool is 0 or 1 */
    for (int i = 0; i < 3 * size; i++)
        v[i] = ty->t == MPI_C_BOOL ? (unsigned char)((i + rank) & 1) : (unsigned char)(0x11 * (i % 15 + 1) + rank);
    if (ty->t == MPI_FLOAT || ty->t == MPI_DOUBLE || ty->t == MPI_C_FLOAT_COMPLEX || ty->t == MPI_C_DOUBLE_COMPLEX) {
        /* finite numbers, so that no NaN payload question arises */
        for (int i = 0; i < 3 * size / ty->comp; i++) {
            if (ty->comp == 4) {
                float x = 1.5f + (float)i * 0.25f + (float)rank;
                memcpy(v + 4 * i, &x, 4);
            } else {
                double x = -2.75 + (double)i * 1024.125 + rank;
                memcpy(v + 8 * i, &x, 8);
            }
        }
    }
    for (int i = 0; i < 3 * size; i += ty->comp)
        for (int b = 0; b < ty->comp; b++)
            want[i + b] = v[i + ty->comp - 1 - b];
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 0, ty->t, ty->t, "external32", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_at_all(fh, 3 * rank, v, 3, ty->t, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open %s", path);
    CHECK(pread(fd, got, (size_t)(3 * size), (off_t)(3 * size * rank)) == 3 * size, "%s: short file", ty->name);
    close(fd);
    for (int i = 0; i < 3 * size; i++)
        CHECK(got[i] == want[i], "%s: file byte %d is %02x, external32 says %02x", ty->name, i, got[i], want[i]);
    memset(back, 0, sizeof(back));
    MPI_Status st;
    MPI_OK(MPI_File_read_at_all(fh, 3 * rank, back, 3, ty->t, &st));
    int n = 0;
    MPI_OK(MPI_Get_count(&st, ty->t, &n));
    CHECK(n == 3, "%s: read %d items", ty->name, n);
    CHECK(!memcmp(back, v, (size_t)(3 * size)), "%s: the values read back differ", ty->name);
    MPI_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* 1.0, -2.5 and 0.375 as binary128: sign, 15-bit exponent (bias 16383),
 * then the fraction's first bits (1.25: .01, 1.5: .1). */
static void test_long_double(const char *path, int rank)
{
    const long double v[3] = { 1.0L, -2.5L, 0.375L };
    const unsigned char head[3][3] = { { 0x3f, 0xff, 0x00 }, { 0xc0, 0x00, 0x40 }, { 0x3f, 0xfd, 0x80 } };
    unsigned char got[48];
    long double back[3] = { 0, 0, 0 };
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_LONG_DOUBLE, MPI_LONG_DOUBLE, "external32", MPI_INFO_NULL));
    MPI_OK(MPI_File_write_at_all(fh, 3 * rank, v, 3, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open %s", path);
    CHECK(pread(fd, got, 48, (off_t)(48 * rank)) == 48, "MPI_LONG_DOUBLE: short file");
    close(fd);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 16; i++) {
            unsigned char w = i < 3 ? head[k][i] : 0;
            CHECK(got[16 * k + i] == w, "MPI_LONG_DOUBLE %Lg: file byte %d is %02x, binary128 says %02x", v[k], i,
                  got[16 * k + i], w);
        }
    MPI_OK(MPI_File_read_at_all(fh, 3 * rank, back, 3, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE));
    for (int k = 0; k < 3; k++)
        CHECK(back[k] == v[k], "MPI_LONG_DOUBLE: read back %Lg, wrote %Lg", back[k], v[k]);
    MPI_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mt_rank = rank;
    CHECK(argc > 1, "usage: test_io_ext32 <dir>");
    const uint32_t one = 1;
    const float f = 1.0f;
    uint32_t fbits;
    memcpy(&fbits, &f, 4);
    CHECK(*(const unsigned char *)&one == 1 && fbits == 0x3f800000u,
          "this test computes the encoding for a little-endian IEEE host");
    char path[4096];
    snprintf(path, sizeof(path), "%s/ext32.dat", argv[1]);
    const struct ty types[] = {
        TY(MPI_CHAR, 1), TY(MPI_SIGNED_CHAR, 1), TY(MPI_UNSIGNED_CHAR, 1), TY(MPI_BYTE, 1),
        TY(MPI_SHORT, 2), TY(MPI_UNSIGNED_SHORT, 2), TY(MPI_INT, 4), TY(MPI_UNSIGNED, 4),
        TY(MPI_LONG_LONG, 8), TY(MPI_UNSIGNED_LONG_LONG, 8), TY(MPI_FLOAT, 4), TY(MPI_DOUBLE, 8),
        TY(MPI_C_BOOL, 1), TY(MPI_INT8_T, 1), TY(MPI_INT16_T, 2),
        TY(MPI_INT32_T, 4), TY(MPI_INT64_T, 8), TY(MPI_UINT8_T, 1), TY(MPI_UINT16_T, 2),
        TY(MPI_UINT32_T, 4), TY(MPI_UINT64_T, 8), TY(MPI_AINT, 8), TY(MPI_OFFSET, 8), TY(MPI_COUNT, 8),
        TY(MPI_C_FLOAT_COMPLEX, 4), TY(MPI_C_DOUBLE_COMPLEX, 8), TY(MPI_2INT, 4),
    };
    int ntypes = (int)(sizeof(types) / sizeof(types[0]));
    for (int i = 0; i < ntypes; i++)
        test_type(path, &types[i], rank);
    test_long_double(path, rank);
    if (rank == 0) {
        unlink(path);
        printf("test_io_ext32: %d predefined types big-endian in the file and read back\n", ntypes + 1);
    }
    MPI_Finalize();
    return 0;
}
