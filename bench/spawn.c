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

/* The last line of an MPI error string (MPICH's stack ends with the cause). */
static const char *last_line(int rc, char *s)
{
    int len;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        return "(no error string)";
    s[len] = '\0';
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == ' '))
        s[--len] = '\0';
    char *nl = strrchr(s, '\n');
    return nl ? nl + 1 : s;
}

/* Say why on stderr (bench/compare shows it in the library's cell): the
 * spawn's error and, as a spawn opens a port first, MPI_Open_port's (Debian's
 * MPICH 4.0.2 reports only "Error in spawn call"; its port's error names
 * the cause). */
static void spawn_failed(int rc)
{
    char s[MPI_MAX_ERROR_STRING + 1], s2[MPI_MAX_ERROR_STRING + 1], port[MPI_MAX_PORT_NAME];
    fprintf(stderr, "spawn: MPI_Comm_spawn failed: %s\n", last_line(rc, s));
    int prc = MPI_Open_port(MPI_INFO_NULL, port);
    if (prc != MPI_SUCCESS)
        fprintf(stderr, "spawn: the port a spawn opens: MPI_Open_port failed: %s\n", last_line(prc, s2));
    else
        MPI_Close_port(port);
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
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rounds = o.quick ? 3 : 11;
    double t[16];
    char *args[] = { "child", NULL };
    for (int r = 0; r < rounds; r++) {
        MPI_Comm ic;
        int codes[NPROCS];
        double t0 = MPI_Wtime();
        int rc = MPI_Comm_spawn(argv[0], args, NPROCS, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic, codes);
        if (rc != MPI_SUCCESS) {
            spawn_failed(rc);
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
