/*
 * The optional libraries are loaded only when a job needs them
 * (src/base/dl.h): after MPI_Init and a message to and from every other
 * rank, /proc/self/maps tells which of libfabric, libibverbs, librdmacm and
 * libpmix the process has mapped.
 *   test_mpi_libs_loaded local   every peer on this node (shared memory):
 *                                none of them (linked, all four were)
 *   test_mpi_libs_loaded net     every peer on another pretend node
 *                                (RDMACH_VNODE_SIZE=1): libibverbs and
 *                                librdmacm (asked first), and libfabric if
 *                                verbs cannot run; never libpmix (rdmachrun
 *                                speaks PMI-1)
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char *const libs[] = { "libfabric.so", "libibverbs.so", "librdmacm.so", "libpmix.so" };
enum { FABRIC, VERBS, RDMACM, PMIX, NLIBS };

static void mapped(int have[NLIBS])
{
    char line[4096];
    memset(have, 0, NLIBS * sizeof(int));
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return;
    while (fgets(line, sizeof(line), f))
        for (int i = 0; i < NLIBS; i++)
            if (strstr(line, libs[i]))
                have[i] = 1;
    fclose(f);
}

int main(int argc, char **argv)
{
    int rank, size, have[NLIBS], fail = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int net = argc > 1 && strcmp(argv[1], "net") == 0;
    if (argc < 2 || (!net && strcmp(argv[1], "local") != 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: %s local|net\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int d = 1; d < size; d++) {   /* every pair talks: every channel in use is open */
        int out = rank, in = -1, to = (rank + d) % size, from = (rank - d + size) % size;
        MPI_Sendrecv(&out, 1, MPI_INT, to, 0, &in, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in != from) {
            printf("rank %d: received %d from rank %d\n", rank, in, from);
            fail = 1;
        }
    }
    mapped(have);
    if (net ? (!(have[VERBS] && have[RDMACM]) && !have[FABRIC]) || have[PMIX]
            : have[FABRIC] || have[VERBS] || have[RDMACM] || have[PMIX])
        fail = 1;
    printf("rank %d (%s): libfabric %s, libibverbs %s, librdmacm %s, libpmix %s: %s\n", rank, argv[1],
           have[FABRIC] ? "mapped" : "no", have[VERBS] ? "mapped" : "no", have[RDMACM] ? "mapped" : "no",
           have[PMIX] ? "mapped" : "no", fail ? "WRONG" : "as expected");
    int any = 0;
    MPI_Allreduce(&fail, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any;
}
