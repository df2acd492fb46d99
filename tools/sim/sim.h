/*
 * rdmach-sim: a discrete-event simulator of rdmach's collectives in the
 * LogGOPS model, at sizes no test machine has.
 *
 * Layers (one way):
 *   sim_record.c  a recording device: implements src/device/dev.h so that
 *                 the library's own algorithms (src/coll, unchanged) run for
 *                 one rank at a time and leave that rank's program — its
 *                 sends, receives, waits and reductions — with no copy of
 *                 any algorithm here. Programs are stored once per distinct
 *                 shape (peers relative to the rank: by offset, by xor or
 *                 absolute), so a dissemination barrier of 2^20 ranks keeps
 *                 one program, not 2^20.
 *   sim_engine.c  the event engine: runs every rank's program against the
 *                 LogGOPS parameters of the channel between each pair (shm
 *                 within a node, net between nodes; a node's ranks share its
 *                 NIC), eager or rendezvous by the channel's S, with noise.
 *   sim_cache.c   the host's L3: which copied buffers are still in it (an
 *                 LRU stack per host at the grain of buffers).
 *   sim_params.c  parameter and noise-trace files (errors name the line).
 *   sim_main.c    the command line, the collectives and the report.
 *
 * Times are nanoseconds (double).
 */
#ifndef RCH_SIM_H
#define RCH_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- programs (sim_record.c) ---- */
enum sim_op_kind { SIM_ISEND, SIM_IRECV, SIM_WAIT, SIM_FREE, SIM_COMPUTE, SIM_HWBAR, SIM_SEGSYNC, SIM_MARK };
/* One op: kind (3 bits) | arg (24 bits: peer in the program's form, or the
 * request slot of a WAIT or FREE) | bytes (37 bits; COMPUTE: bytes reduced
 * if arg is 0, nanoseconds of work if it is 1, bytes copied (locally, or
 * into the node segment) if it is 2, copied out of the node segment if 3;
 * from 4 (SIM_SEG_READ) on, 4 + 2w bytes copied out of node segment data
 * rank w wrote and 5 + 2w bytes of it reduced).
 * SEGSYNC: the node segment's synchronisation of
 * every rank of the node (sim_seg.c). MARK: the rank starts its clock
 * here (what its program does before runs once, the rest `iters` times;
 * rdmach-sim-probe's barrier before a timed block). ISEND and IRECV take a
 * request slot as sim_record.c's rule gives it. */
typedef uint64_t sim_op;
#define SIM_OP(kind, arg, bytes) ((uint64_t)(kind) | ((uint64_t)(arg) & 0xffffff) << 3 | (uint64_t)(bytes) << 27)
#define SIM_OP_KIND(op)  ((int)((op) & 7))
#define SIM_OP_ARG(op)   ((uint32_t)(((op) >> 3) & 0xffffff))
#define SIM_OP_BYTES(op) ((uint64_t)(op) >> 27)
#define SIM_MAX_RANKS (1 << 24)

enum sim_form { SIM_FORM_DELTA, SIM_FORM_XOR, SIM_FORM_ABS, SIM_FORM_MAX };

struct sim_prog {
    const sim_op *ops;
    uint32_t nops;
    uint32_t slots;            /* request slots it uses at once */
    /* [nops] or NULL: the rank's buffers each op touches (sim_cache.c):
     * an ISEND's source or an IRECV's destination in the low 16 bits, a
     * local copy's (COMPUTE 2) source low and destination high; buffer k
     * is the k-th distinct address the rank's recording used, 0 none */
    const uint32_t *bufs;
};

struct sim_progs;              /* the table of distinct programs */
struct sim_progs *sim_progs_new(int nranks);
void sim_progs_free(struct sim_progs *t);
/* Rank `rank`'s program (peers resolved with its form). */
void sim_progs_get(const struct sim_progs *t, int rank, struct sim_prog *p, enum sim_form *form);
uint32_t sim_progs_distinct(const struct sim_progs *t);
size_t sim_progs_bytes(const struct sim_progs *t);
size_t sim_progs_total_ops(const struct sim_progs *t);
static inline int sim_peer(enum sim_form f, uint32_t arg, int rank, int nranks)
{
    switch (f) {
    case SIM_FORM_DELTA: return (int)(((uint64_t)rank + arg) % (uint64_t)nranks);
    case SIM_FORM_XOR: return rank ^ (int)arg;
    default: return (int)arg;
    }
}

