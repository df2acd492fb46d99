/*
 * spawn: the time of MPI_Comm_spawn of 4 processes (issue 24's target: at
 * most MPICH's in the same run). One round: MPI_Comm_spawn of 4 copies of
 * this program (argument "child"), until the intercommunicator is there at
 * the parent, then one message from every child (they are up), then
 * MPI_Comm_disconnect on both sides. The figure is the median round, the
 * minimum beside it. Run with one rank (the spawner):
 *   rdmachrun -n 1 build/bench/spawn      mpiexec.mpich -n 1 ./spawn
 *
 * Output: "# ..." header lines (library, CPU model), then
 *   "4 <median ms> <min ms> <rounds>"
 */
#include "bench_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPROCS 4

static const char *usage = "[--quick]\n  default 11 rounds (--quick: 3)";

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        int one = 1;
        MPI_Send(&one, 1, MPI_INT, 0, 0, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct bench_opts o;
    if (bench_parse(argc, argv, rank, usage, 0, &o) != 0) {
        MPI_Finalize();
        return 1;
    }
    int rounds = o.quick ? 3 : 11;
    double t[16];
    char *args[] = { "child", NULL };
    for (int r = 0; r < rounds; r++) {
        MPI_Comm ic;
        int codes[NPROCS];
        double t0 = MPI_Wtime();
        if (MPI_Comm_spawn(argv[0], args, NPROCS, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic, codes) != MPI_SUCCESS) {
            fprintf(stderr, "spawn: MPI_Comm_spawn failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int i = 0; i < NPROCS; i++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, i, 0, ic, MPI_STATUS_IGNORE);
        }
        t[r] = (MPI_Wtime() - t0) * 1e3;
        MPI_Comm_disconnect(&ic);
    }
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING], cpu[128];
        int len;
        MPI_Get_library_version(lib, &len);
        lib[strcspn(lib, "\n")] = '\0';
        bench_cpu_model(cpu, sizeof(cpu));
        double mn = t[0];
        for (int r = 1; r < rounds; r++)
            mn = t[r] < mn ? t[r] : mn;
        qsort(t, (size_t)rounds, sizeof(double), cmp_double);
        printf("# library: %s\n# cpu: %s\n# MPI_Comm_spawn of %d processes until each has sent one message\n"
               "# procs median_ms min_ms rounds\n%d %.2f %.2f %d\n", lib, cpu, NPROCS, NPROCS, t[rounds / 2], mn,
               rounds);
    }
    MPI_Finalize();
    return 0;
}
