/* The tunables table and its parser. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"

struct rch_tunables rch_tun;

#define OFF(f) offsetof(struct rch_tunables, f)
#define KiB 1024LL
#define MiB (1024LL * 1024)
#define GiB (1024LL * 1024 * 1024)

static const struct rch_tun_row rows[] = {
    { "LOG", RCH_TUN_ENUM, OFF(log), "warn", 0, 0, "error|warn|info|debug|trace",
      "Log level; every line names the rank and the subsystem" },
    { "LOG_INTERVAL", RCH_TUN_INT, OFF(log_interval), "10", 1, 86400, NULL,
      "Seconds between two lines of a message outsiders can repeat (a refused connection request, a "
      "silent connection reset): the occurrences in between are counted in the next line; the interval "
      "doubles while they go on (up to 32 times this) and comes back after a quiet one" },
    { "BIND", RCH_TUN_ENUM, OFF(bind), "core", 0, 0, "none|core|numa",
      "Bind each rank round-robin to a core, to a NUMA node, or not at all" },
    { "PMI", RCH_TUN_ENUM, OFF(pmi), "auto", 0, 0, "auto|pmix|pmi2|pmi1|singleton",
      "How the bootstrap talks to the launcher; auto: PMIx if PMIX_NAMESPACE is set, PMI-2 if PMI_FD and "
      "PMI_JOBID are (Slurm's --mpi=pmi2), PMI-1 if PMI_FD alone is (Hydra, rdmachrun), else a singleton" },
    { "VNODE_SIZE", RCH_TUN_INT, OFF(vnode_size), "0", 0, 1 << 20, NULL,
      "Group consecutive ranks into pretend nodes of this many ranks (0: real nodes); "
      "ranks of different pretend nodes never share memory" },
    { "SHM", RCH_TUN_BOOL, OFF(shm), "on", 0, 0, "on|off",
      "Use the shared-memory channel between ranks of one node" },
    { "SHM_RING_SIZE", RCH_TUN_SIZE, OFF(shm_ring_size), "64k", 4 * KiB, 64 * MiB, NULL,
      "Bytes of each per-pair shared-memory eager ring (at least: see SHM_RING_BUDGET)" },
    { "SHM_RING_BUDGET", RCH_TUN_SIZE, OFF(shm_ring_budget), "8m", 0, 1 * GiB, NULL,
      "Bytes of eager rings one rank receives into: each per-pair ring gets this divided by the "
      "node's ranks (a power of two, at most 4 MiB: a streaming window then rarely waits for room), "
      "or SHM_RING_SIZE if that is larger (0: SHM_RING_SIZE alone)" },
    /* at least 96: a ring packet (this and 64 bytes of headers) must hold the
     * device's largest control packet and its 64 bytes (device/init.c,
     * RCH_PKT_CTL_MAX + 64 = 160) */
    { "SHM_EAGER_MAX", RCH_TUN_SIZE, OFF(shm_eager_max), "16k", 96, 16 * MiB, NULL,
      "Largest message sent eagerly through a shared-memory ring (at least: a ring packet holds this and "
      "64 bytes of headers, so a message up to 40 bytes larger is eager too; rdmach-info prints the limit)" },
    { "CMA", RCH_TUN_ENUM, OFF(cma), "auto", 0, 0, "auto|on|off",
      "Single-copy transfers with process_vm_readv/writev (auto: use if permitted)" },
    { "CMA_REFUSE_WRITE", RCH_TUN_BOOL, OFF(cma_refuse_write), "off", 0, 0, "on|off",
      "For tests: process_vm_writev fails with EPERM, as under a ptrace policy (Yama, PR_SET_PTRACER) that "
      "lets this rank read its peers' memory but not write it" },
    { "SHM_PIPE_FULL", RCH_TUN_BOOL, OFF(shm_pipe_full), "off", 0, 0, "on|off",
      "For tests: reserving this rank's pipe buffers in a peer's segment fails as on a full /dev/shm "
      "(no room): its pipeline puts, put_fill included, are refused at the call, gets it serves are "
      "answered NO_MEMORY (the callers fall back to single copy)" },
    { "SHM_PIPE_CHUNK", RCH_TUN_SIZE, OFF(shm_pipe_chunk), "64k", 4 * KiB, 16 * MiB, NULL,
      "Largest chunk of the two-copy pipeline (rendezvous gets, see SHM_GET; everything when single copy "
      "is not permitted): a transfer goes in chunks of a quarter of it, 16 KiB up to this" },
    { "SHM_WAKE", RCH_TUN_ENUM, OFF(shm_wake), "auto", 0, 0, "auto|membarrier|fence",
      "How a shared-memory sender knows the receiver sleeps: membarrier (sends need no fence, each "
      "sleep costs an IPI), fence (each send pays a full fence, sleeping is cheap); auto: fence when "
      "the node has more ranks than cores" },
    { "SHM_CMA_SPLIT", RCH_TUN_SIZE, OFF(shm_cma_split), "256k", 0, 1 * GiB, NULL,
      "Single-copy get/put of at least this size are cut into chunks that the peer's progress helps "
      "copy, each side with its own process_vm_readv/writev (0: never; the initiator alone)" },
    { "SHM_CMA_FROM", RCH_TUN_SIZE, OFF(shm_cma_from), "1g", 0, 1 * GiB, NULL,
      "SHM_GET=auto: rendezvous gets of at least this many bytes move by single copy "
      "(process_vm_readv, see SHM_CMA_SPLIT) instead of the two-copy pipeline, when given by a tuning "
      "file (rdmach-tune --p2p measures it) or the environment; left at its default (1g) the receiver "
      "chooses by timing both ways (SHM_GET=auto)" },
    { "SHM_NT_FROM", RCH_TUN_SIZE, OFF(shm_nt_from), "0", 0, 1 * GiB, NULL,
      "The pipeline's copy into the receiver's buffer uses non-temporal (streaming) stores for messages "
      "of at least this many bytes, which then bypass the caches (0: never; set at start-up to half the "
      "machine's last-level cache; rdmach-tune --p2p measures it)" },
    { "SHM_GET", RCH_TUN_ENUM, OFF(shm_get), "auto", 0, 0, "auto|pipe|cma",
      "How a shared-memory get (the rendezvous data of a large message) moves: pipe (the two-copy "
      "pipeline, both processes copying chunks that stay in cache; the reader copies the rest itself "
      "by single copy when the owner stops serving it), cma (single copy, see SHM_CMA_SPLIT); auto: "
      "for a rendezvous of at least 32 KiB the receiver times both ways and takes the faster per size "
      "class, timing the other again once in 64 gets (SHM_CMA_FROM from a tuning file or the "
      "environment fixes the threshold instead), cma for one-sided gets" },
    { "RNDV_THRESHOLD", RCH_TUN_SIZE, OFF(rndv_threshold), "0", 0, 1 * GiB, NULL,
      "Messages of at least this size use rendezvous (0: the channel's eager maximum)" },
    { "RNDV_MODE", RCH_TUN_ENUM, OFF(rndv_mode), "auto", 0, 0, "auto|put|get",
      "Rendezvous data transfer: receiver-driven GET, sender-driven PUT, or automatic" },
    { "RNDV_FIN", RCH_TUN_ENUM, OFF(rndv_fin), "auto", 0, 0, "auto|after",
      "PUT rendezvous: send FIN right behind the data where the channel orders them (auto), or only after "
      "the put completed locally (after)" },
    { "EAGER_CREDITS", RCH_TUN_INT, OFF(eager_credits), "64", 2, 1 << 16, NULL,
      "Eager packets a sender may have in flight to one peer before waiting for credits (CRDT)" },
    { "SPIN_COUNT", RCH_TUN_INT, OFF(spin_count), "2000", 0, INT_MAX, NULL,
      "Empty progress polls before a waiting rank starts yielding the core" },
    { "SPIN_COUNT_OVERSUB", RCH_TUN_INT, OFF(spin_count_oversub), "0", 0, INT_MAX, NULL,
      "Empty progress polls before yielding when this node runs more ranks than it has cores "
      "(spinning there only delays the rank being waited for)" },
    { "SPIN_COUNT_OVERSUB_PEER", RCH_TUN_INT, OFF(spin_count_oversub_peer), "300", 0, INT_MAX, NULL,
      "Empty progress polls before yielding, on a node with more ranks than cores (at most two per "
      "core), while waiting for one rank that runs on another core: its message comes from a running "
      "process, and being on-core when it lands saves a context switch (the shared-memory channel "
      "still gives the core at once to a rank that shares it and has work)" },
    { "YIELD_COUNT", RCH_TUN_INT, OFF(yield_count), "200", 0, INT_MAX, NULL,
      "sched_yield calls before a waiting rank blocks on the channel's wait primitive" },
    { "YIELD_COUNT_OVERSUB", RCH_TUN_INT, OFF(yield_count_oversub), "20", 0, INT_MAX, NULL,
      "sched_yield calls before a waiting rank blocks, when the node runs more ranks than it has cores: "
      "one that waits longer than a few hand-offs stops competing for its core" },
    { "YIELD_LONG_US", RCH_TUN_INT, OFF(yield_long_us), "500", 0, INT_MAX, NULL,
      "A waiting rank whose sched_yield kept it off the core this many microseconds looks whether "
      "processes other than the job's are runnable on the host (/proc/loadavg), and if so takes the "
      "WAKE_SLICE_US scheduler slice for a while (0: never looks)" },
    { "WAKE_SLICE_US", RCH_TUN_INT, OFF(wake_slice_us), "100", 0, 100000, NULL,
      "Scheduler slice in microseconds a rank asks for while processes other than the job's compete for "
      "the host's cores (Linux 6.12 and later, EEVDF; at least 100): its message then gets it the core "
      "from a CPU-bound process at once instead of after that process's slice; its own slice comes back "
      "0.2 s after the competition was last seen (0: never)" },
    { "PEER_STOP_TIMEOUT", RCH_TUN_INT, OFF(peer_stop_timeout), "1000", 0, INT_MAX, NULL,
      "Milliseconds a rank of this host may stay stopped (SIGSTOP, job control; not a debugger's stop) "
      "while others wait for it before it counts as failed: their waits end with an error naming it "
      "(0: never)" },
    { "SHM_REAPER", RCH_TUN_BOOL, OFF(shm_reaper), "on", 0, 0, "on|off",
      "Under a launcher that does not clean /dev/shm itself (Hydra, Slurm's srun; not rdmachrun, which does), "
      "every rank registers, before it makes a file, with a small detached process per host (started by the "
      "first rank there) that waits for every registered rank to end and then removes the job's "
      "/dev/shm/rdmach-<job>-* files (device/reaper.c)" },
    { "SHM_REAPER_IDLE_MS", RCH_TUN_INT, OFF(shm_reaper_idle_ms), "60000", 100, INT_MAX, NULL,
      "Milliseconds a newly started reaper waits for its first registration before it leaves: the rank that "
      "started it died before registering, and a reaper nobody registers with would wait for ever" },
    { "SHM_REAPER_DIE", RCH_TUN_BOOL, OFF(shm_reaper_die), "off", 0, 0, "on|off",
      "For tests: the rank that starts its host's reaper _exits before it registers with it" },
    { "HEARTBEAT", RCH_TUN_ENUM, OFF(heartbeat), "auto", 0, 0, "auto|all|off",
      "Heartbeats between ranks whose hang (SIGSTOP, a frozen host) no kernel here can see: a helper thread "
      "per rank sends each watched peer a datagram every HEARTBEAT_INTERVAL ms, and a peer silent for "
      "HEARTBEAT_TIMEOUT ms counts as failed (its waiters get an error naming it). auto: ranks of other nodes "
      "(this node's ranks are watched through the kernel); all: every other rank; "
      "off: none (device/heartbeat.c, docs/NETWORK.md)" },
    { "HEARTBEAT_INTERVAL", RCH_TUN_INT, OFF(heartbeat_interval), "200", 10, 60000, NULL,
      "Milliseconds between two heartbeats a rank sends each watched peer (HEARTBEAT)" },
    { "HEARTBEAT_TIMEOUT", RCH_TUN_INT, OFF(heartbeat_timeout), "1500", 100, 3600000, NULL,
      "Milliseconds without a heartbeat after which a watched peer counts as failed (HEARTBEAT): with the "
      "waiters' 0.2 s checks a hang is reported within this and 0.2 s; keep it several intervals long" },
    { "SIGUSR1", RCH_TUN_ENUM, OFF(sigusr1), "auto", 0, 0, "auto|on|off",
      "Handle SIGUSR1, which MPICH's Hydra sends the other ranks when one fails (its default action "
      "kills them): the handler counts it as \"a process failed\" (liveness is checked at once) and calls "
      "the handler it replaced. auto: install only if the program has no handler of its own; on: always "
      "(chained); off: never" },
    /* Collectives: forced algorithms (checked against src/coll's lists when the
     * collectives start; rdmach-tune --list names them), the network profile, tuning. */
    { "BCAST", RCH_TUN_STRING, OFF(coll_bcast), "auto", 0, 64, NULL,
      "Algorithm of MPI_Bcast (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "REDUCE", RCH_TUN_STRING, OFF(coll_reduce), "auto", 0, 64, NULL,
      "Algorithm of MPI_Reduce (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "ALLREDUCE", RCH_TUN_STRING, OFF(coll_allreduce), "auto", 0, 64, NULL,
      "Algorithm of MPI_Allreduce (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "GATHER", RCH_TUN_STRING, OFF(coll_gather), "auto", 0, 64, NULL,
      "Algorithm of MPI_Gather (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "GATHERV", RCH_TUN_STRING, OFF(coll_gatherv), "auto", 0, 64, NULL,
      "Algorithm of MPI_Gatherv (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "SCATTER", RCH_TUN_STRING, OFF(coll_scatter), "auto", 0, 64, NULL,
      "Algorithm of MPI_Scatter (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "SCATTERV", RCH_TUN_STRING, OFF(coll_scatterv), "auto", 0, 64, NULL,
      "Algorithm of MPI_Scatterv (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "ALLGATHER", RCH_TUN_STRING, OFF(coll_allgather), "auto", 0, 64, NULL,
      "Algorithm of MPI_Allgather (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "ALLGATHERV", RCH_TUN_STRING, OFF(coll_allgatherv), "auto", 0, 64, NULL,
      "Algorithm of MPI_Allgatherv (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "ALLTOALL", RCH_TUN_STRING, OFF(coll_alltoall), "auto", 0, 64, NULL,
      "Algorithm of MPI_Alltoall (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "ALLTOALLV", RCH_TUN_STRING, OFF(coll_alltoallv), "auto", 0, 64, NULL,
      "Algorithm of MPI_Alltoallv and MPI_Alltoallw (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "REDUCE_SCATTER", RCH_TUN_STRING, OFF(coll_reduce_scatter), "auto", 0, 64, NULL,
      "Algorithm of MPI_Reduce_scatter(_block) (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "SCAN", RCH_TUN_STRING, OFF(coll_scan), "auto", 0, 64, NULL,
      "Algorithm of MPI_Scan (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "EXSCAN", RCH_TUN_STRING, OFF(coll_exscan), "auto", 0, 64, NULL,
      "Algorithm of MPI_Exscan (auto: the tuning table; rdmach-tune --list names the algorithms)" },
    { "NIC_PROFILE", RCH_TUN_ENUM, OFF(nic_profile), "auto", 0, 0, "auto|onload|offload",
      "Whether the network processes protocol on the host CPU (onload) or on the NIC (offload), "
      "for choosing collective algorithms (auto: the network channel's own profile)" },
    { "TUNING_FILE", RCH_TUN_STRING, OFF(tuning_file), "", 0, 1024, NULL,
      "Collective tuning file written by rdmach-tune (docs/TUNING.md); its rows are consulted "
      "before the built-in table (empty: none)" },
    { "COLL_SEG_AFTER", RCH_TUN_INT, OFF(coll_seg_after), "16", 0, INT_MAX, NULL,
      "A communicator's first this many calls that would set up shared memory for its collectives (the "
      "node segment of the shmseg and adaptive algorithms, the shared-memory barriers) run by messages "
      "instead: a communicator made for a few calls (a window's, a library's duplicate) does not pay for "
      "segments it would hardly use (0: set them up at the first call; a forced algorithm or barrier "
      "backend is set up at once)" },
    { "COLL_SCRATCH_KEEP", RCH_TUN_SIZE, OFF(coll_scratch_keep), "64m", 0, 16 * GiB, NULL,
      "Bytes of the collectives' large scratch buffers (64 KiB and up: a reduction's accumulator, a "
      "schedule's temporaries) kept between calls instead of freed, whose pages would be faulted in and "
      "zeroed again by every call (0: free each)" },
    { "DTYPE_PREFETCH", RCH_TUN_SIZE, OFF(dtype_prefetch), "12k", 0, 1 * MiB, NULL,
      "Datatype moves and reductions over blocks that lie apart (a vector's or a pattern's blocks of up "
      "to 1 KiB, at least 64 bytes from one block's start to the next, with a gap between) prefetch the "
      "strided side's blocks this many bytes ahead: the hardware prefetcher does not run ahead across "
      "such gaps (0: never)" },
    { "DTYPE_PREFETCH_FROM", RCH_TUN_SIZE, OFF(dtype_prefetch_from), "1m", 0, 1 * GiB, NULL,
      "DTYPE_PREFETCH applies to a pass whose blocks span at least this many bytes (set at start-up to "
      "the size of the L2 cache: a smaller span is mostly in cache when it is moved again, and the "
      "prefetches then only cost)" },
    { "DTYPE_SIMD", RCH_TUN_BOOL, OFF(dtype_simd), "on", 0, 0, "on|off",
      "Datatype moves of every other 4- or 8-byte block, and of a few short elements a repetition, "
      "scatter by AVX-512 masked stores where the CPU has them (off: a move per element)" },
    { "COLL_VNODE_SIZE", RCH_TUN_INT, OFF(coll_vnode_size), "0", 0, 1 << 20, NULL,
      "Collectives only: let the node-aware algorithms see pretend nodes of this many consecutive "
      "ranks while messages still take the real channels (for testing and study; 0: the job's layout)" },
    { "INTER_RS_CHUNK", RCH_TUN_SIZE, OFF(inter_rs_chunk), "0", 0, 1 * GiB, NULL,
      "For tests: an intercommunicator reduce_scatter whose vector passes this many elements goes in "
      "chunks of this many, one after the other (0: vectors beyond INT_MAX, chunks of 2^26); the same at "
      "every process of the job, as both groups must cut alike" },
    { "NET", RCH_TUN_ENUM, OFF(net), "auto", 0, 0, "auto|verbs|ofi",
      "Network channel between nodes (auto: verbs if an RDMA device is active, else libfabric)" },
    { "OFI_PROVIDER", RCH_TUN_STRING, OFF(ofi_provider), "", 0, 0, NULL,
      "libfabric provider to use (empty: the first MSG provider with FI_RMA)" },
    { "VERBS_DEVICE", RCH_TUN_STRING, OFF(verbs_device), "", 0, 256, NULL,
      "RDMA device(s) of the verbs channel, comma-separated: a rank on node k uses element k mod n "
      "and listens on that device's first IP address (empty: the first active device with an address)" },
    { "VERBS_ADDR", RCH_TUN_STRING, OFF(verbs_addr), "", 0, 256, NULL,
      "IP address(es) the verbs channel listens on, comma-separated: a rank on node k binds element "
      "k mod n, which names its RDMA device (empty: from RDMACH_VERBS_DEVICE or the first active device)" },
    { "CONNECT", RCH_TUN_ENUM, OFF(connect), "lazy", 0, 0, "lazy|eager",
      "Network connections on first message to a peer, or all at init" },
    { "NET_SLOT_SIZE", RCH_TUN_SIZE, OFF(net_slot_size), "0", 0, 1 * MiB, NULL,
      "Bytes of one slot of the network fast-path ring (a multiple of 64, at least 256); a message up to "
      "this size less 24 bytes is one RDMA write, larger ones use rendezvous. 0: 64k + 64 (up to 64 KiB "
      "eager) over providers that do not pin memory (tcp: rendezvous costs round trips there) and with "
      "eager zero-copy (RDMACH_NET_ZCOPY), 16k over the others" },
    { "NET_SLOTS", RCH_TUN_INT, OFF(net_slots), "32", 2, 32768, NULL,
      "Slots of each network ring (per peer and direction, a power of two): messages in flight before credits return" },
    { "NET_ZCOPY", RCH_TUN_ENUM, OFF(net_zcopy), "auto", 0, 0, "auto|on|off",
      "Eager packets of at least RDMACH_NET_ZCOPY_MIN bytes written into the peer's ring straight from the "
      "user's (registered) buffer, no copy, and slots of 64 KiB + 64 so that up to 64 KiB stays eager (auto: "
      "where measured faster than rendezvous, Soft-iWARP; needs a gathering write and notify poll)" },
    { "NET_ZCOPY_MIN", RCH_TUN_SIZE, OFF(net_zcopy_min), "16k", 1, 1 * GiB, NULL,
      "Smallest eager payload RDMACH_NET_ZCOPY sends from the user's buffer (smaller ones are copied)" },
    { "NET_NOTIFY", RCH_TUN_ENUM, OFF(net_notify), "auto", 0, 0, "auto|poll|data|send",
      "How a receiver sees a ring slot arrive: poll its markers (devices that place data in order), "
      "write with immediate data, or a write then a small send (auto: the first the device allows)" },
    { "NET_RMA_CHUNK", RCH_TUN_SIZE, OFF(net_rma_chunk), "4m", 4 * KiB, 1 * GiB, NULL,
      "Largest single RDMA write or read of a rendezvous put/get (larger transfers are split)" },
    { "NET_RAILS", RCH_TUN_INT, OFF(net_rails), "0", 0, 4, NULL,
      "Connections per peer that carry rendezvous data (the first also carries messages); a large "
      "put/get is striped over them. 0: 2 over providers whose connections are byte streams with "
      "read-after-write order (tcp: one stream is bound by its socket's processing), 1 over the others" },
    { "NET_RAIL_MIN", RCH_TUN_SIZE, OFF(net_rail_min), "512k", 4 * KiB, 1 * GiB, NULL,
      "Smallest put/get striped over the rails (smaller ones use the first connection only)" },
    { "NET_REG_CACHE", RCH_TUN_BOOL, OFF(net_reg_cache), "on", 0, 0, "on|off",
      "Keep network memory registrations cached (invalidated when the memory is freed or unmapped)" },
    { "NET_REG_CACHE_ENTRIES", RCH_TUN_INT, OFF(net_reg_cache_entries), "256", 1, 1 << 20, NULL,
      "Most registrations the network registration cache keeps (least recently used go first)" },
    { "NET_REG_CACHE_SIZE", RCH_TUN_SIZE, OFF(net_reg_cache_size), "1g", 0, 1024 * GiB, NULL,
      "Most bytes the network registration cache keeps registered" },
    { "NET_MEM_MONITOR", RCH_TUN_ENUM, OFF(net_mem_monitor), "auto", 0, 0, "auto|reloc|off",
      "How the network registration cache hears that memory was freed or unmapped: reloc rewrites the "
      "relocations of loaded objects for free, realloc, munmap, mremap, madvise, brk, sbrk, shmdt (no "
      "symbol of the C library is exported); off does not watch and does not cache (auto: reloc where "
      "supported, ELF64 x86_64/aarch64)" },
    { "NET_CONNECT_TIMEOUT", RCH_TUN_INT, OFF(net_connect_timeout), "60", 1, 86400, NULL,
      "Seconds to establish a network connection before the peer is declared failed" },
    { "NET_HANDSHAKE_TIMEOUT_MS", RCH_TUN_INT, OFF(net_handshake_timeout_ms), "2000", 10, 600000, NULL,
      "Milliseconds a connection accepted by a rank's listener may stay silent (libfabric tcp: no "
      "connection request read from it) before it is reset; a member's request arrives within a "
      "round trip of the TCP handshake" },
    { "NET_PENDING_MAX", RCH_TUN_INT, OFF(net_pending_max), "64", 2, 65536, NULL,
      "Silent connections a rank's listener holds (libfabric tcp) before it resets the oldest, so that "
      "strangers never hold more of the rank's descriptors" },
    { "NET_FD_RESERVE", RCH_TUN_INT, OFF(net_fd_reserve), "4", 0, 64, NULL,
      "Descriptors the network channel holds in reserve (libfabric tcp), released for its own connection "
      "or for its listener's next accept when the process has none left" },
    { "ABI_CHECK", RCH_TUN_BOOL, OFF(abi_check), "on", 0, 0, "on|off",
      "At MPI_Init, end the job if the program (built against MPICH) uses an MPI function rdmach "
      "does not provide (off: it fails only if and when it calls it)" },
    /* The barrier framework (src/coll/barrier_*.c); rdmach-info lists which backends apply. */
    { "BARRIER", RCH_TUN_ENUM, OFF(barrier), "auto", 0, 0,
      "auto|dissemination|shm|hier|hwsim|ppdev|ofi",
      "Barrier backend (auto: the highest-priority backend that applies to the communicator; a "
      "forced one that does not apply falls back to that choice)" },
    { "NAMESERV_DIR", RCH_TUN_STRING, OFF(nameserv_dir), "", 0, 1024, NULL,
      "Directory of MPI_Publish_name's names, one file per service, shared by the jobs that look them up "
      "(\"\": /tmp/rdmach-names-<uid>)" },
    { "DYN_TIMEOUT_MS", RCH_TUN_INT, OFF(dyn_timeout_ms), "60000", 100, INT_MAX, NULL,
      "Milliseconds a step of dynamic processes may wait for another process (a spawned job's first "
      "process to connect, the other side of a connect/accept to answer); a spawned job that ends "
      "first under rdmachrun fails the spawn at once. The accept of a user's port waits for ever" },
    { "DYN_NET", RCH_TUN_INT, OFF(dyn_net), "1", 0, 1, NULL,
      "1: a process of another job (spawned, connected, joined) is reached over the network channel when "
      "both processes have the same one open (ofi, verbs), after the authenticated handshake on a socket; "
      "0: always over the sock channel (one TCP connection per pair)" },
    { "DYN_MAX", RCH_TUN_INT, OFF(dyn_max), "1024", 1, 1 << 20, NULL,
      "Processes of other jobs one process may be connected to at once (the device's and the channels' "
      "room after the job's ranks); a disconnected one's slot is used again once nothing names it" },
    { "PPDEV", RCH_TUN_STRING, OFF(ppdev), "", 0, 256, NULL,
      "Parallel port (e.g. /dev/parport0) wired to a hardware AND/OR barrier, for "
      "RDMACH_BARRIER=ppdev (empty: none)" },
    { "BARRIER_YIELD", RCH_TUN_INT, OFF(barrier_yield), "16", 0, INT_MAX, NULL,
      "sched_yield calls a rank waiting in a shared-memory barrier (shm, hier, hwsim) makes before "
      "it sleeps in the device until the last arrival (or channel traffic) wakes it" },
    { "BARRIER_REMOTE_SPIN", RCH_TUN_INT, OFF(barrier_remote_spin), "4000", 0, INT_MAX, NULL,
      "Oversubscribed node: polls a rank waiting in a shared-memory barrier or shmseg collective makes "
      "while every rank it still waits for is bound to another core, before it yields its own core "
      "(0: always yield)" },
    /* One-sided communication (src/device/rma*.c). */
    { "RMA_RMW_DIE", RCH_TUN_INT, OFF(rma_rmw_die), "0", 0, INT_MAX, NULL,
      "For tests: world rank RMA_RMW_DIE - 1 _exits inside its first single-copy read-modify-write of a "
      "node-local window (an accumulate applied by the origin), between the read and the write, holding "
      "the target's accumulate lock (0: none)" },
    { "RMA_GETW_FILL", RCH_TUN_BOOL, OFF(rma_getw_fill), "on", 0, 0, "on|off",
      "A get of a derived datatype from a rank of this node (GETW): the target packs the blocks straight "
      "into the shared-memory pipeline's buffers, which the origin copies out (on), or packs chunks of its "
      "own and writes them by single copy (off); on where the channel has it (shared memory)" },
    { "RMA_PUTW_FROM", RCH_TUN_SIZE, OFF(rma_putw_from), "64k", 0, 1 * GiB, NULL,
      "A put of a derived target datatype to a rank of this node (MPI_Win_create memory) of at least this "
      "many bytes goes as PUTW: the target reads the origin's packed data through the shared-memory "
      "pipeline and scatters each chunk into its window (0: never; V/P packets through the eager ring)" },
    { "RMA_PATH", RCH_TUN_ENUM, OFF(rma_path), "auto", 0, 0, "auto|rdma|am",
      "How one-sided operations reach other ranks: auto (load/store into windows in node-shared memory, "
      "the channel's RDMA put/get elsewhere, packets for the rest), rdma (never load/store: channel "
      "put/get and packets, as across a network), am (packets executed by the target only)" },
    /* Experiments (src/device/noise.c); the value is checked when the device starts. */
    { "NOISE", RCH_TUN_STRING, OFF(noise), "", 0, 256, NULL,
      "Inject OS-like noise: period,duration[,sync|unsync][,ranks], e.g. 1ms,50us: every period the rank's "
      "thread spins for duration in a handler of signal SIGRTMIN+5 (a POSIX timer); sync: the same instants "
      "on every rank, unsync: a random phase per rank; ranks: a list like 0-3,7 (default all). Empty: none" },
    /* MPI-IO (src/io). */
    { "IO_FAIL_ALLOC", RCH_TUN_STRING, OFF(io_fail_alloc), "", 0, 64, NULL,
      "Testing: r:n makes the n-th allocation step of MPI-IO collective buffering on rank r of a file's "
      "communicator fail (an aggregator's window buffer, then one step per round; counted over the "
      "process's collective calls; n = 0: the arrays made at the first MPI_File_open), to check that the error "
      "reaches every rank of the call. Empty: never" },
};

