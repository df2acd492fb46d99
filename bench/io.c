/*
 * io: an IOR-like MPI-IO bandwidth benchmark. Plain MPI C (builds with
 * rdmach's mpicc, mpicc.mpich, mpicc.openmpi).
 *
 * Every rank owns --block bytes of one shared file, written and then read
 * back with collective calls:
 *   --pattern contig   rank r's block is the bytes [r * block, (r + 1) * block)
 *                      (MPI_File_write_at_all / read_at_all, one call per
 *                      --xfer bytes);
 *   --pattern strided  the file is --xfer-byte pieces dealt round-robin to the
 *                      ranks (a vector file view), each rank writing its whole
 *                      block in one MPI_File_write_all: the case collective
 *                      buffering exists for.
 *   --nb 1             the collective calls are the non-blocking forms
 *                      (MPI_File_iwrite_at_all / iread_at_all, then MPI_Wait).
 * The write is timed from a barrier to the end of MPI_File_sync and a
 * barrier (IOR's -e: the data is on the device, not only in the page
 * cache); the read from a barrier to a barrier (data is verified after the
 * timing). Best of --reps repetitions, each on a new file.
 *
 * Every trial starts from the same state of the machine's page cache, for
 * every library alike: before it, rank 0 writes back everything dirty on the
 * machine (sync(): other processes' dirty pages, the previous trial's file
 * being deleted, are not charged to this one) and, with --drop-caches 1
 * (bench/compare's disk rows), empties the page cache (writes 3 to
 * /proc/sys/vm/drop_caches; a comment line says when that is not permitted).
 * A comment line per trial gives the time of the accesses and of the sync
 * apart, so a figure that swings shows where.
 *   --hint key=value    an MPI_Info hint for the open (repeatable)
 *
 * Output (bench/compare's convention): '#' lines are comments; then
 * "xfer write_MB/s" or "xfer read_MB/s" for --op write / read (MB = 10^6 B).
 *
 *   io --dir /dev/shm --pattern strided --xfer 1K --block 64M --op write
 */
#define _XOPEN_SOURCE 700   /* sync() */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_util.h"

static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10;
    else if (*end == 'M' || *end == 'm')
        v <<= 20;
    else if (*end == 'G' || *end == 'g')
        v <<= 30;
    return v;
}

static unsigned char pattern_byte(int rank, long i)
{
    return (unsigned char)(rank * 29 + i * 7 + (i >> 12));
}

