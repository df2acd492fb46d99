/*
 * MPI_T performance variables: the device's and channels' counters
 * (device/stats.h, the network channel's rch_net_stats), read when a tool
 * asks; nothing is added to the fast path beyond the plain increments
 * there.
 *
 * Every variable is continuous (counting since MPI_Init; start and stop are
 * MPI_T_ERR_PVAR_NO_STARTSTOP) and bound to no object. Counters and the
 * timer can be reset and written through a handle: the handle keeps the
 * value its zero stands for, so one tool's reset does not disturb another's.
 * Levels and the high-water mark show the device's own value (read-only).
 * The channel variables exist whether or not the channel is in use (they
 * read 0 then): the set, and so every index, is the same in every process.
 * Before MPI_Init and after MPI_Finalize there is no device: the channel
 * variables read 0, the device's own keep their last values.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "device/stats.h"
#include "mpi/mpi_impl.h"
#include "mpi/mpit_impl.h"
#include "rdma/net/net.h"

union pv_val {
    unsigned long long u;
    double d;
};

struct pvar {
    const char *name;
    int cls;                         /* MPI_T_PVAR_CLASS_* */
    int cat;                         /* RCH_MPIT_CAT_* */
    int arg;                         /* passed to read */
    union pv_val (*read)(int arg);
    const char *desc;
};

static const char *const chan_names[] = { "shm", "ofi", "verbs", "self" };
enum { CH_SHM, CH_OFI, CH_VERBS, CH_SELF };
enum { M_MSGS_SENT, M_BYTES_SENT, M_MSGS_RECV, M_BYTES_RECV };

static union pv_val rd_chan(int arg)
{
    struct rch_dev_chan_stat s;
    rch_dev_stats_chan(chan_names[arg / 4], &s);
    const uint64_t v[] = { s.msgs_sent, s.bytes_sent, s.msgs_recv, s.bytes_recv };
    return (union pv_val){ .u = v[arg % 4] };
}

enum { D_UNEXP_LEN, D_UNEXP_HWM, D_UNEXP_ARRIVED, D_RNDV_GET, D_RNDV_PUT, D_RNDV_PIPELINE, D_CREDIT_STALLS,
       D_RMA_RMW, D_RMA_PATTERN, D_RMA_GETW, D_RMA_GETW_LOST, D_RMA_GETW_REFUSED, D_RMA_PUTW, D_RMA_PUTW_LOST,
       D_RMA_PUTW_FETCHED, D_RMA_PUTW_UNREADY,
       D_BLOCKS };

static union pv_val rd_dev(int arg)
{
    const struct rch_dev_stat_s *s = &rch_dev_stat;
    switch (arg) {
    case D_UNEXP_LEN: return (union pv_val){ .u = rch_dev_stats_unexp_len() };
    case D_UNEXP_HWM: return (union pv_val){ .u = s->unexp_hwm };
    case D_UNEXP_ARRIVED: return (union pv_val){ .u = s->unexp_arrived };
    case D_RNDV_GET: return (union pv_val){ .u = s->rndv_get };
    case D_RNDV_PUT: return (union pv_val){ .u = s->rndv_put };
    case D_RNDV_PIPELINE: return (union pv_val){ .u = s->rndv_pipeline };
    case D_CREDIT_STALLS: return (union pv_val){ .u = s->credit_stalls };
    case D_RMA_RMW: return (union pv_val){ .u = s->rma_rmw };
    case D_RMA_PATTERN: return (union pv_val){ .u = s->rma_pattern };
    case D_RMA_GETW: return (union pv_val){ .u = s->rma_getw };
    case D_RMA_GETW_LOST: return (union pv_val){ .u = s->rma_getw_lost };
    case D_RMA_GETW_REFUSED: return (union pv_val){ .u = s->rma_getw_refused };
    case D_RMA_PUTW: return (union pv_val){ .u = s->rma_putw };
    case D_RMA_PUTW_LOST: return (union pv_val){ .u = s->rma_putw_lost };
    case D_RMA_PUTW_FETCHED: return (union pv_val){ .u = s->rma_putw_fetched };
    case D_RMA_PUTW_UNREADY: return (union pv_val){ .u = s->rma_putw_unready };
    default: return (union pv_val){ .u = s->blocks };
    }
}