size_t rch_base_tun_count(void)
{
    return RCH_ARRAY_SIZE(rows);
}

const struct rch_tun_row *rch_base_tun_row(size_t i)
{
    return i < RCH_ARRAY_SIZE(rows) ? &rows[i] : NULL;
}

const struct rch_tun_row *rch_base_tun_find(const char *name)
{
    for (size_t i = 0; i < RCH_ARRAY_SIZE(rows); i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

/* Index of `text` in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *text)
{
    size_t tl = strlen(text);
    int idx = 0;
    for (const char *p = choices; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t l = bar ? (size_t)(bar - p) : strlen(p);
        if (l == tl && strncasecmp(p, text, l) == 0)
            return idx;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

static rdmach_status_t bad(const struct rch_tun_row *row, const char *text, const char *accepts)
{
    return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_%s: '%s' is not valid; accepted: %s",
                        row->name, text, accepts);
}

rdmach_status_t rch_base_tun_parse(const struct rch_tun_row *row, const char *text, void *dst)
{
    char accepts[160];
    switch (row->type) {
    case RCH_TUN_ENUM:
    case RCH_TUN_BOOL: {
        int idx = choice_index(row->choices, text);
        if (row->type == RCH_TUN_BOOL && idx < 0) {
            if (!strcmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "true")) idx = 0;
            if (!strcmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "false")) idx = 1;
        }
        if (idx < 0)
            return bad(row, text, row->choices);
        /* BOOL rows list "on|off": on (index 0) is true */
        *(int *)dst = row->type == RCH_TUN_BOOL ? (idx == 0) : idx;
        return RDMACH_OK;
    }
    case RCH_TUN_INT:
    case RCH_TUN_SIZE: {
        if (row->type == RCH_TUN_SIZE)
            snprintf(accepts, sizeof(accepts), "a size from %lld to %lld bytes (suffix k, m or g allowed)",
                     row->min, row->max);
        else
            snprintf(accepts, sizeof(accepts), "an integer from %lld to %lld", row->min, row->max);
        const char *p = text;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '-' || *p == '\0')
            return bad(row, text, accepts);
        errno = 0;
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || end == p)
            return bad(row, text, accepts);
        unsigned long long mul = 1;
        if (row->type == RCH_TUN_SIZE && *end) {
            switch (tolower((unsigned char)*end)) {
            case 'k': mul = KiB; break;
            case 'm': mul = MiB; break;
            case 'g': mul = GiB; break;
            default: return bad(row, text, accepts);
            }
            end++;
            if (*end == 'b' || *end == 'B') end++;
        }
        while (isspace((unsigned char)*end)) end++;
        if (*end)
            return bad(row, text, accepts);
        if (v > (unsigned long long)LLONG_MAX / mul)
            return bad(row, text, accepts);
        long long val = (long long)(v * mul);
        if (val < row->min || val > row->max)
            return bad(row, text, accepts);
        if (row->type == RCH_TUN_INT)
            *(int *)dst = (int)val;
        else
            *(size_t *)dst = (size_t)val;
        return RDMACH_OK;
    }
    case RCH_TUN_STRING: {
        size_t cap = row->max > 0 ? (size_t)row->max : 64; /* char[max], else char[64] */
        if (strlen(text) >= cap)
            return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_%s: value longer than %zu characters",
                                row->name, cap - 1);
        strcpy((char *)dst, text);
        return RDMACH_OK;
    }
    }
    return rch_base_err(RDMACH_ERR_OTHER, "RDMACH_%s: unknown tunable type", row->name);
}

