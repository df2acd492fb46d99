/*
 * rdmach native API.
 *
 * The MPI layer (mpi.h) is built on the same library; this header is what a
 * program, or a tool, uses to reach rdmach directly: start-up, the job's
 * layout, the bootstrap key-value store, and the status codes every call
 * returns.
 */
#ifndef RDMACH_H
#define RDMACH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RDMACH_API __attribute__((visibility("default")))

/*
 * The one status type of the library (modelled on ucs_status_t):
 * OK is 0, "in progress" is positive and not an error, errors are negative
 * and grouped by how far the damage reaches:
 *   -1 ..  -9  the call itself (arguments, resources): nothing else is hurt
 *  -10 .. -19  the bootstrap / launcher: the job cannot start or continue
 *  -20 .. -29  one peer or one connection: operations to that peer fail
 *  -30 .. -39  a message or packet: that message fails
 * Errors from errno, verbs and libfabric are converted once, where they are
 * seen (the channel boundary), and the detail goes to rdmach_last_error().
 */
typedef enum rdmach_status {
    RDMACH_OK                  = 0,
    RDMACH_INPROGRESS          = 1,   /* not an error: completes later */
    RDMACH_AGAIN               = 2,   /* not an error: no resource now, retry after progress */

    RDMACH_ERR_INVALID_ARG     = -1,
    RDMACH_ERR_NO_MEMORY       = -2,
    RDMACH_ERR_UNSUPPORTED     = -3,
    RDMACH_ERR_NOT_FOUND       = -4,
    RDMACH_ERR_BUSY            = -5,
    RDMACH_ERR_TIMEOUT         = -6,
    RDMACH_ERR_NOT_INITIALIZED = -7,
    RDMACH_ERR_IO              = -8,  /* a system call failed; see the message */
    RDMACH_ERR_CONFIG          = -9,  /* a tunable (RDMACH_*) is malformed or out of range */

    RDMACH_ERR_BOOT            = -10, /* the process manager / PMI failed */
    RDMACH_ERR_BOOT_PROTOCOL   = -11, /* a malformed or unexpected PMI reply */
    RDMACH_ERR_ABORTED         = -12, /* the job was aborted */

    RDMACH_ERR_PEER_DEAD       = -20, /* a peer died or disconnected */
    RDMACH_ERR_CONN_REFUSED    = -21, /* a connection was refused or failed */
    RDMACH_ERR_REG_LIMIT       = -22, /* memory registration exhausted (ulimit -l) */
    RDMACH_ERR_UNREACHABLE     = -23, /* no channel reaches that peer */

    RDMACH_ERR_TRUNCATE        = -30, /* message longer than the receive buffer */
    RDMACH_ERR_PROTOCOL        = -31, /* a packet failed validation and was dropped */
    RDMACH_ERR_CANCELED        = -32, /* the operation was cancelled */

    RDMACH_ERR_OTHER           = -99
} rdmach_status_t;

/* A short fixed text for a status ("invalid argument"). Never NULL. */
RDMACH_API const char *rdmach_strerror(rdmach_status_t status);
/* The detailed message of the last error raised in this thread ("" if none):
 * names what failed and why, e.g. "RDMACH_BIND: 'cores' is not one of none|core|numa". */
RDMACH_API const char *rdmach_last_error(void);

/* ---- start-up and layout ---- */

/* Reads the tunables, bootstraps through PMI (or as a singleton), binds the
 * process, opens the channels. argc/argv may be NULL. */
RDMACH_API rdmach_status_t rdmach_init(int *argc, char ***argv);
RDMACH_API rdmach_status_t rdmach_finalize(void);
RDMACH_API int rdmach_initialized(void);

RDMACH_API int rdmach_rank(void);
RDMACH_API int rdmach_size(void);
/* Node layout (honours RDMACH_VNODE_SIZE): node id of this process and of any
 * rank, the number of nodes, this process's index among its node's ranks. */
RDMACH_API int rdmach_node(void);
RDMACH_API int rdmach_node_of(int rank);
RDMACH_API int rdmach_num_nodes(void);
RDMACH_API int rdmach_local_rank(void);
RDMACH_API int rdmach_local_size(void);
/* The core this process is bound to (-1 if not bound). */
RDMACH_API int rdmach_bound_core(void);

/* Ends the whole job with this exit code; the message is printed with the rank. */
RDMACH_API void rdmach_abort(int code, const char *msg) __attribute__((noreturn));

/* ---- bootstrap key-value store (what channels use to exchange addresses) ----
 * Keys are per rank: put() stores (my rank, key); get() reads (rank, key).
 * Values are strings of at most RDMACH_KVS_VAL_MAX-1 bytes; a value put before
 * fence() is visible to every rank after fence() returns on that rank. */
#define RDMACH_KVS_KEY_MAX 48
#define RDMACH_KVS_VAL_MAX 1024
RDMACH_API rdmach_status_t rdmach_kvs_put(const char *key, const char *value);
RDMACH_API rdmach_status_t rdmach_kvs_get(int rank, const char *key, char *value, size_t len);
RDMACH_API rdmach_status_t rdmach_kvs_fence(void);

/* ---- barriers (src/coll/barrier_*.c; added by the barrier framework) ---- */

/* The barrier backend the latest barrier of this process ran ("shm", "hier",
 * "hwsim", "ppdev", "ofi", "dissemination"; "" before the first). */
RDMACH_API const char *rdmach_barrier_backend(void);

/* The hwsim backend models a two-state AND/OR hardware barrier with the cost
 * t_b = o_w + o_p(P) + o_r. rdmach_barrier_model_measure(1) resets the sums
 * below and starts timing the barriers that run the model in this process
 * (timers slow them slightly), (0) stops. Means: o_w = write_ns / barriers,
 * o_p(P) = settle_ns / flips (the model's evaluations that flipped its state,
 * the last writer's), o_r = read_ns / barriers (the read that saw the
 * toggle), and barrier_ns / barriers the whole instrumented barrier; the
 * *_med_ns fields are the medians of the same intervals (settle: of the
 * flipping ones). */
struct rdmach_barrier_model {
    uint64_t barriers, flips;
    double write_ns, settle_ns, read_ns, barrier_ns;
    int ranks;                 /* P */
    /* medians of the same intervals (robust to a rank being descheduled) */
    double write_med_ns, settle_med_ns, read_med_ns, barrier_med_ns;
};
RDMACH_API void rdmach_barrier_model_measure(int on);
RDMACH_API void rdmach_barrier_model_get(struct rdmach_barrier_model *out);

#ifdef __cplusplus
}
#endif
#endif /* RDMACH_H */