static union pv_val rd_failures(int arg)
{
    (void)arg;
    return (union pv_val){ .u = rch_dev_failures() };
}

static union pv_val rd_dyn(int arg)
{
    (void)arg;
    return (union pv_val){ .u = (unsigned long long)rch_dev_dyn_count() };
}

static union pv_val rd_blocked(int arg)
{
    (void)arg;
    return (union pv_val){ .d = rch_dev_stat.blocked_seconds };
}

enum { N_CONNECTIONS, N_RETRIES, N_TX_FULL, N_RC_HITS, N_RC_MISSES, N_RC_ENTRIES };

static union pv_val rd_net(int arg)
{
    struct rch_rdma_chan *ch = rch_dev_stats_chan_open("ofi");
    if (ch == NULL)
        ch = rch_dev_stats_chan_open("verbs");
    if (ch == NULL)
        return (union pv_val){ .u = 0 };
    struct rch_net_stats s;
    rch_net_stats(ch, &s);
    const unsigned long long v[] = { s.ready, s.connect_retries, s.tx_full, s.rcache.hits, s.rcache.misses,
                                     s.rcache.entries };
    return (union pv_val){ .u = v[arg] };
}

#define COUNTER MPI_T_PVAR_CLASS_COUNTER
#define LEVEL MPI_T_PVAR_CLASS_LEVEL
static const struct pvar pvars[] = {
    { "shm_msgs_sent", COUNTER, RCH_MPIT_CAT_SHM, CH_SHM * 4 + M_MSGS_SENT, rd_chan,
      "Messages sent to ranks of this node (shared-memory channel)" },
    { "shm_bytes_sent", COUNTER, RCH_MPIT_CAT_SHM, CH_SHM * 4 + M_BYTES_SENT, rd_chan,
      "Bytes of the messages sent through the shared-memory channel" },
    { "shm_msgs_recv", COUNTER, RCH_MPIT_CAT_SHM, CH_SHM * 4 + M_MSGS_RECV, rd_chan,
      "Messages received from ranks of this node (arrived, matched or not)" },
    { "shm_bytes_recv", COUNTER, RCH_MPIT_CAT_SHM, CH_SHM * 4 + M_BYTES_RECV, rd_chan,
      "Bytes of the messages received through the shared-memory channel" },
    { "ofi_msgs_sent", COUNTER, RCH_MPIT_CAT_NET, CH_OFI * 4 + M_MSGS_SENT, rd_chan,
      "Messages sent through the network channel over libfabric" },
    { "ofi_bytes_sent", COUNTER, RCH_MPIT_CAT_NET, CH_OFI * 4 + M_BYTES_SENT, rd_chan,
      "Bytes of the messages sent over libfabric" },
    { "ofi_msgs_recv", COUNTER, RCH_MPIT_CAT_NET, CH_OFI * 4 + M_MSGS_RECV, rd_chan,
      "Messages received over libfabric" },
    { "ofi_bytes_recv", COUNTER, RCH_MPIT_CAT_NET, CH_OFI * 4 + M_BYTES_RECV, rd_chan,
      "Bytes of the messages received over libfabric" },
    { "verbs_msgs_sent", COUNTER, RCH_MPIT_CAT_NET, CH_VERBS * 4 + M_MSGS_SENT, rd_chan,
      "Messages sent through the network channel over verbs" },
    { "verbs_bytes_sent", COUNTER, RCH_MPIT_CAT_NET, CH_VERBS * 4 + M_BYTES_SENT, rd_chan,
      "Bytes of the messages sent over verbs" },
    { "verbs_msgs_recv", COUNTER, RCH_MPIT_CAT_NET, CH_VERBS * 4 + M_MSGS_RECV, rd_chan,
      "Messages received over verbs" },
    { "verbs_bytes_recv", COUNTER, RCH_MPIT_CAT_NET, CH_VERBS * 4 + M_BYTES_RECV, rd_chan,
      "Bytes of the messages received over verbs" },
    { "self_msgs_sent", COUNTER, RCH_MPIT_CAT_SELF, CH_SELF * 4 + M_MSGS_SENT, rd_chan,
      "Messages a rank sent to itself (each is also one self_msgs_recv)" },
    { "self_bytes_sent", COUNTER, RCH_MPIT_CAT_SELF, CH_SELF * 4 + M_BYTES_SENT, rd_chan,
      "Bytes of the messages a rank sent to itself" },
    { "self_msgs_recv", COUNTER, RCH_MPIT_CAT_SELF, CH_SELF * 4 + M_MSGS_RECV, rd_chan,
      "Messages a rank received from itself" },
    { "self_bytes_recv", COUNTER, RCH_MPIT_CAT_SELF, CH_SELF * 4 + M_BYTES_RECV, rd_chan,
      "Bytes of the messages a rank received from itself" },
    { "unexpected_queue_length", LEVEL, RCH_MPIT_CAT_DEVICE, D_UNEXP_LEN, rd_dev,
      "Messages arrived and not yet received (the unexpected queue, all communicators)" },
    { "unexpected_queue_hwm", MPI_T_PVAR_CLASS_HIGHWATERMARK, RCH_MPIT_CAT_DEVICE, D_UNEXP_HWM, rd_dev,
      "Most messages on the unexpected queue at once since MPI_Init" },
    { "unexpected_arrived", COUNTER, RCH_MPIT_CAT_DEVICE, D_UNEXP_ARRIVED, rd_dev,
      "Messages that arrived before their receive was posted" },
    { "rndv_get", COUNTER, RCH_MPIT_CAT_DEVICE, D_RNDV_GET, rd_dev,
      "Rendezvous receives that read the data from the sender (RDMA get; counted by the receiver)" },
    { "rndv_put", COUNTER, RCH_MPIT_CAT_DEVICE, D_RNDV_PUT, rd_dev,
      "Rendezvous sends that wrote the data into the receive buffer (RDMA put; counted by the sender)" },
    { "rndv_pipeline", COUNTER, RCH_MPIT_CAT_DEVICE, D_RNDV_PIPELINE, rd_dev,
      "Rendezvous sends streamed as data packets, the channel having no RDMA (counted by the sender)" },
    { "credit_stalls", COUNTER, RCH_MPIT_CAT_DEVICE, D_CREDIT_STALLS, rd_dev,
      "Attempts to send a queued eager packet that found no credit left for its peer (RDMACH_EAGER_CREDITS)" },
    { "rma_single_copy_rmw", COUNTER, RCH_MPIT_CAT_DEVICE, D_RMA_RMW, rd_dev,
      "Accumulates and compare-and-swaps this origin applied itself by single copy to a rank of this node "
      "(MPI_Win_create or dynamic memory), not as packets" },
    { "peers_failed", COUNTER, RCH_MPIT_CAT_DEVICE, 0, rd_failures,
      "Peers this process found failed (died, lost their connection, stopped or silent too long); one that "
      "finished, or a process of another job that disconnected (MPI_Comm_disconnect), is no failure" },
    { "dyn_processes", LEVEL, RCH_MPIT_CAT_DEVICE, 0, rd_dyn,
      "Processes of other jobs connected now (spawned, connected, accepted, joined; at most RDMACH_DYN_MAX): "
      "one whose communicators are all disconnected no longer counts" },
    { "rma_pattern_packets", COUNTER, RCH_MPIT_CAT_DEVICE, D_RMA_PATTERN, rd_dev,
      "One-sided packets that carried blocks of a repeating derived target datatype (a struct's, an indexed "
      "type's period) in the order the origin packs them (PUTP/ACCP), not rearranged into one segment per block" },
    { "rma_getw_packets", COUNTER, RCH_MPIT_CAT_DEVICE, D_RMA_GETW, rd_dev,
      "Gets of many small blocks from a rank of this node (MPI_Win_create memory) that the target packed and "
      "wrote into this origin's buffer itself by single copy (GETW)" },
    { "rma_getw_writes_lost", COUNTER, RCH_MPIT_CAT_DEVICE, D_RMA_GETW_LOST, rd_dev,
      "Chunks of GETW answers this target had handed to its channel (shared with the origin, or in the "
      "two-copy pipeline) and not yet written when the origin died: the channel dropped them, then the "
      "target freed their buffers" },
    { "rma_getw_fill_refused", COUNTER, RCH_MPIT_CAT_DEVICE, D_RMA_GETW_REFUSED, rd_dev,
      "GETW answers this target could not give by put_fill (the shared-memory channel refused it at the call: "
      "no room in /dev/shm for its pipe buffers) and wrote as chunks of its own instead" },
    { "rma_putw_packets", COUNTER, RCH_MPIT_CAT_DEVICE, D_RMA_PUTW, rd_dev,
      "Puts of a derived target datatype to a rank of this node (MPI_Win_create memory) that the target read "
      "through the shared-memory pipeline and scattered into its window itself (PUTW)" },
    { "rma_putw_reads_lost", COUNTER, RCH_MPIT_CAT_DEVICE, D_RMA_PUTW_LOST, rd_dev,
      "PUTW reads this target had in its channel (draining the origin's data) when the origin died: the "
      "channel ended them, the window kept what had been scattered, nobody was answered" },
    { "rma_putw_fetched", COUNTER, RCH_MPIT_CAT_DEVICE, D_RMA_PUTW_FETCHED, rd_dev,
      "PUTW whose pipelined read the channel refused at the call: this target read the data whole by the "
      "channel's get into a buffer, then scattered it" },
    { "rma_putw_unready", COUNTER, RCH_MPIT_CAT_DEVICE, D_RMA_PUTW_UNREADY, rd_dev,
      "Targets (one per window) that could not have read a PUTW of this origin (on shared memory: no room in "
      "/dev/shm for this rank's pipe buffers, and single copy not permitted): this origin's puts of derived "
      "datatypes to them go as V/P packets" },
    { "progress_blocks", COUNTER, RCH_MPIT_CAT_DEVICE, D_BLOCKS, rd_dev,
      "Waits that slept on a channel's wait primitive (after RDMACH_SPIN_COUNT polls and RDMACH_YIELD_COUNT "
      "yields)" },
    { "progress_blocked_time", MPI_T_PVAR_CLASS_TIMER, RCH_MPIT_CAT_DEVICE, 0, rd_blocked,
      "Seconds spent asleep in those waits (MPI_DOUBLE)" },
    { "net_connections", LEVEL, RCH_MPIT_CAT_NET, N_CONNECTIONS, rd_net,
      "Network connections to peers that are established now" },
    { "net_connect_retries", COUNTER, RCH_MPIT_CAT_NET, N_RETRIES, rd_net,
      "Network connections made again after a reset" },
    { "net_ring_full", COUNTER, RCH_MPIT_CAT_NET, N_TX_FULL, rd_net,
      "Network sends that found the peer's ring out of slots (its credits not yet returned)" },
    { "net_reg_cache_hits", COUNTER, RCH_MPIT_CAT_NET, N_RC_HITS, rd_net,
      "Rendezvous registrations found in the network registration cache" },
    { "net_reg_cache_misses", COUNTER, RCH_MPIT_CAT_NET, N_RC_MISSES, rd_net,
      "Rendezvous registrations the network registration cache had to make" },
    { "net_reg_cache_entries", LEVEL, RCH_MPIT_CAT_NET, N_RC_ENTRIES, rd_net,
      "Registrations the network registration cache holds now" },
};

