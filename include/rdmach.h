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

/* ---- native PUT/GET: user-level one-sided operations (src/device/native_rma.c) ----
 *
 * The owner registers memory and exports a key; any other rank that has the
 * key (shipped by any means: rdmach_kvs_put/get, MPI, a file) reads or writes
 * that memory with rdmach_get/rdmach_put, and polls the operation to its end
 * with rdmach_test/rdmach_wait. The owner takes no part (passive target), but
 * over a channel whose protocol runs on the host CPU (libfabric tcp) its
 * progress moves the bytes: a target that computes for long should call
 * rdmach_progress (or test/wait on its own operations) now and then.
 *
 * A key is fixed-size and self-describing: magic and version, the owner's
 * rank, the registered range and access, and the owner's remote key for
 * every channel that may reach it (shared memory and the network channel),
 * so one key serves node-local and remote peers alike. raddr is an address
 * inside [base, base + len) of the owner's registration (virtual addressing,
 * as verbs and libfabric with FI_MR_VIRT_ADDR).
 *
 * Errors: a call returns an error (-1..-9: arguments, resources) when it
 * started nothing; the operation is then untouched. Otherwise it returns OK
 * and the operation's outcome — OK, or e.g. RDMACH_ERR_PEER_DEAD with
 * rdmach_last_error() naming the peer — comes from rdmach_test/rdmach_wait.
 * Completion: once the operation is done the local buffer may be reused
 * (put) or read (get). Visibility at the target: shared memory and RDMA
 * hardware have placed a put when it is done; over libfabric tcp the bytes
 * are placed when the target's progress reads them, in order with whatever
 * the origin sends it afterwards on the same channel (so a later message or
 * put from the origin that the target sees implies the earlier put is there).
 * rdmach_kvs_fence does not progress: do not block in it while others still
 * wait for operations that target you.
 * A key whose registration was released must not be used (shared memory
 * cannot tell it from a live one). One thread at a time, as the device. */
enum {
    RDMACH_MEM_REMOTE_READ  = 1u << 0,   /* others may rdmach_get from it */
    RDMACH_MEM_REMOTE_WRITE = 1u << 1,   /* others may rdmach_put into it */
};
typedef struct rdmach_mem *rdmach_mem_t;
#define RDMACH_KEY_SIZE 256
typedef struct { uint8_t bytes[RDMACH_KEY_SIZE]; } rdmach_key_t;
/* Caller-owned storage of one operation: it must stay in place, and not be
 * reused, until test/wait has reported the operation done. */
#define RDMACH_OP_SIZE 64
typedef struct { uint64_t opaque[RDMACH_OP_SIZE / 8]; } rdmach_op_t;

/* Register [addr, addr + len) for remote access (RDMACH_MEM_REMOTE_*). */
RDMACH_API rdmach_status_t rdmach_mem_reg(void *addr, size_t len, unsigned access, rdmach_mem_t *mem);
RDMACH_API rdmach_status_t rdmach_mem_dereg(rdmach_mem_t mem);
/* The key that lets other ranks reach the registration. */
RDMACH_API rdmach_status_t rdmach_mem_key(rdmach_mem_t mem, rdmach_key_t *key);
/* Write local [laddr, laddr + len) at raddr of `rank`'s memory described by key. */
RDMACH_API rdmach_status_t rdmach_put(int rank, const void *laddr, size_t len, const rdmach_key_t *key,
                                      uint64_t raddr, rdmach_op_t *op);
/* Read len bytes at raddr of `rank`'s memory described by key into laddr. */
RDMACH_API rdmach_status_t rdmach_get(int rank, void *laddr, size_t len, const rdmach_key_t *key,
                                      uint64_t raddr, rdmach_op_t *op);
/* *done = 1 and the operation's status once it has completed, else *done = 0
 * and OK. Never blocks: an operation already done returns at once (no system
 * call); otherwise one bounded progress pass (shared memory and RDMA hardware
 * poll memory; libfabric tcp's provider polls its sockets). */
RDMACH_API rdmach_status_t rdmach_test(rdmach_op_t *op, int *done);
/* Progress until the operation is done (the device's adaptive wait); its status. */
RDMACH_API rdmach_status_t rdmach_wait(rdmach_op_t *op);
/* One bounded progress pass over every channel; the events handled. */
RDMACH_API unsigned rdmach_progress(void);

#ifdef __cplusplus
}
#endif
#endif /* RDMACH_H */