static unsigned char origin[RCH_ARRAY_SIZE(rows)];
static char origin_why[RCH_ARRAY_SIZE(rows)][128];

enum rch_tun_origin rch_base_tun_origin(size_t i, const char **why)
{
    static const char *const words[] = { "default", "machine", "tuning file", "environment" };
    if (i >= RCH_ARRAY_SIZE(rows)) {
        *why = "";
        return RCH_TUN_FROM_DEFAULT;
    }
    *why = origin_why[i][0] ? origin_why[i] : words[origin[i]];
    return (enum rch_tun_origin)origin[i];
}

/* Set row i from text if `from` is stronger than where its value came from. */
static rdmach_status_t tun_set(size_t i, const char *text, enum rch_tun_origin from, const char *why)
{
    if (origin[i] > from)
        return RDMACH_OK;
    rdmach_status_t st = rch_base_tun_parse(&rows[i], text, (char *)&rch_tun + rows[i].offset);
    if (st != RDMACH_OK)
        return st;
    origin[i] = (unsigned char)from;
    snprintf(origin_why[i], sizeof(origin_why[i]), "%s", why ? why : "");
    return RDMACH_OK;
}

rdmach_status_t rch_base_tun_set(const char *name, const char *text, enum rch_tun_origin from,
                                 const char *why)
{
    for (size_t i = 0; i < RCH_ARRAY_SIZE(rows); i++)
        if (strcmp(rows[i].name, name) == 0)
            return tun_set(i, text, from, why);
    return rch_base_err(RDMACH_ERR_CONFIG, "'%s' is not a tunable of this rdmach (see rdmach-info)",
                        name);
}