/* Recording: between begin and end, the device calls of the calling code
 * are rank `rank`'s (world ranks: the views' world_of translate). Ops may
 * also be added directly (sim_rec_op: peers in world ranks). end stores
 * the program; 0, or -1 with a message in *err (an algorithm's error). */
void sim_rec_begin(struct sim_progs *t, int rank);
void sim_rec_op(int kind, int peer, uint64_t bytes);
/* The same for an op that touches the rank's buffers at a and b (b: a
 * copy's destination; NULL: none): the program notes which (sim_prog.bufs). */
void sim_rec_op_bufs(int kind, int peer, uint64_t bytes, const void *a, const void *b);
/* The view whose communicator ranks receives name (for world translation). */
void sim_rec_view(const int *world_of);
int sim_rec_end(char *err, size_t len);
/* Between sim_copy_watch(1) and (0), the memcpy and memmove calls of the
 * code linked in (the library's algorithms) are recorded as copies
 * (SIM_COMPUTE 2) of the rank being recorded (sim_copy.c). */
void sim_copy_watch(int on);
/* A reduction that records COMPUTE ops instead of computing. */
struct rch_coll_op;
const struct rch_coll_op *sim_rec_reduce_op(void);

/* The library's non-blocking collective (sim_nbc.c) for the view's rank,
 * recorded round by round; sim_nbc_has: which collectives have one here. */
struct rch_coll_comm;
struct rch_coll_args;
int sim_nbc_has(int coll_id);
int sim_nbc_run(int coll_id, const struct rch_coll_comm *view, const struct rch_coll_args *a);

/* The node segment's algorithms (shmseg, shmrsag: src/coll/nodeseg.h) for
 * the view's rank: gives view c, which must be one node, the communicator
 * state whose segment records (its copies and synchronisations become ops).
 * 0, or -1 when there is no memory for the segment. */
int sim_seg_attach(struct rch_coll_comm *c);
/* The COMPUTE kind of a copy (reduce 0) or reduction (1) that reads src:
 * SIM_SEG_READ + 2w (+ 1 for a reduction) where src is node segment data
 * rank w of the node wrote (the engine charges the cross-core transfer when
 * w runs on another core than the reader), 3 for a copy out of segment
 * data of no one rank, else 2 (a copy) or 0 (a reduction). */
enum { SIM_SEG_READ = 4 };
uint32_t sim_seg_read_kind(const void *src, int reduce);
/* The COMPUTE kind of a copy into node segment data of rank w (its row or
 * header: a deposit) is SIM_SEG_DEP + w, so that the engine knows whose
 * data it overwrites (sim_segx.c); read kinds stay below it. */
enum { SIM_SEG_DEP = 1 << 23 };
struct sim_params;
/* The CPU a rank spends to get its core back from the node segment's
 * synchronisation on a core of n ranks: the segswitch entry of the largest
 * N <= n (the smallest entry below them all), switch if none is given. */
double sim_seg_switch(const struct sim_params *p, int n);
static inline int sim_seg_algo(const char *name)
{
    return name[0] == 's' && name[1] == 'h' && name[2] == 'm';
}

