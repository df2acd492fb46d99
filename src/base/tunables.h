/*
 * The one table of tunables. Every knob of every layer is a row here:
 * {name, type, where it is stored, default, range or choices, help}; its value
 * comes from the environment variable RDMACH_<name>. rch_base_tun_load() reads
 * them all at init; a malformed or out-of-range value is an error naming the
 * variable and what it accepts. rdmach-info prints every row with its value.
 *
 * Layers read the parsed values from the global `rch_tun` (plain fields, no
 * lookups on any hot path).
 */
#ifndef RCH_BASE_TUNABLES_H
#define RCH_BASE_TUNABLES_H

#include <stddef.h>
#include "rdmach.h"

enum rch_tun_type { RCH_TUN_INT, RCH_TUN_SIZE, RCH_TUN_ENUM, RCH_TUN_BOOL, RCH_TUN_STRING };

/* Choices of the enum tunables, in the order of their `choices` strings. */
enum { RCH_BIND_NONE, RCH_BIND_CORE, RCH_BIND_NUMA };
enum { RCH_PMI_USE_AUTO, RCH_PMI_USE_PMIX, RCH_PMI_USE_PMI2, RCH_PMI_USE_PMI1, RCH_PMI_USE_SINGLETON };
enum { RCH_CMA_AUTO, RCH_CMA_ON, RCH_CMA_OFF };
enum { RCH_SHM_WAKE_AUTO, RCH_SHM_WAKE_MEMBARRIER, RCH_SHM_WAKE_FENCE };
enum { RCH_SHM_GET_AUTO, RCH_SHM_GET_PIPE, RCH_SHM_GET_CMA };
enum { RCH_RNDV_AUTO, RCH_RNDV_PUT, RCH_RNDV_GET };
enum { RCH_RNDV_FIN_AUTO, RCH_RNDV_FIN_AFTER };
enum { RCH_NET_AUTO, RCH_NET_VERBS, RCH_NET_OFI };
enum { RCH_CONNECT_LAZY, RCH_CONNECT_EAGER };
enum { RCH_NIC_AUTO, RCH_NIC_ONLOAD, RCH_NIC_OFFLOAD };
enum { RCH_NOTIFY_AUTO, RCH_NOTIFY_POLL, RCH_NOTIFY_DATA, RCH_NOTIFY_SEND };
enum { RCH_ZCOPY_AUTO, RCH_ZCOPY_ON, RCH_ZCOPY_OFF };
enum { RCH_BARRIER_AUTO, RCH_BARRIER_DISSEMINATION, RCH_BARRIER_SHM, RCH_BARRIER_HIER,
       RCH_BARRIER_HWSIM, RCH_BARRIER_PPDEV, RCH_BARRIER_OFI };
enum { RCH_RMA_PATH_AUTO, RCH_RMA_PATH_RDMA, RCH_RMA_PATH_AM };
enum { RCH_SIGUSR1_AUTO, RCH_SIGUSR1_ON, RCH_SIGUSR1_OFF };
enum { RCH_HEARTBEAT_AUTO, RCH_HEARTBEAT_ALL, RCH_HEARTBEAT_OFF };
enum { RCH_MEM_MONITOR_AUTO, RCH_MEM_MONITOR_RELOC, RCH_MEM_MONITOR_OFF };