rdmach_status_t rch_base_tun_machine(const char *name, const char *text, const char *why)
{
    char w[128];
    snprintf(w, sizeof(w), "machine: %s", why);
    return rch_base_tun_set(name, text, RCH_TUN_FROM_MACHINE, w);
}

rdmach_status_t rch_base_tun_load(void)
{
    extern char **environ;
    for (size_t i = 0; i < RCH_ARRAY_SIZE(rows); i++) {
        origin[i] = RCH_TUN_FROM_DEFAULT;
        origin_why[i][0] = 0;
        rdmach_status_t st = rch_base_tun_parse(&rows[i], rows[i].def, (char *)&rch_tun + rows[i].offset);
        if (st != RDMACH_OK)
            return st;
    }
    for (size_t i = 0; i < RCH_ARRAY_SIZE(rows); i++) {
        char var[96];
        snprintf(var, sizeof(var), "RDMACH_%s", rows[i].name);
        const char *v = getenv(var);
        if (!v)
            continue;
        rdmach_status_t st = tun_set(i, v, RCH_TUN_FROM_ENV, NULL);
        if (st != RDMACH_OK)
            return st;
    }
    if (rch_tun.tuning_file[0]) {
        rdmach_status_t st = rch_base_tun_file(rch_tun.tuning_file);
        if (st != RDMACH_OK)
            return st;
    }
    rch_log_level = rch_tun.log;
    rch_log_interval = rch_tun.log_interval;
    /* A misspelt variable would otherwise be silently ignored. */
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "RDMACH_", 7) != 0)
            continue;
        const char *name = *e + 7, *eq = strchr(name, '=');
        char buf[96];
        size_t l = eq ? (size_t)(eq - name) : strlen(name);
        if (l >= sizeof(buf))
            l = sizeof(buf) - 1;
        memcpy(buf, name, l);
        buf[l] = '\0';
        if (!rch_base_tun_find(buf))
            RCH_WARN("config", "RDMACH_%s is not a tunable of this rdmach (see rdmach-info)", buf);
    }
    return RDMACH_OK;
}

void rch_base_tun_format(const struct rch_tun_row *row, char *buf, size_t len)
{
    const char *field = (const char *)&rch_tun + row->offset;
    switch (row->type) {
    case RCH_TUN_INT:
        snprintf(buf, len, "%d", *(const int *)field);
        break;
    case RCH_TUN_SIZE:
        snprintf(buf, len, "%zu", *(const size_t *)field);
        break;
    case RCH_TUN_BOOL:
        snprintf(buf, len, "%s", *(const int *)field ? "on" : "off");
        break;
    case RCH_TUN_STRING:
        snprintf(buf, len, "%s", field);
        break;
    case RCH_TUN_ENUM: {
        int idx = *(const int *)field, k = 0;
        const char *p = row->choices;
        while (k < idx && (p = strchr(p, '|')) != NULL) { p++; k++; }
        const char *bar = p ? strchr(p, '|') : NULL;
        snprintf(buf, len, "%.*s", p ? (int)(bar ? bar - p : (long)strlen(p)) : 0, p ? p : "");
        break;
    }
    }
}