/* ---- parameters (sim_params.c) ---- */
enum sim_chan { SIM_SHM, SIM_NET, SIM_CHAN_MAX };
enum { SIM_SEGSW_MAX = 8, SIM_CALLALGO_MAX = 16, SIM_DUPLEX_MAX = 12 };
struct sim_loggops {
    double L, o, g, G, O;      /* ns, ns, ns, ns/byte, ns/byte; o: sending a message */
    double S;                  /* bytes: larger messages use rendezvous */
    /* Receiving a message costs orecv (o unless the file says) when its
     * receiver waits for it, orecv + obusy when it got there first (the
     * receiver was busy, or had not posted the receive): a waiting rank is
     * already inside its progress loop, a busy one comes to it afresh
     * (tcp: a progress pass of system calls, and the kernel's receive
     * processing, which moves to the receiver's CPU while it uses its
     * socket). */
    double orecv, obusy;
    double rndv;               /* the receiver's CPU per rendezvous transfer (shm: the single copy's system call) */
    /* An onload channel's sender CPU per byte while its data leaves (tcp:
     * the kernel's copy into the socket and, over loopback, the protocol's
     * processing up to the peer's socket), on the sender's core: the data
     * has left no earlier than that work is done. 0: the sender's part takes
     * no core (as before the term; older parameter files). */
    double Gsend;
    /* The exchange (`duplex B NS ...`): ns more for receiving a message that
     * crossed one of its receiver's own to its sender, each sent before
     * the other could have been received (MPI_Sendrecv between a pair, the
     * step of recursive doubling, pairwise and ring algorithms). An
     * exchange takes longer than the one-way transfer of a ping-pong's
     * half, which is all LogGOPS gives it (the two directions overlap):
     * rdmach-sim-probe's `exchange` against the engine's, 1.3-1.9 times
     * over tcp and up to 1.7 over shm on Zen 4; by size, ndx pairs of bytes
     * (ascending) and ns, interpolated, the last segment's slope beyond;
     * none: 0. */
    int ndx;
    double dx_b[SIM_DUPLEX_MAX], dx[SIM_DUPLEX_MAX];
};
/* The duplex extra of a crossing message of `len` bytes on channel c. */
double sim_duplex_ns(const struct sim_loggops *c, double len);
struct sim_params {
    struct sim_loggops ch[SIM_CHAN_MAX];
    int onload;                /* the NIC's protocol runs on the host CPU */
    double gamma;              /* ns per byte reduced */
    double beta;               /* ns per byte copied into or out of the node segment */
    double call;               /* ns of the library's own path per collective call (binding, checks, selection) */
    double icall;              /* the same for a non-blocking collective and its wait (its schedule and request) */
    /* ns the device spends on the heap buffer of an unexpected eager message
     * above RCH_DEV_UNEXP_INLINE (256) bytes: malloc when it arrives before
     * its receive, free at the match (0: none; older parameter files) */
    double unexp;
    /* ns per byte more for an eager shared-memory send on an oversubscribed
     * host: its record goes into ring lines the core's caches no longer hold
     * (the ring's lap, up to 1 MiB, is long against the processes that
     * take turns on the core; rdmach-sim-probe --rootsend; 0: none) */
    double ringcold;
    /* The same with a core per rank (`ringcold1`; 0: none): a 2-rank
     * pair's ring of 1 MiB and the way back, beside the rank's buffers, is
     * more than the core's L2 (1 MiB here) holds across a lap
     * (rdmach-sim-probe --rootsend on 2 ranks) */
    double ringcold1;
    double hw_ow, hw_op, hw_oplg, hw_or;   /* hardware barrier: o_w, o_p(P) = op + oplg * lg P, o_r */
    /* The host the ranks run on: its cores (0: a core per rank) and, where
     * ranks outnumber them, the CPU a rank spends to get a core back after
     * it waited (the progress engine yields or sleeps while it waits); in a
     * job of one node also each turn of a yielding waiter of its core. */
    double cores, sw;
    double sw_net;             /* the same for a rank woken by a network message (a sleep in poll()) */
    /* The turn a waiting rank gives up on its core where ranks outnumber
     * cores: its hand-off yield (src/device/progress.c, wait_oversub) and
     * what the scheduler runs before the rank it waits for; 0: none. */
    double handoff;
    /* Over the network channel (a job of more than one node), the turn each
     * other rank of the core that still waits takes when a rank's wait hands
     * the core on (its progress pass polls its sockets, system calls where
     * shm reads memory), in place of the one-node turns of sw; 0: none. */
    double netturn;
    /* On one node of more than two ranks a core, a rank whose program ended
     * waits in the next call (the probe's MPI_Allreduce of a block's time)
     * and yields like any waiter: each later hand-off of its core (a rank
     * getting the core back) gives it a turn of the core's segswitch, until
     * it has had `endturns` of them (its yields before it sleeps,
     * RDMACH_YIELD_COUNT_OVERSUB; rdmach-sim-probe --waiters); 0: none. */
    double endturns;
    /* On one node of more than two ranks a core, the order in which the
     * core's ranks run (`turnorder cycle`; 0: queue). queue: a rank keeps
     * its core until it waits, the core then goes to the first rank that
     * became ready (switch, and the waiting ranks' turns as terms). cycle:
     * the scheduler passes the core round the core's ranks in a fixed
     * order, a turn each, whether they have work or not (a waiting rank
     * polls and yields: a turn of segswitch), a rank with work running
     * until it waits; a waiter sleeps, out of the cycle, after `endturns`
     * empty turns in a row (20 if not given) until its request completes.
     * Measured by `rdmach-sim turns` on a scheduler trace of the library's
     * loop (sched_switch: docs/SCALE.md). The kernel's order of a core's
     * ranks differs from run to run: a prediction is the mean over
     * cycle_orders orders drawn (`turnorder cycle N`; 0: by index). */
    int cycle;
    double cycle_orders;
    /* The library's path per call of barrier, bcast, allreduce and alltoall
     * (SIM_CALLC order; `callc` line; -1: not given, `call` applies):
     * calibrate fits each from the probe's 2-rank call of the smallest
     * message, less what the engine predicts for it without it (sim_callc.c). */
    double callc[4];
    /* The hand-off at the node segment's synchronisation where ranks
     * outnumber cores (`segswitch N NS ...`: on a core of N ranks; measured
     * by rdmach-sim-probe --segsync on one core, a synchronisation's time
     * over its N - 1 hand-offs): nsegsw entries, N ascending; 0: switch. */
    int nsegsw;
    double segsw_n[SIM_SEGSW_MAX], segsw[SIM_SEGSW_MAX];
    /* The host's last-level cache (`l3 size B in NS one NS two NS`;
     * sim_cache.c): its size in bytes (0: not modelled), and a copy's ns per
     * byte with its buffers in it (`in`), beyond it with one core copying
     * (`one`), and beyond it with another core of the host copying beyond it
     * at once (`two`): rdmach-sim-probe's copyws and copyws2. */
    double l3, l3_in, l3_one, l3_two;
    /* A core's L2 (`l2 size B out NS`; needs l3): its size in bytes and a
     * copy's ns per byte with its buffers beyond it but in the L3
     * (rdmach-sim-probe's copyws at W 4 MiB); charged to the local copies
     * (COMPUTE 2) only, by the same LRU stack per core; 0: not modelled. */
    double l2, l2_out;
    /* One algorithm's own path per call, in place of callc or call
     * (`callalgo COLL ALGO NS ...`; sim_callalgo.c): ncallalgo entries. */
    int ncallalgo;
    int callalgo_coll[SIM_CALLALGO_MAX];
    char callalgo_name[SIM_CALLALGO_MAX][24];
    double callalgo[SIM_CALLALGO_MAX];
    /* Node segment data that ranks on another core have read (`segx dep D
     * own C red R free B`, ns per byte beyond the in-cache rate; sim_segx.c;
     * rdmach-sim-probe --segrows): its lines left the writer's core, so its
     * writer's next deposit there (dep) and a read of it on the writer's
     * core, a copy (own) or a reduction (red), cross cores again; 0: none. */
    double segx_dep, segx_own, segx_red;
    double segx_far;           /* a deposit into data only other cores read (`far F`; 0: free) */
    double segx_free;          /* bytes of a deposit that cost no dep (the probe's 1 KiB: none) */
};
enum { SIM_CALLC = 4 };
/* The index in callc of collective coll_id (enum rch_coll_id), -1 if none;
 * the names in the `callc` line. */
