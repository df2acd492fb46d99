/*
 * drills_reaper kill|exit: rank 0 finds the job's /dev/shm prefix (the name
 * of a segment it maps, "rdmach-<kvsname>-..."), creates
 * /dev/shm/<prefix>leftover (a file the job never unlinks, as a segment
 * that not every rank had mapped when the job died) and prints
 * "LEFTOVER <path>"; then every rank SIGKILLs itself after a barrier (kill)
 * or finalizes and exits (exit). drills_reaper.sh checks that the file goes
 * once the job has ended.
 */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, kill_all = argc > 1 && strcmp(argv[1], "kill") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        char line[512], name[300] = "", path[400];
        FILE *f = fopen("/proc/self/maps", "r");
        while (f && !name[0] && fgets(line, sizeof(line), f)) {
            char *p = strstr(line, "/dev/shm/rdmach-");
            if (p)
                snprintf(name, sizeof(name), "%s", p + strlen("/dev/shm/"));
        }
        if (f)
            fclose(f);
        char *dash = strrchr(name, '-');
        if (!dash) {
            fprintf(stderr, "drills_reaper: rank 0 maps no /dev/shm/rdmach-* segment\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        dash[1] = '\0';
        snprintf(path, sizeof(path), "/dev/shm/%sleftover", name);
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
        if (fd < 0) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        close(fd);
        printf("LEFTOVER %s\n", path);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (kill_all)
        raise(SIGKILL);
    MPI_Finalize();
    return 0;
}