static int is_timer(const struct pvar *v) { return v->cls == MPI_T_PVAR_CLASS_TIMER; }
static int is_readonly(const struct pvar *v) { return v->cls != COUNTER && !is_timer(v); }

int rch_mpit_pvar_count(void)
{
    return (int)RCH_ARRAY_SIZE(pvars);
}

int rch_mpit_pvar_cat(int i)
{
    return i >= 0 && i < rch_mpit_pvar_count() ? pvars[i].cat : -1;
}

int PMPI_T_pvar_get_num(int *num_pvar)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (num_pvar == NULL)
        return MPI_T_ERR_INVALID;
    *num_pvar = rch_mpit_pvar_count();
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                         int *readonly, int *continuous, int *atomic)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (pvar_index < 0 || pvar_index >= rch_mpit_pvar_count())
        return MPI_T_ERR_INVALID_INDEX;
    const struct pvar *v = &pvars[pvar_index];
    rch_mpit_str(name, name_len, v->name);
    RCH_MPIT_SET(verbosity, MPI_T_VERBOSITY_TUNER_BASIC);
    RCH_MPIT_SET(var_class, v->cls);
    RCH_MPIT_SET(datatype, is_timer(v) ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG);
    RCH_MPIT_SET(enumtype, MPI_T_ENUM_NULL);
    rch_mpit_str(desc, desc_len, v->desc);
    RCH_MPIT_SET(bind, MPI_T_BIND_NO_OBJECT);
    RCH_MPIT_SET(readonly, is_readonly(v));
    RCH_MPIT_SET(continuous, 1);
    RCH_MPIT_SET(atomic, 1);   /* readreset is one step under the critical section */
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (name == NULL || pvar_index == NULL)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < rch_mpit_pvar_count(); i++)
        if (pvars[i].cls == var_class && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index

/* ---- sessions and handles ---- */

struct MPIR_T_pvar_handle_s {
    struct MPIR_T_pvar_handle_s *next;   /* the session's handles */
    const struct pvar *var;
    union pv_val zero;                   /* counters, timer: the variable's value this handle reads as 0 */
};

struct MPIR_T_pvar_session_s {
    struct MPIR_T_pvar_session_s *next;  /* live sessions */
    struct MPIR_T_pvar_handle_s *handles;
};

static struct MPIR_T_pvar_session_s *sessions;
/* MPI_T_PVAR_ALL_HANDLES: an address no handle has. */
static struct MPIR_T_pvar_handle_s all_handles_anchor;
struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES = &all_handles_anchor;

static struct MPIR_T_pvar_session_s **session_find(MPI_T_pvar_session s)
{
    for (struct MPIR_T_pvar_session_s **p = &sessions; *p; p = &(*p)->next)
        if (*p == s && s != NULL)
            return p;
    return NULL;
}

static struct MPIR_T_pvar_handle_s **handle_find(struct MPIR_T_pvar_session_s *s, MPI_T_pvar_handle h)
{
    for (struct MPIR_T_pvar_handle_s **p = &s->handles; *p; p = &(*p)->next)
        if (*p == h && h != NULL)
            return p;
    return NULL;
}

static void session_drop(struct MPIR_T_pvar_session_s *s)
{
    while (s->handles) {
        struct MPIR_T_pvar_handle_s *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}

void rch_mpit_pvar_fini(void)
{
    while (sessions) {
        struct MPIR_T_pvar_session_s *s = sessions;
        sessions = s->next;
        session_drop(s);
    }
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (session == NULL)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_pvar_session_s *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return MPI_T_ERR_MEMORY;
    s->next = sessions;
    sessions = s;
    *session = s;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (session == NULL)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_pvar_session_s **p = session_find(*session);
    if (p == NULL)
        return MPI_T_ERR_INVALID_SESSION;
    struct MPIR_T_pvar_session_s *s = *p;
    *p = s->next;
    session_drop(s);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    RCH_MPI_CS();
    (void)obj_handle;   /* every pvar is bound to no object: ignored */
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (session_find(session) == NULL)
        return MPI_T_ERR_INVALID_SESSION;
    if (pvar_index < 0 || pvar_index >= rch_mpit_pvar_count())
        return MPI_T_ERR_INVALID_INDEX;
    if (handle == NULL || count == NULL)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_pvar_handle_s *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return MPI_T_ERR_MEMORY;
    h->var = &pvars[pvar_index];
    h->next = session->handles;
    session->handles = h;
    *count = 1;
    *handle = h;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc

static int handle_check(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int all_ok);

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    RCH_MPI_CS();
    int err = handle_check(session, handle ? *handle : MPI_T_PVAR_HANDLE_NULL, 0);
    if (err != MPI_SUCCESS)
        return err;
    struct MPIR_T_pvar_handle_s **p = handle_find(session, *handle);
    struct MPIR_T_pvar_handle_s *h = *p;
    *p = h->next;
    free(h);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free

/* The checks every handle operation starts with: MPI_SUCCESS, or the error.
 * all_ok: MPI_T_PVAR_ALL_HANDLES is accepted (start, stop, reset). */
static int handle_check(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int all_ok)
{
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (session_find(session) == NULL)
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES)
        return all_ok ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
    return handle_find(session, handle) ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

/* Start and stop: every variable is continuous. */
static int startstop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    RCH_MPI_CS();
    int err = handle_check(session, handle, 1);
    if (err == MPI_SUCCESS && handle != MPI_T_PVAR_ALL_HANDLES)
        err = MPI_T_ERR_PVAR_NO_STARTSTOP;
    return err;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return startstop(session, handle);
}
#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return startstop(session, handle);
}
#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop

static void value_out(const struct MPIR_T_pvar_handle_s *h, void *buf)
{
    union pv_val now = h->var->read(h->var->arg);
    if (is_timer(h->var)) {
        *(double *)buf = now.d - h->zero.d;
    } else {
        /* modulo 2^64: a written value above the count so far is a negative zero */
        *(unsigned long long *)buf = now.u - h->zero.u;
    }
}

/* The handle reads `v` from now on (readonly variables excluded by the callers). */
static void value_set(struct MPIR_T_pvar_handle_s *h, const void *v)
{
    union pv_val now = h->var->read(h->var->arg);
    if (is_timer(h->var))
        h->zero.d = now.d - (v ? *(const double *)v : 0.0);
    else
        h->zero.u = now.u - (v ? *(const unsigned long long *)v : 0);
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    RCH_MPI_CS();
    int err = handle_check(session, handle, 0);
    if (err != MPI_SUCCESS)
        return err;
    if (buf == NULL)
        return MPI_T_ERR_INVALID;
    value_out(handle, buf);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read

/* The checks of write and readreset: one handle, a variable that can be written, a buffer. */
static int write_check(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int err = handle_check(session, handle, 0);
    if (err != MPI_SUCCESS)
        return err;
    if (is_readonly(handle->var))
        return MPI_T_ERR_PVAR_NO_WRITE;
    return buf ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    RCH_MPI_CS();
    int err = write_check(session, handle, buf);
    if (err != MPI_SUCCESS)
        return err;
    value_set(handle, buf);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    RCH_MPI_CS();
    int err = handle_check(session, handle, 1);
    if (err != MPI_SUCCESS)
        return err;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {   /* every handle of the session that can be reset */
        for (struct MPIR_T_pvar_handle_s *h = session->handles; h; h = h->next)
            if (!is_readonly(h->var))
                value_set(h, NULL);
        return MPI_SUCCESS;
    }
    if (is_readonly(handle->var))
        return MPI_T_ERR_PVAR_NO_WRITE;
    value_set(handle, NULL);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    RCH_MPI_CS();
    int err = write_check(session, handle, buf);
    if (err != MPI_SUCCESS)
        return err;
    value_out(handle, buf);
    value_set(handle, NULL);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