int sim_callc_index(int coll_id);
extern const char *const sim_callc_names[SIM_CALLC];
/* Fit callc from the probe's figures (ns per call of the 2-rank loop of
 * algo on `bytes`, or < 0 when not measured): each the figure less the
 * engine's prediction of the same loop with no call cost. 0, or -1 (err). */
int sim_callc_fit(struct sim_params *p, const char *const algo[SIM_CALLC], const double bytes[SIM_CALLC],
                  const double ns[SIM_CALLC], char *err, size_t len);
/* callalgo (sim_callalgo.c): algo's figure for collective coll_id, or -1;
 * a `callalgo` line's triples after its key (0, or -1 with "file:line:
 * what"); the line, if any, into f; the fit of algo's figure from the
 * probe's ns per call of its 2-rank loop of `bytes`, less the engine's
 * prediction of that loop with no call cost; the `callalgo` command. */
double sim_callalgo_ns(const struct sim_params *p, int coll_id, const char *algo);
int sim_callalgo_line(char *save, struct sim_params *p, const char *path, int line, char *err, size_t len);
void sim_callalgo_save(FILE *f, const struct sim_params *p);
int sim_callalgo_fit(struct sim_params *p, const char *coll, const char *algo, double bytes, double ns, char *err,
                     size_t len);
