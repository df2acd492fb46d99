/*
 * test_mpi_shm_full [fail]: /dev/shm fills up during a run (rank 0 takes
 * every byte left once the channel's segments exist), then the two ranks
 * exchange 4 MiB with MPI_Sendrecv: a rendezvous whose pipe buffers find
 * no room. Run in a small private /dev/shm (in_small_shm.sh).
 *   (default)  single copy is permitted: the exchange succeeds, the data
 *              is rank r's pattern (checked byte by byte);
 *   fail       (RDMACH_CMA=off): both ranks get MPI_ERR_NO_MEM with a message
 *              naming the cause ("/dev/shm" ... "full"), no hang.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi_test.h"

#define N (4u << 20)

/* Take what /dev/shm has left; returns the bytes taken. */
static size_t fill_dev_shm(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
    size_t got = 0;
    for (size_t step = 1u << 20; step >= 4096; step /= 2)
        while (posix_fallocate(fd, (off_t)got, (off_t)step) == 0)
            got += step;
    close(fd);
    return got;
}

int main(int argc, char **argv)
{
    int want_fail = argc > 1 && strcmp(argv[1], "fail") == 0;
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks, has %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *out = malloc(N), *in = malloc(N);
    CHECK(out && in, "no memory");
    for (size_t i = 0; i < N; i++)
        out[i] = (unsigned char)(i * 7 + (size_t)mt_rank * 131);
    memset(in, 0, N);

    char path[64];
    snprintf(path, sizeof(path), "/dev/shm/test_mpi_shm_full.%d", (int)getpid());
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));   /* every segment of the job exists */
    if (mt_rank == 0) {
        size_t got = fill_dev_shm(path);
        printf("test_mpi_shm_full: filled /dev/shm with %zu bytes\n", got);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    int peer = 1 - mt_rank;
    int rc = MPI_Sendrecv(out, (int)N, MPI_BYTE, peer, 5, in, (int)N, MPI_BYTE, peer, 5, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE);
    if (mt_rank == 0)
        unlink(path);
    if (want_fail) {
        int cls = -1, len = 0;
        char text[MPI_MAX_ERROR_STRING] = "";
        if (rc != MPI_SUCCESS) {
            MPI_Error_class(rc, &cls);
            MPI_Error_string(rc, text, &len);
        }
        printf("test_mpi_shm_full: rank %d: error class %d: %s\n", mt_rank, cls, text);
        CHECK(rc != MPI_SUCCESS, "the exchange succeeded without room for the pipe and without single copy");
        CHECK(cls == MPI_ERR_NO_MEM, "error class %d, expected MPI_ERR_NO_MEM (%d)", cls, MPI_ERR_NO_MEM);
        CHECK(strstr(text, "/dev/shm") && strstr(text, "full"), "the message does not name the cause: %s", text);
    } else {
        MPI_OK(rc);
        for (size_t i = 0; i < N; i++)
            CHECK(in[i] == (unsigned char)(i * 7 + (size_t)peer * 131), "byte %zu is %u, expected %u", i, in[i],
                  (unsigned char)(i * 7 + (size_t)peer * 131));
        printf("test_mpi_shm_full: rank %d: 4 MiB exchanged and checked with /dev/shm full\n", mt_rank);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