struct rch_tunables {
    int    log;              /* enum rch_log_level */
    int    log_interval;     /* seconds between lines of a rate-limited message */
    int    bind;             /* RCH_BIND_* */
    int    pmi;              /* RCH_PMI_USE_*: the bootstrap protocol (src/boot/pmi_select.c) */
    int    vnode_size;       /* 0: real nodes */
    int    shm;              /* bool: use shared memory within a node */
    size_t shm_ring_size;    /* bytes of each per-pair eager ring (at least) */
    size_t shm_ring_budget;  /* bytes of rings per receiving rank, split among the node's ranks */
    size_t shm_eager_max;    /* largest message sent through the ring */
    int    cma;              /* RCH_CMA_*: single-copy through process_vm_readv/writev */
    int    cma_refuse_write; /* bool, tests: process_vm_writev refused (EPERM) */
    int    shm_pipe_full;    /* bool, tests: no room in /dev/shm for a source's pipe buffers */
    size_t shm_pipe_chunk;   /* chunk of the two-copy pipeline (no CMA) */
    int    shm_wake;         /* RCH_SHM_WAKE_*: how senders and sleepers agree (shm) */
    size_t shm_cma_split;    /* single copies from this size are shared with the peer (0: never) */
    size_t shm_cma_from;     /* rendezvous gets of at least this size by single copy, not the pipeline */
    size_t shm_nt_from;      /* pipeline copies of messages of at least this size use streaming stores (0: never) */
    int    shm_get;          /* RCH_SHM_GET_*: how a shared-memory get moves its data */
    size_t rndv_threshold;   /* 0: use the channel's eager maximum */
    int    rndv_mode;        /* RCH_RNDV_* */
    int    rndv_fin;         /* RCH_RNDV_FIN_*: FIN right behind a PUT's data, or after its completion */
    int    eager_credits;    /* eager packets in flight per peer (CRDT) */
    int    spin_count;       /* empty progress polls before yielding */
    int    spin_count_oversub; /* the same when the node has more ranks than cores */
    int    spin_count_oversub_peer; /* ... while the rank waited for runs on another core */
    int    yield_count;      /* yields before blocking on the channel's wait primitive */
    int    yield_count_oversub; /* the same when the node has more ranks than cores */
    int    yield_long_us;    /* a yield away this long looks for other work on the host (0: never) */
    int    wake_slice_us;    /* scheduler slice asked for while other work competes (0: never) */
    int    peer_stop_timeout; /* ms a local peer may stay stopped before it counts as failed (0: never) */
    int    sigusr1;          /* RCH_SIGUSR1_*: the launcher's "a process failed" signal (base/proc.c) */
    int    shm_reaper;       /* bool: a per-host process removes the job's /dev/shm files once its registered ranks end */
    int    shm_reaper_idle_ms; /* a reaper nobody has registered with leaves after this */
    int    shm_reaper_die;   /* bool, for tests: the rank that starts the reaper _exits before registering */
    int    heartbeat;        /* RCH_HEARTBEAT_*: which peers a helper thread's datagrams watch (device/heartbeat.c) */
    int    heartbeat_interval; /* ms between two heartbeats to a peer */
    int    heartbeat_timeout;  /* ms of silence after which a watched peer counts as failed */
    /* collectives (src/coll): the forced algorithm of each ("" or "auto": the tuning
     * table), the network profile, a measured tuning file, a layout for the
     * node-aware algorithms only */
    char   coll_bcast[64], coll_reduce[64], coll_allreduce[64], coll_gather[64],
           coll_gatherv[64], coll_scatter[64], coll_scatterv[64], coll_allgather[64],
           coll_allgatherv[64], coll_alltoall[64], coll_alltoallv[64],
           coll_reduce_scatter[64], coll_scan[64], coll_exscan[64];
    int    nic_profile;      /* RCH_NIC_* */
    char   tuning_file[1024];
    int    coll_vnode_size;  /* 0: the job's layout */
    size_t inter_rs_chunk;   /* tests: intercomm reduce_scatter chunk and threshold (0: 2^26, INT_MAX) */
    int    coll_seg_after;   /* calls by messages before a communicator sets up shared segments */
    size_t coll_scratch_keep;   /* bytes of large collective scratch buffers kept between calls */
    size_t dtype_prefetch;   /* bytes ahead that moves over blocks apart prefetch (0: never) */
    size_t dtype_prefetch_from;   /* ... when they span at least this many bytes */
    int    dtype_simd;       /* AVX-512 scatters (and gathers) of datatype moves (copy.c) */
    int    net;              /* RCH_NET_* */
    char   ofi_provider[64];
    int    connect;          /* RCH_CONNECT_* */
    size_t net_slot_size;    /* bytes of one slot of the network fast-path ring */
    int    net_slots;        /* slots per ring (per peer and direction), a power of two */
    int    net_zcopy;        /* RCH_ZCOPY_*: large eager packets written from the user's buffer */
    size_t net_zcopy_min;    /* smallest eager payload sent that way */
    int    net_notify;       /* RCH_NOTIFY_*: how slot arrival is detected */
    size_t net_rma_chunk;    /* largest single RDMA write/read of a put/get */
    int    net_rails;        /* connections per peer for rendezvous data (0: the provider's choice) */
    size_t net_rail_min;     /* smallest put/get striped over the rails */
    int    net_reg_cache;    /* bool: keep rendezvous registrations cached */
    int    net_reg_cache_entries;
    size_t net_reg_cache_size;
    int    net_mem_monitor;  /* RCH_MEM_MONITOR_*: how the registration cache hears of freed memory */
    int    net_connect_timeout;  /* seconds to establish a connection */
    int    net_handshake_timeout_ms; /* a silent accepted connection is reset after this */
    int    net_pending_max;  /* silent accepted connections a listener holds */
    int    net_fd_reserve;   /* descriptors held back for the channel's own connections */
    int    abi_check;        /* bool: MPI_Init checks that every MPI symbol the program uses exists */
    int    barrier;          /* RCH_BARRIER_*: forced barrier backend (src/coll/barrier_*.c) */
    char   nameserv_dir[1024]; /* MPI_Publish_name's directory ("": /tmp/rdmach-names-<uid>; mpi/dyn_names.c) */
    int    dyn_timeout_ms;    /* a dynamic-processes step waits this long for another process (mpi/dyn.h) */
    int    dyn_net;           /* processes of other jobs over the network channel when both have it */
    int    dyn_max;           /* processes of other jobs connected at once (device/dyn.c) */
    char   ppdev[256];       /* parallel port of the ppdev barrier backend ("": none) */
    int    barrier_yield;    /* sched_yield calls before a barrier waiter sleeps on its futex */
    int    barrier_remote_spin; /* polls while only ranks of other cores are missing (oversubscribed) */
    int    rma_rmw_die;      /* tests: world rank this - 1 dies inside a single-copy rmw (0: none) */
    int    rma_getw_fill;    /* GETW answers packed into the channel's put_fill (device/rma_getw.c) */
    size_t rma_putw_from;    /* puts of derived target types from this size as PUTW (device/rma_putw.c; 0: never) */
    int    rma_path;         /* RCH_RMA_PATH_*: how one-sided operations reach other ranks (device/rma.h) */
    char   verbs_device[256]; /* verbs: RDMA device per node, "d0,d1,..." (index node % n; "": auto) */
    char   verbs_addr[256];   /* verbs: listener IP address per node, "a0,a1,..." ("": from the device) */
    char   noise[256];       /* injected detours "period,duration[,sync|unsync][,ranks]" ("": none; device/noise.h) */
    char   io_fail_alloc[64]; /* testing: "r:n", the n-th collective-buffering allocation step of rank r fails (io/io_coll.c) */
};