int sim_callalgo(int argc, char **argv);
/* rdmach-sim turns: a scheduler trace of rdmach-sim-probe --collsw, the
 * order a shared core's ranks ran in (sim_turns.c). */
int sim_turns(int argc, char **argv);
void sim_params_default(struct sim_params *p);
/* 0, or -1 with "file:line: what" in err. */
int sim_params_load(const char *path, struct sim_params *p, char *err, size_t len);
int sim_params_save(const char *path, const struct sim_params *p, const char *comment);

/* ---- noise ---- */
struct sim_noise {
    int kind;                  /* 0 none, 1 periodic, 2 trace */
    double period, duration;   /* periodic */
    int sync;
    const uint8_t *on;         /* [nranks] 1: noisy (NULL: all) */
    double *tstart, *tlen;     /* trace: detours of one rank, sorted, over [0, span) */
    size_t tn;
    double span;
};
/* A trace of rdmach-noise (detours_rank<N>.csv: start_ns,length_ns). */
int sim_noise_load_trace(const char *path, struct sim_noise *n, char *err, size_t len);

/* ---- the host's last-level cache (sim_cache.c) ---- */
struct sim_cache;
struct sim_cache *sim_cache_new(double l3, int nhosts);
void sim_cache_free(struct sim_cache *c);
/* A use of buffer key (SIM_KEY_*) of bytes on host: 1 if it is in the L3
 * (its first use, or the distinct bytes the host used since its last one
 * and its own fit), 0 if not; it is the most recent after. */
int sim_cache_touch(struct sim_cache *c, uint32_t host, uint64_t key, uint64_t bytes);
/* The next value of counter key (from 0): a pair's pipe buffer in turn. */
uint64_t sim_cache_next(struct sim_cache *c, uint64_t key);
/* The ns a copy costs beyond the in-cache rate per byte of either of its
 * two buffers that is beyond the L3 (two: another core of the host copies
 * beyond it at the same time). */
double sim_cache_rate(const struct sim_params *p, int two);
#define SIM_KEY_BUF(rank, id) ((uint64_t)(rank) << 16 | (uint64_t)(id))
#define SIM_KEY_PIPE(src, dst, k) (1ULL << 62 | (uint64_t)(src) << 26 | (uint64_t)(dst) << 2 | (uint64_t)(k))
#define SIM_KEY_CURSOR(src, dst) (2ULL << 62 | (uint64_t)(src) << 24 | (uint64_t)(dst))

/* ---- the node segment's lines across cores (sim_segx.c) ---- */
/* Per writer and phase parity, the bytes of its segment data that ranks on
 * other cores than the writer's read: the engine feeds it every rank's
 * synchronisations and segment copies and adds what it returns. */