/* The same page-cache state before every trial (see the top). */
static void settle(int rank, int drop, int *dropped)
{
    if (rank == 0) {
        sync();
        if (drop) {
            FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
            *dropped = f && fputs("3\n", f) >= 0;
            if (f && fclose(f) != 0)
                *dropped = 0;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* One collective access of n bytes at offset off, blocking or not. */
static void collective(MPI_File fh, int reading, int nb, MPI_Offset off, unsigned char *buf, long n)
{
    MPI_Request rq;
    if (!nb && reading)
        MPI_File_read_at_all(fh, off, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
    else if (!nb)
        MPI_File_write_at_all(fh, off, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
    else {
        if (reading)
            MPI_File_iread_at_all(fh, off, buf, (int)n, MPI_BYTE, &rq);
        else
            MPI_File_iwrite_at_all(fh, off, buf, (int)n, MPI_BYTE, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    const char *dir = "/dev/shm", *pattern = "contig", *op = "write";
    long block = 64L << 20, xfer = 4L << 20;
    int reps = 3, nb = 0, drop = 0, dropped = 1;
    MPI_Info info = MPI_INFO_NULL;
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
        else if (!strcmp(argv[i], "--pattern"))
            pattern = argv[i + 1];
        else if (!strcmp(argv[i], "--op"))
            op = argv[i + 1];
        else if (!strcmp(argv[i], "--block"))
            block = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--xfer"))
            xfer = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--drop-caches"))
            drop = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--hint") && strchr(argv[i + 1], '=')) {
            char kv[256];
            snprintf(kv, sizeof(kv), "%s", argv[i + 1]);
            char *eq = strchr(kv, '=');
            *eq = '\0';
            if (info == MPI_INFO_NULL)
                MPI_Info_create(&info);
            MPI_Info_set(info, kv, eq + 1);
        } else if (!strcmp(argv[i], "--nb"))
            nb = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
    }
    int strided = !strcmp(pattern, "strided"), reading = !strcmp(op, "read");
    if (reps < 1 || xfer <= 0 || block <= 0 || block % xfer || (strided && block / xfer > 0x7fffffff)) {
        if (rank == 0)
            fprintf(stderr, "io: --block must be a multiple of --xfer, --reps at least 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    int tag = 0;
    if (rank == 0)
        tag = (int)(MPI_Wtime() * 1000) % 100000;
    MPI_Bcast(&tag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof(path), "%s/bench_io_%d.dat", dir, tag);
    size_t bytes = block > 0 ? (size_t)block : 1;
    unsigned char *buf = malloc(bytes);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (long i = 0; i < block; i++)
        buf[i] = pattern_byte(rank, i);
    MPI_Datatype ft = MPI_BYTE;
    if (strided) {
        MPI_Type_vector((int)(block / xfer), (int)xfer, (int)(xfer * nprocs), MPI_BYTE, &ft);
        MPI_Type_commit(&ft);
    }
    if (rank == 0) {
        /* the first line of MPI_Get_library_version: bench/compare checks which library ran */
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int n = 0;
        MPI_Get_library_version(lib, &n);
        lib[strcspn(lib, "\n")] = '\0';
        bench_print_library_cpu(lib);
    }
    if (rank == 0)
        printf("# io: %d ranks, %s, block %ld B per rank, xfer %ld B, %s%s, dir %s, best of %d\n# size MB/s\n",
               nprocs, pattern, block, xfer, nb ? "non-blocking " : "", op, dir, reps);
    double best = 0, *all = calloc((size_t)(reps > 0 ? reps : 1), sizeof(double));
    int bad = 0;
    for (int rep = 0; rep < reps; rep++) {
        MPI_File fh;
        int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
        if (rc != MPI_SUCCESS) {
            if (rank == 0)
                fprintf(stderr, "io: cannot open %s\n", path);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
        if (strided)
            MPI_File_set_view(fh, (MPI_Offset)rank * xfer, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        if (reading) {
            /* the data to read, written untimed */
            if (strided)
                MPI_File_write_all(fh, buf, (int)block, MPI_BYTE, MPI_STATUS_IGNORE);
            else
                for (long off = 0; off < block; off += xfer)
                    MPI_File_write_at_all(fh, rank * block + off, buf + off, (int)xfer, MPI_BYTE,
                                          MPI_STATUS_IGNORE);
            MPI_File_sync(fh);
            memset(buf, 0, bytes);
        }
        settle(rank, drop, &dropped);
        double t0 = MPI_Wtime();
        if (strided)
            collective(fh, reading, nb, 0, buf, block);
        else
            for (long off = 0; off < block; off += xfer)
                collective(fh, reading, nb, rank * block + off, buf + off, xfer);
        double t1 = MPI_Wtime();
        if (!reading)
            MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime() - t0;
        if (rank == 0)
            printf("# trial %d: %.1f MB/s (accesses %.3f s, sync and barrier %.3f s)\n", rep + 1,
                   (double)block * nprocs / t / 1e6, t1 - t0, t - (t1 - t0));
        if (reading)
            for (long i = 0; i < block; i++)
                if (buf[i] != pattern_byte(rank, i)) {
                    bad = 1;
                    break;
                }
        MPI_File_close(&fh);
        if (rank == 0)
            MPI_File_delete(path, MPI_INFO_NULL);
        double mbs = (double)block * nprocs / t / 1e6;
        if (mbs > best)
            best = mbs;
        all[rep] = mbs;
    }
    int anybad = 0;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (drop && !dropped)
            printf("# the page cache could not be dropped (not permitted): only sync() before each trial\n");
        if (anybad) {
            fprintf(stderr, "io: data read back differs from what was written\n");
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
        /* the spread of the trials: a best far above the median is noise */
        for (int i = 1; i < reps; i++)
            for (int j = i; j > 0 && all[j - 1] > all[j]; j--) {
                double t = all[j];
                all[j] = all[j - 1];
                all[j - 1] = t;
            }
        printf("# trials: worst %.1f, median %.1f, best %.1f MB/s\n", all[0], all[reps / 2], best);
        printf("%ld %.1f\n", xfer, best);
    }
    if (strided)
        MPI_Type_free(&ft);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    free(buf);
    free(all);
    MPI_Finalize();
    return 0;
}
