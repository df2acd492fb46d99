/*
 * The two sides of a test run by tests/mpi/dyn_pair.sh: "server" opens a
 * port and prints "PORT <name>", "client <port>" connects. dyn_pair_start
 * gives the side (job 0: server, 1: client) and the port; dyn_pair_connect
 * makes one intercommunicator (accept or connect, errors returned);
 * dyn_pair_word is word i of what rank `from` of job `job` sends rank `to`
 * at `stage`, as the receiver computes it too; dyn_pair_finish closes the
 * port and prints "<what> server|client: ok (<rounds> rounds)".
 */
#ifndef DYN_PAIR_H
#define DYN_PAIR_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "mpi_test.h"

static inline uint32_t dyn_pair_word(int job, int from, int to, int stage, size_t i)
{
    return (uint32_t)(job * 0x01000193u + from * 0x9e3779b1u + to * 0x85ebca77u + stage * 0xc2b2ae3du) ^
           (uint32_t)(i * 2654435761u);
}

static inline int dyn_pair_start(int argc, char **argv, int rank, char port[MPI_MAX_PORT_NAME])
{
    int job = argc > 1 && strcmp(argv[1], "server") == 0 ? 0 : 1;
    CHECK(job == 0 || (argc > 2 && strcmp(argv[1], "client") == 0), "usage: %s server | client <port>", argv[0]);
    port[0] = '\0';
    if (job == 0 && rank == 0) {
        MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
        printf("PORT %s\n", port);
        fflush(stdout);
    } else if (job == 1) {
        snprintf(port, MPI_MAX_PORT_NAME, "%s", argv[2]);
    }
    return job;
}

static inline void dyn_pair_connect(MPI_Comm *ic, int job, const char *port)
{
    if (job == 0)
        MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic));
    else
        MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic));
    MPI_OK(MPI_Comm_set_errhandler(*ic, MPI_ERRORS_RETURN));
}

static inline void dyn_pair_finish(int job, int rank, char *port, const char *what, int rounds)
{
    if (job == 0 && rank == 0)
        MPI_OK(MPI_Close_port(port));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("%s %s: ok (%d rounds)\n", what, job == 0 ? "server" : "client", rounds);
}

#endif