struct sim_segx;
struct sim_segx *sim_segx_new(int nranks);
void sim_segx_free(struct sim_segx *x);
/* rank arrives at a node segment synchronisation: its phase advances */
void sim_segx_sync(struct sim_segx *x, uint32_t rank);
/* The ns beyond the op's own rate of rank's COMPUTE of kind a on b bytes;
 * other: a's writer runs on another core than rank (for a deposit or a
 * read of segment data; ignored otherwise). */
double sim_segx_ns(struct sim_segx *x, const struct sim_params *p, uint32_t rank, uint32_t a, uint64_t b, int other);
/* The parameters charge anything for segment data across cores. */
static inline int sim_segx_on(const struct sim_params *p)
{
    return p->segx_dep > 0 || p->segx_own > 0 || p->segx_red > 0 || p->segx_far > 0;
}
/* The node segment rank whose data a COMPUTE of kind a deposits or reads, -1 if none. */
static inline int sim_segx_writer(uint32_t a)
{
    return a >= SIM_SEG_DEP ? (int)(a - SIM_SEG_DEP) : a >= SIM_SEG_READ ? (int)((a - SIM_SEG_READ) / 2) : -1;
}

/* ---- the engine (sim_engine.c) ---- */
struct sim_layout {
    int nranks, ppn;           /* node of rank r: r / ppn */
    int host;                  /* ranks per host sharing its cores (0: ppn); validation: all
                                  ranks of a job on this machine, whatever their virtual nodes */
};
struct sim_result {
    double time;               /* last rank's end */
    double mean_end;
    uint64_t events;
    double seconds;            /* CPU time of the run (the machine may be shared) */
    size_t engine_bytes;
    double span;               /* the slowest rank's time from its MARK (0 if none) to its end */
    uint64_t handoffs;         /* oversubscribed: waits that found their request pending (gave the core up) */
    uint64_t switches;         /* oversubscribed: runs that had to get a core back first (a context switch) */
    double turns;              /* oversubscribed, one node: the waiting ranks' turns booked before them (core_turns) */
};
/* Run every rank's program `iters` times; 0, or -1 with a message (deadlock:
 * ranks left waiting). */
int sim_run(const struct sim_progs *t, const struct sim_layout *lay, const struct sim_params *p,
            const struct sim_noise *noise, int iters, struct sim_result *res, char *err, size_t len);

/* ---- commands (sim_main.c, sim_calib.c, sim_validate.c) ---- */
/* The library's own CPU per call of collective coll_id's algorithm algo
 * ("nbc": the non-blocking path): the algorithm's callalgo where given,
 * else its collective's callc where given, else call. */
static inline double sim_call_ns(const struct sim_params *p, int coll_id, const char *algo)
{
    if (algo[0] == 'n' && algo[1] == 'b' && algo[2] == 'c' && !algo[3])
        return p->icall;
    double own = sim_callalgo_ns(p, coll_id, algo);
    if (own >= 0)
        return own;
    int i = sim_callc_index(coll_id);
    return i >= 0 && p->callc[i] >= 0 ? p->callc[i] : p->call;
}
/* One collective (by name; algorithm by name, "auto", "hier" or "hw") on p
 * ranks of ppn per node, no noise, iters calls back to back after a
 * barrier, as rdmach-sim-probe --coll times them (the slowest rank, from
 * when it left the barrier): the predicted time per call. 0 or -1 (err). */
int sim_predict(const char *coll, const char *algo, int p, int ppn, int host, long size, int iters,
                const struct sim_params *prm, double *t_ns, char *err, size_t len);
/* A 2-rank schedule that is no collective ("pingpong", "exchange") over one
 * channel (net: a node each), a core each, iters back to back: ns per
 * iteration. 0 or -1 (err). */
int sim_predict_pair(const char *what, int net, long size, int iters, const struct sim_params *prm, double *t_ns,
                     char *err, size_t len);
int sim_calibrate(int argc, char **argv);
int sim_validate(int argc, char **argv);
/* The directory of the running program (where rdmachrun and rdmach-sim-probe
 * are looked for); qsort's comparison of doubles. */
int sim_exe_dir(char *dir, size_t len);
int sim_cmp_double(const void *a, const void *b);

#endif