extern struct rch_tunables rch_tun;

struct rch_tun_row {
    const char *name;        /* without the RDMACH_ prefix */
    enum rch_tun_type type;
    size_t offset;           /* into struct rch_tunables */
    const char *def;         /* default, as it would be written in the environment */
    long long min, max;      /* INT and SIZE; STRING: max = bytes of the char array (0: 64) */
    const char *choices;     /* ENUM: "a|b|c"; BOOL: "on|off" */
    const char *help;
};

/* Where a tunable's value came from, weakest first: a later source only
 * replaces an earlier one. */
enum rch_tun_origin {
    RCH_TUN_FROM_DEFAULT,    /* the table's default */
    RCH_TUN_FROM_MACHINE,    /* derived from this machine at start-up (rch_base_tun_machine) */
    RCH_TUN_FROM_FILE,       /* a `tunable NAME VALUE` line of RDMACH_TUNING_FILE */
    RCH_TUN_FROM_ENV,        /* the environment variable RDMACH_<NAME> */
};

/* Parse all RDMACH_* variables (defaults first). RDMACH_ERR_CONFIG with a
 * message naming the variable and the accepted values if one is malformed. */
rdmach_status_t rch_base_tun_load(void);

/* Where row i's value came from, and in words ("default", "environment",
 * "tuning file t.txt:4", "machine: <why>"). */
enum rch_tun_origin rch_base_tun_origin(size_t i, const char **why);

/* Set a tunable by name from `from` (no effect if its value came from a
 * stronger source); `why` is kept for rch_base_tun_origin (NULL: the
 * source's name). */
rdmach_status_t rch_base_tun_set(const char *name, const char *text, enum rch_tun_origin from,
                                 const char *why);

/* A value derived from this machine (cache sizes, cores: src/boot), taken
 * only while the tunable still has its default; `why` says from what. */
rdmach_status_t rch_base_tun_machine(const char *name, const char *text, const char *why);

/* The `tunable NAME VALUE` lines of a tuning file (docs/TUNING.md): applied
 * to every tunable the environment does not set; a malformed line is an
 * error naming path:line (rch_base_tun_load calls it for
 * RDMACH_TUNING_FILE; the collective rows of the file are src/coll's). */
rdmach_status_t rch_base_tun_file(const char *path);

/* The one reader of tuning files (tunefile.c): checks the header, cuts
 * comments, splits lines into at most RCH_TUNE_FILE_FIELDS fields (a longer
 * line arrives with RCH_TUNE_FILE_FIELDS + 1), applies `tunable` lines when
 * apply_tunables is set and passes every other row to `row` (if not NULL),
 * which returns an error naming path:line or RDMACH_OK. */
#define RCH_TUNE_FILE_FIELDS 16
typedef rdmach_status_t (*rch_tune_row_fn)(void *ctx, const char *path, int lineno, char **f, int nf);
rdmach_status_t rch_base_tune_file_read(const char *path, int apply_tunables, rch_tune_row_fn row, void *ctx);
/* Parse one value for a row into `dst` (used by load and by the unit tests). */
rdmach_status_t rch_base_tun_parse(const struct rch_tun_row *row, const char *text, void *dst);
size_t rch_base_tun_count(void);
const struct rch_tun_row *rch_base_tun_row(size_t i);
const struct rch_tun_row *rch_base_tun_find(const char *name);
/* The current value of a row as text (for rdmach-info). */
void rch_base_tun_format(const struct rch_tun_row *row, char *buf, size_t len);

#endif
