/*
 * rdmachrun internals: the job (one process per rank on this machine) and
 * the PMI-1 server that answers each rank over its socketpair. The wire
 * format is the library's own (src/boot/pmi_wire.h), so client and server
 * are one protocol implementation.
 */
#ifndef RDMACH_RUN_H
#define RDMACH_RUN_H

#include <stddef.h>
#include <sys/types.h>
#include "boot/pmi_wire.h"

#define RUN_NP_MAX 4096

/* One rank's process and its PMI connection. */
struct run_rank {
    int rank;
    pid_t pid;              /* 0 once reaped */
    int fd;                 /* our end of the socketpair; -1 once closed */
    int pmi_inited;         /* sent cmd=init */
    int pmi_finalized;      /* sent cmd=finalize */
    int in_barrier;         /* sent barrier_in, waits for barrier_out */
    int aborted;            /* sent cmd=abort */
    pid_t unfinalized_pid;  /* exited 0 after init without finalize: its pid (else 0) */
    int app;                /* its command (MPMD: -n a prog1 : -n b prog2): the PMI appnum */
    struct run_spawn *spawn;/* an mcmd=spawn request being read (run_pmi.c), NULL if none */
    struct rch_pmi_reader rd;
};

/* A spawn request (MPI_Comm_spawn[_multiple]): its commands, read from the
 * rank's mcmd=spawn blocks (one per command, MPICH's simple PMI form). */
#define RUN_SPAWN_CMDS_MAX 64
#define RUN_SPAWN_ARGS_MAX 65536  /* arguments of one command (the array grows as they come) */
struct run_spawn_cmd {
    int nprocs;
    char *exec, *wdir;
    int argc, cap;
    char **argv;
};
struct run_spawn {
    int total, done;        /* totspawns; blocks complete so far */
    int in_block;
    char *preput_key, *preput_val;
    struct run_spawn_cmd cmd[RUN_SPAWN_CMDS_MAX];
};

/* The KVS: committed entries are what get sees; a put is pending until the
 * next barrier completes (as in Hydra), and the last put of a key wins. */
struct run_kv {
    char *key, *value;
};
struct run_kvs {
    struct run_kv *slot;    /* open addressing, power-of-two capacity */
    size_t cap, count;
    struct run_kv *pending; /* in order of arrival */
    size_t npending, pending_cap;
};

struct run_job {
    int size;
    char kvsname[64];
    struct run_rank *ranks;
    int barrier_count;      /* ranks in the current barrier */
    struct run_kvs kvs;
    /* the first failure decides the exit code; later ones are consequences */
    int failed;
    int exit_code;
    /* the code of an abort that ended some ranks only (run_pmi.c), else 0 */
    int partial_code;
    /* MPI_UNIVERSE_SIZE as given (MPIEXEC_UNIVERSE_SIZE, -usize), else 0 */
    int universe;
};

/* Provided by rdmachrun.c: record a failure of the job (first one wins),
 * print it, and start ending the job. */
void run_fail(struct run_job *job, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Provided by rdmachrun.c: start the commands of sp, asked for by the rank
 * of process root, as a job of their own (another rdmachrun, with sp's
 * preput key in its KVS and PMI_SPAWNED=1 in its ranks' environment). 0, or
 * -1 with the reason in why. */
int run_spawn_launch(const struct run_spawn *sp, pid_t root, char *why, size_t len);
/* Tells the root (process root) waiting on port (an rdmach port name, the
 * spawn's preput) that the job it spawned ended with code (boot.h,
 * RCH_BOOT_SPAWN_EXITED); nothing unless a socket of root's listens on that
 * port (run_spawn_exit.c). */
void run_spawn_exited(const char *port, pid_t root, int code);

/* run_pmi.c */
/* preput: NULL, or KEY=VALUE put in the KVS from the start. -1 on out of memory. */
int  run_pmi_init(struct run_job *job, const char *preput);
void run_pmi_fini(struct run_job *job);
/* The rank's socket is readable (or the rank died): read what is there,
 * answer every complete request. Bounded by one buffer of input. */
void run_pmi_input(struct run_job *job, struct run_rank *r);
/* Read everything left on a dead rank's socket, answer, close it. */
void run_pmi_drain(struct run_job *job, struct run_rank *r);
/* Fail the job if ranks wait in a PMI barrier that a rank which finalized or
 * exited can never join (called at barrier_in, finalize and a rank's exit). */
void run_pmi_check_barrier(struct run_job *job);

/* KVS (exposed for its unit test) */
int  run_kvs_put(struct run_kvs *kvs, const char *key, const char *value);   /* pending */
int  run_kvs_commit(struct run_kvs *kvs);                                    /* at barrier */
const char *run_kvs_get(const struct run_kvs *kvs, const char *key);
void run_kvs_free(struct run_kvs *kvs);

/* run_io.c: the ranks' stdout and stderr through pipes when rdmachrun's are
 * regular files. setup: before any rank starts (-1 after printing why);
 * child: in a rank's process before exec; poll_add: the pipes to poll (at
 * most 2, returns how many); input: copy a bounded amount from a readable
 * one; drain: copy everything written so far; close: drain and close. */
struct pollfd;
int  run_io_setup(const char *prog);
void run_io_child(void);
int  run_io_poll_add(struct pollfd *pfd);
void run_io_input(int fd);
void run_io_drain(void);
void run_io_close(void);

/* run_args.c: MPICH/Open MPI launcher options; argv[*i] is the option, *i is
 * advanced past its values. 1 if handled, 0 if not one of them, -1 after
 * printing why it is refused or malformed. */
int run_parse_option(int argc, char **argv, int *i, const char *prog);

#endif
