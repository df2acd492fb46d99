/*
 * src/mpi internals shared by the binding's files: error reporting, the
 * communicator object, requests and the datatype engine. The MPI layer is a
 * thin binding over src/device (point-to-point) and src/coll (collectives).
 *
 * Handles are MPICH's ints (ABI): a handle is decoded to an object by the
 * lookup functions below, which return NULL for anything invalid. Objects
 * the library creates get MPICH's "direct" handle kind (bits 30-31 = 2) with
 * the object kind in bits 26-29 and a table index in the low 26 bits.
 *
 * Threading: up to MPI_THREAD_MULTIPLE. Every MPI entry point starts with
 * RCH_MPI_CS(): at MULTIPLE it holds the device's global critical section
 * (device/cs.h) until it returns, so nothing below is locked on its own and
 * every table here is reached with the lock held; below MULTIPLE it is one
 * load and an untaken branch. Blocking calls release the lock between polls
 * (the device's waits do it).
 */
#ifndef RCH_MPI_IMPL_H
#define RCH_MPI_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "base/base.h"
#include "coll/coll.h"
#include "device/cs.h"
#include "device/dev.h"

/* Handle layout (MPICH's). */
#define RCH_MPI_HKIND(h)        ((unsigned)(h) >> 30)          /* 1 built-in, 2 direct */
#define RCH_MPI_HOBJ(h)         (((unsigned)(h) >> 26) & 0xfu)
#define RCH_MPI_HINDEX(h)       ((unsigned)(h) & 0x03ffffffu)
#define RCH_MPI_HDIRECT(obj, i) ((int)(0x80000000u | ((unsigned)(obj) << 26) | (unsigned)(i)))
enum { RCH_MPI_OBJ_COMM = 1, RCH_MPI_OBJ_GROUP = 2, RCH_MPI_OBJ_DATATYPE = 3,
       RCH_MPI_OBJ_ERRHANDLER = 5, RCH_MPI_OBJ_OP = 6, RCH_MPI_OBJ_INFO = 7,
       RCH_MPI_OBJ_WIN = 8, RCH_MPI_OBJ_KEYVAL = 9, RCH_MPI_OBJ_REQUEST = 0xb, RCH_MPI_OBJ_SESSION = 0xe };

/* The largest tag (MPI_TAG_UB): tags are int32 on the wire. */
#define RCH_MPI_TAG_UB 0x7fffffff

/* ---- state (mpi/init.c) ---- */
/* IDLE: MPI_Finalize left the device open, unused (init.c): calls fail as
 * after the end, but MPI_Session_init starts the library again. */
enum { RCH_MPI_NEVER = 0, RCH_MPI_RUNNING = 1, RCH_MPI_FINALIZED = 2, RCH_MPI_IDLE = 3 };
extern int rch_mpi_state;             /* the library's (init.c) */
extern int rch_mpi_world_state;       /* the world model's: MPI_Init .. MPI_Finalize */
extern int rch_mpi_thread_level;      /* the level provided (Init_thread, sessions' thread_level) */
/* Start the library if it is not running (the first MPI_Init or
 * MPI_Session_init); raise the thread level to required. An MPI error code,
 * reported on MPI_COMM_NULL, or MPI_SUCCESS. */
int rch_mpi_lib_start(const char *fn, int *argc, char ***argv, int required);
void rch_mpi_thread_raise(int required);
void rch_mpi_session_opened(void);    /* the count of open sessions (init.c) */
void rch_mpi_session_closed(void);

/* ---- the critical section of MPI_THREAD_MULTIPLE (device/cs.h) ----
 * RCH_MPI_CS(); as the first statement of an entry point takes the lock if
 * it is in force, and the cleanup attribute releases it on every return
 * path. The lock is recursive, so an entry point may call another, and a
 * user callback invoked under it may call MPI. */
static inline int rch_mpi_cs_take(void)
{
    if (RCH_UNLIKELY(rch_dev_cs_on)) {
        rch_dev_cs_enter();
        return 1;
    }
    return 0;
}
static inline void rch_mpi_cs_give(const int *held)
{
    if (RCH_UNLIKELY(*held))
        rch_dev_cs_exit();
}
#define RCH_MPI_CS() \
    const int rch_mpi_cs_held_ __attribute__((cleanup(rch_mpi_cs_give), unused)) = rch_mpi_cs_take()

/* ---- errors (mpi/errhandler.c) ----
 * Every MPI call checks its arguments and reports through this: the error
 * class and a message naming the argument ("MPI_Send: invalid rank 9 in
 * argument dest (communicator size 4)"). Invokes the communicator's handler
 * (MPI_ERRORS_ARE_FATAL aborts with the message; MPI_ERRORS_RETURN returns the
 * code) and returns the error code to hand back to the user. comm may be
 * MPI_COMM_NULL for calls with no communicator (world's handler applies).
 *
 * Error codes: class | (slot << 7). The low 7 bits are the class (as in
 * MPICH, so MPI_Error_class is a mask); a non-zero slot names the detailed
 * message in a small ring, which MPI_Error_string returns while it is still
 * there (the class's text after that). */
int rch_mpi_err(MPI_Comm comm, int errclass, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Make an error code (class + message) without invoking any handler: for
 * per-request codes that the caller reports later (MPI_ERR_IN_STATUS). */
int rch_mpi_err_code(int errclass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Invoke comm's error handler on an existing code; returns the code. */
int rch_mpi_err_raise(MPI_Comm comm, int code);
/* Between rch_mpi_err_hold(1) and (0), rch_mpi_err makes its code and
 * returns it unraised: for MPI-layer code run by the progress of a
 * non-blocking operation (building the chunks of a chain), whose error
 * belongs to the call that completes the request (MPI-4.1 9.3), not to
 * whatever call happened to make progress. Nests. */
void rch_mpi_err_hold(int on);
/* The detailed message of code while its ring slot holds it (without a
 * leading "<fn>: ", which the caller's own message names), else its
 * class's text. */
const char *rch_mpi_err_msg(int code, const char *fn);
/* User classes and codes (MPI_Add_error_class/_code) carry this bit, above
 * MPI_ERR_LASTCODE like MPICH's dynamic ones, so that MPI_LASTUSEDCODE, the
 * largest class or code in use, can grow past it. Their layout
 * (errhandler.c): the class bits are 0x7f for a user class (its own
 * class), 0x7e for a code of a user class (whose class its table entry
 * holds: rch_mpi_err_user_class), else the predefined class of the code. */
#define RCH_MPI_ERR_USER 0x40000000
int rch_mpi_err_user_class(int code);   /* MPI_ERR_UNKNOWN if it names none */
static inline int rch_mpi_err_class_of(int code)
{
    int low = code & 0x7f;
    if (code & RCH_MPI_ERR_USER) {
        if (low == 0x7f)
            return code;
        if (low == 0x7e)
            return rch_mpi_err_user_class(code);
    }
    return low;
}
#define RCH_MPI_ERR_CLASS(code) rch_mpi_err_class_of(code)
/* MPI_ERRORS_ABORT's end of the processes of the object `handle` names
 * (err_abort.c); does not return. */
void rch_mpi_abort_scope(int handle, int code, const char *text) __attribute__((noreturn));
/* Invoke handler eh on code for the object `handle` (a session's: the
 * user function gets &handle); returns the code. */
int rch_mpi_err_raise_on(MPI_Errhandler eh, int handle, int code);
/* A device status to an MPI error class. */
int rch_mpi_class_of(rdmach_status_t st);
/* MPI_ERR_OTHER (via world's handler: fatal by default) if MPI is not
 * running; MPI_SUCCESS otherwise. */
int rch_mpi_check_init(const char *fn);
/* Error handler objects made by MPI_Win_create_errhandler are marked, so
 * that communicators refuse them (MPI: a handler serves one kind of object). */
void rch_mpi_errhandler_mark_win(MPI_Errhandler eh);
int rch_mpi_errhandler_is_win(MPI_Errhandler eh);
/* A handler a communicator may take (valid, not a window's). */
int rch_mpi_errhandler_valid(MPI_Errhandler eh);
/* A predefined handler or a live user one, of any kind. */
int rch_mpi_errhandler_exists(MPI_Errhandler eh);
/* MPI_Session_create_errhandler's handlers serve sessions only. */
int rch_mpi_errhandler_is_session(MPI_Errhandler eh);
/* A new user handler (no MPI_Init check: Session_create_errhandler may come
 * before any session); errors reported as call fn_name, whose handler
 * function argument is fn_arg (the standard's name: comm_errhandler_fn...). */
int rch_mpi_errhandler_new(const char *fn_name, const char *fn_arg, MPI_Comm_errhandler_function *fn,
                           int for_session, MPI_Errhandler *errhandler);
static inline int rch_mpi_running(void) { return rch_mpi_state == RCH_MPI_RUNNING; }

/* ---- communicators (mpi/comm.c, comm_create.c, ctxid.c) ---- */
struct rch_mpi_comm {
    MPI_Comm handle;
    int rank, size;
    int *world_of;            /* [size]: world rank of each comm rank */
    uint32_t ctx;             /* point-to-point context id; ctx+1 is for collectives */
    MPI_Errhandler errhandler;
    /* The group point-to-point ranks name: the communicator's own group
     * (peer_size = size, peer_world_of = world_of) for an intracommunicator,
     * the remote group for an intercommunicator (mpi/intercomm.c). */
    int peer_size;
    int *peer_world_of;
    int is_inter;
    /* An intercommunicator's local group as a hidden intracommunicator of
     * its own context pair (the local phases of its collectives); NULL for
     * an intracommunicator. Owned. */
    struct rch_mpi_comm *local;
    struct rch_mpi_topo *topo;    /* process topology (mpi/topo.c), NULL if none; Comm_dup copies it */
    char name[MPI_MAX_OBJECT_NAME];
    /* The collectives' view of this communicator (coll.h), filled at
     * creation: rank, size, world_of, ctx + 1 and the node layout. */
    struct rch_coll_comm coll;
    int *coll_node_of;        /* [size], owned here; coll.node_of points at it */
    struct rch_mpi_attr *attrs;   /* user attributes (mpi/attr.c), a list */
    /* The hardware level MPI_COMM_TYPE_HW_UNGUIDED split at (a static string),
     * NULL if none: Comm_get_info's "mpi_hw_resource_type". */
    const char *hw_level;
    unsigned idup_seq;        /* MPI_Comm_idup calls on it so far: the tag of the next one's messages */
    struct rch_mpi_bpool *bpool;  /* MPI_Comm_attach_buffer's, NULL if none (bsend.c) */
    MPI_Session session;          /* the session it derives from (MPI_SESSION_NULL/0: none) */
    /* An intercommunicator to another job (dyn_connect.c): 1 if the local
     * group comes first in Intercomm_merge when both pass the same high,
     * -1 if the remote one; 0 for the others (ordered by world rank). */
    int dyn_first;
};
struct rch_mpi_topo;
struct rch_mpi_comm *rch_mpi_comm_get(MPI_Comm comm);   /* NULL if invalid */
/* rch_mpi_comm_get with MPI_COMM_WORLD decided inline (comm.c owns the object). */
extern struct rch_mpi_comm rch_mpi_comm_world;
static inline struct rch_mpi_comm *rch_mpi_comm_get_fast(MPI_Comm comm)
{
    if (RCH_LIKELY(comm == MPI_COMM_WORLD))
        return RCH_LIKELY(rch_mpi_state == RCH_MPI_RUNNING) ? &rch_mpi_comm_world : NULL;
    return rch_mpi_comm_get(comm);
}
/* The communicator argument of call fn, MPI checked to be running: the
 * object, or NULL with the error reported and its code in *err. */
struct rch_mpi_comm *rch_mpi_comm_arg(const char *fn, MPI_Comm comm, int *err);
/* Report an invalid communicator argument: MPI_ERR_COMM naming fn and the value. */
int rch_mpi_comm_bad(const char *fn, MPI_Comm comm);
/* Build a communicator of `size` members (world ranks in comm-rank order,
 * taken over by the communicator), my rank `rank`, context id pair ctx.
 * Returns the new object (with a handle) or NULL (out of memory). */
struct rch_mpi_comm *rch_mpi_comm_create(int rank, int size, int *world_of, uint32_t ctx);
void rch_mpi_comm_destroy(struct rch_mpi_comm *c);
void rch_mpi_comm_init(void);         /* world and self */
void rch_mpi_comm_finalize(void);
/* MPI_Finalize's first step: delete MPI_COMM_SELF's attributes (newest
 * first); the first failing delete callback's code, or MPI_SUCCESS. */
int rch_mpi_comm_finalize_self(void);

/* The checks every call making a communicator opens with: MPI is running,
 * comm is valid (*pp its object) and newcomm is not NULL. An MPI error code,
 * already reported, or MPI_SUCCESS. */
int rch_mpi_comm_maker_check(const char *fn, MPI_Comm comm, MPI_Comm *newcomm, struct rch_mpi_comm **pp);

/* The collective creation shared by Comm_dup, Comm_split, Comm_create and the
 * topology constructors (comm_create.c): every member of p contributes
 * (color, key); the members of my color, ordered by (key, parent rank) (in
 * parent order if is_dup), become *newcomm (MPI_COMM_NULL for MPI_UNDEFINED),
 * with p's error handler, and p's attributes copied if is_dup. Returns an MPI
 * error code, already reported on p. */
int rch_mpi_comm_split_common(const char *fn, struct rch_mpi_comm *p, int color, int key, MPI_Comm *newcomm,
                              int is_dup);
/* A split's member: its key and parent rank, ordered by (key, parent rank). */
struct rch_mpi_member {
    int key, prank;
};
int rch_mpi_member_cmp(const void *a, const void *b);
/* The new communicator of a collective creation over parent p: the object
 * (rch_mpi_comm_create, world_of taken over even on failure), context pair
 * ctx taken, p's error handler; MPI_ERR_NO_MEM reported on p as fn. */
int rch_mpi_comm_child(const char *fn, struct rch_mpi_comm *p, int rank, int size, int *world_of, uint32_t ctx,
                       struct rch_mpi_comm **out);
/* What a duplicate c of p inherits (topology, hints, attributes through their
 * copy callbacks); sets *newcomm, or destroys c and reports on p. */
int rch_mpi_comm_dup_extras(struct rch_mpi_comm *p, struct rch_mpi_comm *c, MPI_Comm *newcomm);

/* ---- intercommunicators (mpi/intercomm.c) ----
 * An intercommunicator object: size, rank and world_of describe the local
 * group; peer_size and peer_world_of the remote group; ctx (point-to-point)
 * and ctx + 1 (the collectives' messages between the groups) are mapped to
 * the remote group; `local` is a hidden duplicate of the local group. */
/* Make one (world_of and rworld_of taken over, local too). NULL: out of memory. */
struct rch_mpi_comm *rch_mpi_inter_create(int rank, int size, int *world_of, int rsize, int *rworld_of,
                                          uint32_t ctx, struct rch_mpi_comm *local);
/* Comm_split (and Comm_dup with is_dup, Comm_create) of intercommunicator p:
 * as rch_mpi_comm_split_common. */
int rch_mpi_inter_split(const char *fn, struct rch_mpi_comm *p, int color, int key, MPI_Comm *newcomm, int is_dup);
/* A hidden duplicate of intracommunicator p (errors returned, not raised). */
int rch_mpi_comm_hidden_dup(const char *fn, struct rch_mpi_comm *p, int color, int key, struct rch_mpi_comm **out);
/* Return once every member of both groups has called it. */
rdmach_status_t rch_mpi_inter_sync(struct rch_mpi_comm *c);
/* MPI_ERR_COMM, reported as call fn, if c is an intercommunicator (argument
 * `arg`); MPI_SUCCESS otherwise. */
int rch_mpi_intra_only(const char *fn, struct rch_mpi_comm *c, const char *arg);

/* Context ids come in pairs (ctx for point-to-point, ctx + 1 for collectives):
 * world is 0/1, self 2/3. A new pair is agreed by the members of the parent:
 * each contributes its mask of free pairs, the lowest pair free everywhere is
 * taken. */
#define RCH_MPI_CTX_PAIRS 2048
struct rch_mpi_ctxmask { uint64_t w[RCH_MPI_CTX_PAIRS / 64]; };
void rch_mpi_ctx_init(void);
void rch_mpi_ctx_mine(struct rch_mpi_ctxmask *m);            /* my free pairs */
/* My free pairs and the candidate `cand` if I hold it (`held`): a member's
 * part of a round that holds a candidate before agreeing on it (comm_idup.c,
 * dyn_connect.c). */
void rch_mpi_ctx_mine_holding(struct rch_mpi_ctxmask *m, uint32_t cand, int held);
/* In a round's masks, bit 0 of w[0] (pair 0, MPI_COMM_WORLD's, never free)
 * says "every member held it" once the masks are ANDed. */
#define RCH_MPI_CTX_HELD_BIT ((uint64_t)1)
/* In a blocking creation's round (ctxid.c), bit 1 (pair 0 too) says "every
 * member offered every pair it has free". */
#define RCH_MPI_CTX_FULL_BIT ((uint64_t)2)
/* Pairs from RCH_MPI_CTX_NB_FIRST up are MPI_Comm_idup's (comm_idup.c) and
 * the intercommunicators to other jobs' (dyn_connect.c): their agreements
 * hold a candidate before committing it and run interleaved with any
 * blocking creation (idup's in progress, the other's while other threads
 * run), so the two kinds never choose from the same pairs. */
#define RCH_MPI_CTX_NB_FIRST (RCH_MPI_CTX_PAIRS * 3 / 4)
/* MPI_Comm_idup(_with_info) as fn (hints: the duplicate inherits the
 * parent's Comm_get_info hints). */
int rch_mpi_comm_idup(const char *fn, MPI_Comm comm, int hints, MPI_Comm *newcomm, MPI_Request *request);
/* Lowest blocking-creation pair free in m (after ANDing everyone's): its ctx,
 * or UINT32_MAX if none. */
uint32_t rch_mpi_ctx_pick(const struct rch_mpi_ctxmask *m);
/* The first idup pair free in m from the start'th on (cyclically), or UINT32_MAX. */
uint32_t rch_mpi_ctx_pick_nb(const struct rch_mpi_ctxmask *m, unsigned start);
/* An agreement among threads (ctxid.c, "Threads"): a round contributes the
 * mask begin() sets (this process's free pairs of the ranges it holds, or
 * none: what it holds is returned, 0 for nothing), ANDed with every
 * member's by the exchange; end() then gives the pair agreed, taken here
 * (its ctx), RCH_MPI_CTX_AGAIN when a member held nothing or offered only
 * part of its pairs and none of those was free everywhere (run another
 * round, with round one more), or UINT32_MAX when no pair is free at every
 * member or the exchange failed (exchanged 0). Every begin() needs its
 * end(). key: the parent's context id (with a tag where several creations
 * share a parent): the same on every member. round: 0 for a creation's
 * first. */
#define RCH_MPI_CTX_AGAIN (UINT32_MAX - 1)
int rch_mpi_ctx_round_begin(uint64_t key, int members, int round, struct rch_mpi_ctxmask *m);
uint32_t rch_mpi_ctx_round_end(int holder, uint64_t key, struct rch_mpi_ctxmask *m, int exchanged);
/* Take ctx if it is free here: 1, else 0. */
int rch_mpi_ctx_try_take(uint32_t ctx);
void rch_mpi_ctx_take(uint32_t ctx);
void rch_mpi_ctx_release(uint32_t ctx);
/* Internal tags on a parent's collective context (ctx + 1), well away from
 * the small tags the collectives use. */
#define RCH_MPI_TAG_EXCH_UP   0x7ffffff0
#define RCH_MPI_TAG_EXCH_DOWN 0x7ffffff1
/* MPI_Comm_create_group: the same exchange among the group's members only,
 * on INT32_MIN + the user's tag (comm_group.c), this one for MPI_TAG_UB's. */
#define RCH_MPI_TAG_GRPX_UP   0x7ffffff2
/* MPI_Comm_create_from_group: the same over world's collective context, on a
 * pair of tags from the string tag's hash (session.c), so calls with
 * different string tags never match each other. Below the tags above. */
#define RCH_MPI_TAG_FROMG_BASE 0x7ff00000
#define RCH_MPI_TAG_FROMG_MASK 0x000ffffe
struct rch_mpi_group;
/* The members' part of Comm_create_group (comm_group.c): g's members (the
 * caller one of them, all in p) agree on a context id among themselves on
 * p's collective context with tags tag_up/tag_down and get *newcomm, with
 * error handler eh. MPI error code, reported on p. */
int rch_mpi_comm_from_members(const char *fn, struct rch_mpi_comm *p, const struct rch_mpi_group *g, int tag_up,
                              int tag_down, MPI_Errhandler eh, MPI_Comm *newcomm);
/* Every member contributes `bytes` of `mine`; all[] (size * bytes) receives
 * every member's block in rank order, at every member; with a ctxmask `m`
 * (may be NULL) the masks are ANDed into m at every member as well. A
 * gather to rank 0 and a broadcast along a binomial tree, on the collective
 * context. */
rdmach_status_t rch_mpi_exchange(struct rch_mpi_comm *c, const void *mine, size_t bytes, void *all,
                                 struct rch_mpi_ctxmask *m);

/* ---- requests (mpi/request.c) ----
 * An MPI_Request is an index into a table of entries that never move
 * (chunks), with the entry's generation in the handle's top index bits, so
 * a stale copy of a freed handle is refused even once its entry is reused.
 * Two constant handles stand for requests that completed at once and carry
 * no state (one-sided Rput/Rget that finished at once); every operation a
 * user may cancel or complete twice gets an entry. */
#define RCH_MPI_REQ_DONE_SEND  RCH_MPI_HDIRECT(RCH_MPI_OBJ_REQUEST, 0)
#define RCH_MPI_REQ_DONE_NULL  RCH_MPI_HDIRECT(RCH_MPI_OBJ_REQUEST, 1)
/* A persistent request's arguments (MPI_Send_init & co.), replayed by MPI_Start. */
enum { RCH_MPI_PERSIST_SEND = 1, RCH_MPI_PERSIST_BSEND, RCH_MPI_PERSIST_RECV, RCH_MPI_PERSIST_OBJ };
struct rch_mpi_req;
/* RCH_MPI_PERSIST_OBJ: an operation with state of its own (a persistent
 * collective, a partitioned send or receive). start makes e active (e->dreq
 * a device request completed at the end: the Wait/Test families finish it
 * as any other); release lets go of obj when the request is freed, possibly
 * while it is active (obj then lives until its operation ends). */
struct rch_mpi_persist_ops {
    const char *name;
    int (*start)(const char *fn, void *obj, MPI_Request h, struct rch_mpi_req *e);
    void (*release)(void *obj);
};
struct rch_mpi_persist {
    int op;                       /* RCH_MPI_PERSIST_* */
    const struct rch_mpi_persist_ops *ops;   /* OBJ */
    void *obj;                    /* OBJ */
    int mode;                     /* device send mode (SEND) */
    void *buf;
    int count;
    struct rch_mpi_type *type;    /* retained while the request exists */
    int peer, tag;
};
/* States of a persistent request; an ordinary one is always ACTIVE. */
enum { RCH_MPI_PS_INACTIVE = 0, RCH_MPI_PS_ACTIVE, RCH_MPI_PS_DONE_SEND, RCH_MPI_PS_DONE_NULL };
struct rch_mpi_req {
    struct rch_dev_req *dreq;     /* the device's request; NULL while free, and for a request
                                     that is inactive or completed without one (pstate) */
    int sent_to;                  /* DONE_SEND: the world rank its message left for (-1: none), */
    uint64_t sent_seq;            /* and the message's number there (rch_dev_cancel_sent) */
    unsigned gen;                 /* in the handle (request.c) */
    int buffered;                 /* a buffered send (Ibsend, Bsend_init): complete for MPI at its
                                     start; dreq is kept only for MPI_Cancel, which clears this */
    MPI_Comm comm;                /* whose error handler reports its error */
    int next_free;                /* free list link (index), -1 at the end */
    int in_use;
    struct rch_mpi_persist *persist;  /* NULL: an ordinary request */
    int pstate;                   /* RCH_MPI_PS_* */
    struct rch_mpi_greq *greq;    /* a generalized request's callbacks, else NULL */
};
/* A generalized request (MPI_Grequest_start): dreq is a device GREQ that
 * MPI_Grequest_complete completes; the completion calls query (the status)
 * then free_fn; MPI_Cancel calls cancel. Freed by MPI_Request_free before it
 * is complete, the entry lives on (user_freed) until MPI_Grequest_complete. */
struct rch_mpi_greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    int user_freed;
};
/* user_word[0] of a GREQ that carries a receive's outcome (source, tag,
 * bytes, msg_bytes, cancelled, err): MPI_Isendrecv's (isendrecv.c); the
 * completion calls report it as a receive. */
#define RCH_MPI_DREQ_RECV_STATUS 0x49535256u
/* user_word[0] of a GREQ that failed in the MPI layer (a step of a
 * non-blocking operation that builds MPI objects): user_word[1] is the MPI
 * error code, whose class and message the completion calls report (err
 * alone would turn, say, MPI_ERR_NO_MEM into an internal error). */
#define RCH_MPI_DREQ_MPI_CODE 0x4d434f44u
/* Mark g (not yet complete) as failed with the MPI error code `code`. */
void rch_mpi_dreq_fail(struct rch_dev_req *g, int code);
/* A new handle for a device request (takes ownership of dreq). On exhaustion
 * of memory returns MPI_REQUEST_NULL. */
MPI_Request rch_mpi_req_new(struct rch_dev_req *dreq, MPI_Comm comm);
/* A new handle for an operation that completed at its start: pstate
 * RCH_MPI_PS_DONE_NULL (a receive from MPI_PROC_NULL) or DONE_SEND (a send
 * whose message left as number seq for world rank `world`, -1 if none). */
MPI_Request rch_mpi_req_new_done(int pstate, int world, uint64_t seq, MPI_Comm comm);
/* A send started with rch_mpi_post_send: the handle of its device request,
 * or (none: done at once) a DONE_SEND handle naming its message. */
MPI_Request rch_mpi_req_new_send(struct rch_dev_req *dreq, int world, MPI_Comm comm);
/* The entry of a handle, or NULL (MPI_REQUEST_NULL, the constants, invalid). */
struct rch_mpi_req *rch_mpi_req_get(MPI_Request h);
/* A new inactive persistent request (takes ownership of p). MPI_REQUEST_NULL if out of memory. */
MPI_Request rch_mpi_req_new_persistent(struct rch_mpi_persist *p, MPI_Comm comm);
void rch_mpi_req_finalize(void);
/* MPI_Wait for a blocking call built on its non-blocking form (inside the
 * call's critical section): its errors name fn, the call the user made. */
int rch_mpi_wait_as(const char *fn, MPI_Request *request);

/* Non-contiguous receive: the device fills tmp; on completion the data is
 * unpacked into the user's buffer (rch_mpi_recv_unpack_cb as on_complete). */
struct rch_mpi_unpack {
    void *tmp;
    void *buf;
    int count;
    const struct rch_mpi_type *type;
};
void rch_mpi_recv_unpack_cb(struct rch_dev_req *req);
void rch_mpi_send_free_tmp_cb(struct rch_dev_req *req);   /* frees req->user */

/* ---- status (mpi/status.c) ---- */
static inline void rch_mpi_status_set(MPI_Status *s, int source, int tag, size_t bytes, int cancelled)
{
    s->MPI_SOURCE = source;
    s->MPI_TAG = tag;
    s->count_lo = (int)(uint32_t)bytes;
    s->count_hi_and_cancelled = (int)(((uint64_t)bytes >> 32) << 1) | (cancelled ? 1 : 0);
}
static inline MPI_Count rch_mpi_status_bytes(const MPI_Status *s)
{
    return (MPI_Count)(((uint64_t)(uint32_t)s->count_lo) |
                       ((uint64_t)((unsigned)s->count_hi_and_cancelled >> 1) << 32));
}
/*
 * MPI_ERROR: the calls that complete one operation (Recv, Wait, Test,
 * Probe, Mrecv, ...) return its error and never write the field; only the
 * calls that complete several (Waitall, Testall, Waitsome, Testsome) write
 * it, in every status they fill, and only when they return
 * MPI_ERR_IN_STATUS (MPI-4.1 3.2.5, 3.7.5).
 */
/* The empty status (MPI-4.1 3.7.3: MPI_REQUEST_NULL, an inactive persistent
 * request): source MPI_ANY_SOURCE, tag MPI_ANY_TAG, error MPI_SUCCESS,
 * count 0, not cancelled. */
static inline void rch_mpi_status_empty(MPI_Status *s)
{
    if (s != MPI_STATUS_IGNORE) {
        rch_mpi_status_set(s, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
        s->MPI_ERROR = MPI_SUCCESS;
    }
}
/* The status of a receive or probe from MPI_PROC_NULL (MPI-4.1 3.10):
 * source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0; MPI_ERROR as it was. */
static inline void rch_mpi_status_proc_null(MPI_Status *s)
{
    if (s != MPI_STATUS_IGNORE)
        rch_mpi_status_set(s, MPI_PROC_NULL, MPI_ANY_TAG, 0, 0);
}

/* ---- point-to-point helpers (mpi/pt2pt.c), shared with bsend.c and probe.c ---- */
/* Checks (comm, rank, tag) for a send (is_recv 0) or a receive (1): returns
 * MPI_SUCCESS with *cp set, or the reported error code. */
int rch_mpi_check_peer(const char *fn, MPI_Comm comm, int rank, int tag, int is_recv,
                       struct rch_mpi_comm **cp);
/* Posts a send/receive of (buf, count, type) (arguments already checked),
 * packing or arranging the unpack for non-contiguous types. *dreq is NULL
 * if the send completed at once. Device errors are returned as statuses. */
rdmach_status_t rch_mpi_post_send(const void *buf, int count, const struct rch_mpi_type *t, int dest,
                                  int tag, struct rch_mpi_comm *c, int mode, struct rch_dev_req **dreq);
rdmach_status_t rch_mpi_post_recv(void *buf, int count, const struct rch_mpi_type *t, int source,
                                  int tag, struct rch_mpi_comm *c, struct rch_dev_req **dreq);
/* The same for a message taken by a matched probe (Mrecv/Imrecv): msg is
 * consumed on RDMACH_OK; source and tag are not used. */
rdmach_status_t rch_mpi_post_recv_msg(void *buf, int count, const struct rch_mpi_type *t, int source, int tag,
                                      struct rch_mpi_comm *c, struct rch_dev_msg *msg, struct rch_dev_req **dreq);
/* The (buf, count, datatype) check of a communication call: the datatype
 * object or NULL with *err set to the reported error code. At count 0 the
 * datatype is not checked (rch_mpi_type_of_empty). */
const struct rch_mpi_type *rch_mpi_check_buf(MPI_Comm comm, const char *fn, const void *buf,
                                             int count, MPI_Datatype dt, int *err);
/* Completes a finished device request: status (if not ignored) and the MPI
 * error code (0, or a code made with rch_mpi_err_code, not yet raised). The
 * device request is freed. */
int rch_mpi_req_finish_any(struct rch_dev_req *dreq, MPI_Status *status, const char *fn);
/* Inline: a receive that succeeded (every blocking MPI_Recv's end) is its
 * status and the free; everything else is rch_mpi_req_finish_any. */
static inline int rch_mpi_req_finish(struct rch_dev_req *dreq, MPI_Status *status, const char *fn)
{
    if (RCH_LIKELY(dreq->kind == RCH_DEV_REQ_RECV && dreq->err == RDMACH_OK)) {
        if (status != MPI_STATUS_IGNORE)
            rch_mpi_status_set(status, dreq->source, dreq->tag, dreq->bytes, dreq->cancelled);
        rch_dev_req_free(dreq);
        return MPI_SUCCESS;
    }
    return rch_mpi_req_finish_any(dreq, status, fn);
}

/* Has the device finished r (acquire: its results are visible)? */
static inline int rch_mpi_dreq_done(const struct rch_dev_req *r)
{
    return __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
}
/* A device call failed with st: the MPI error class of st, the message
 * naming fn and the device's reason (pt2pt.c). */
int rch_mpi_dev_error(const char *fn, MPI_Comm comm, rdmach_status_t st);
/* The wait for r failed with st: r is freed, the error reported (pt2pt.c). */
int rch_mpi_wait_failed(const char *fn, MPI_Comm comm, struct rch_dev_req *r, rdmach_status_t st);
/* Wait for a posted request and report its outcome as a blocking call
 * does: status filled (not its MPI_ERROR), the request freed, an error raised
 * on comm. Inline: it is the end of every MPI_Recv. */
static inline __attribute__((always_inline)) int rch_mpi_wait_report(const char *fn, MPI_Comm comm,
                                                                     struct rch_dev_req *r, MPI_Status *status)
{
    if (!rch_mpi_dreq_done(r)) {
        rdmach_status_t st = rch_dev_wait(r);
        if (RCH_UNLIKELY(st != RDMACH_OK))
            return rch_mpi_wait_failed(fn, comm, r, st);
    }
    int code = rch_mpi_req_finish(r, status, fn);
    return RCH_LIKELY(code == MPI_SUCCESS) ? MPI_SUCCESS : rch_mpi_err_raise(comm, code);
}
/* Wait for r (NULL: nothing), free it, and return the wait's or the
 * request's status (internal exchanges: ctxid.c, comm_group.c). */
rdmach_status_t rch_mpi_wait_free(struct rch_dev_req *r);

/* ---- buffered sends (mpi/bsend.c) ----
 * An attached buffer is a pool; the process, each communicator and each
 * session may have one (a slot pointer, NULL if none). A buffered send on a
 * communicator uses its pool, else its session's, else the process's. */
struct rch_mpi_bpool;
/* Wait until every buffered message of every pool has left (Finalize). */
void rch_mpi_bsend_flush(void);
/* Attach (buffer may be MPI_BUFFER_AUTOMATIC) / detach (waits for its
 * messages) the pool in *slot, errors reported on comm as call fn. */
int rch_mpi_bpool_attach(const char *fn, MPI_Comm comm, struct rch_mpi_bpool **slot, void *buffer, MPI_Count size);
int rch_mpi_bpool_detach_c(const char *fn, MPI_Comm comm, struct rch_mpi_bpool **slot, void *buffer_addr,
                           MPI_Count *size, MPI_Count max);
int rch_mpi_bpool_detach(const char *fn, MPI_Comm comm, struct rch_mpi_bpool **slot, void *buffer_addr, int *size);
/* Wait until p's messages have left (p NULL: nothing); MPI_SUCCESS. The
 * nonblocking flush does the same and returns a complete request. */
int rch_mpi_bpool_flush(struct rch_mpi_bpool *p);
int rch_mpi_bpool_iflush(const char *fn, MPI_Comm comm, struct rch_mpi_bpool *p, MPI_Request *request);
/* Flush and free the pool in *slot (a freed communicator, a finalized session). */
void rch_mpi_bpool_drop(struct rch_mpi_bpool **slot);
/* The pool attached to a session (session.c), NULL if none or not a live session. */
struct rch_mpi_bpool *rch_mpi_session_bpool(MPI_Session session);
/* The world ranks of the process set `name` as this process sees it
 * (session.c; mpi://SELF is the caller; built-in names in any case): 1 and
 * *ranks (malloc'd, *n of them), 0 if there is no such set, -1 out of
 * memory. Group_from_session_pset and Comm_split_type's mpi_pset_name. */
int rch_mpi_pset_world_ranks(const char *name, int **ranks, int *n);
/* Copies (buf, count, t) into the attached buffer and starts sending it
 * (arguments already checked; dest is not MPI_PROC_NULL). MPI error code.
 * owned NULL: the buffer keeps the send's device request; else the caller
 * gets it in *owned (NULL: the message left at once) and the buffer
 * watches it by id (Ibsend: the MPI request may be cancelled). */
int rch_mpi_bsend_start(const char *fn, const void *buf, int count, const struct rch_mpi_type *t, int dest,
                        int tag, struct rch_mpi_comm *c, struct rch_dev_req **owned);

/* ---- attributes (mpi/attr_core.c; bindings attr.c, win_obj.c, type_attr.c) ----
 * One keyval table for communicators, windows and datatypes (obj:
 * RCH_MPI_OBJ_COMM, _WIN, _DATATYPE); an object holds a list head (NULL: no
 * attributes). The callbacks of all kinds have the same shape (handles are
 * ints). Codes returned are unreported: a callback's own code, or the class
 * MPI_ERR_NO_MEM / MPI_ERR_KEYVAL; the binding reports them. Callbacks may
 * change the attributes of the object they run for (attr_core.c). */
struct rch_mpi_attr;
typedef int(rch_mpi_attr_copy_fn)(int handle, int keyval, void *extra_state, void *in, void *out, int *flag);
typedef int(rch_mpi_attr_delete_fn)(int handle, int keyval, void *value, void *extra_state);
int rch_mpi_keyval_create(int obj, rch_mpi_attr_copy_fn *copy_fn, rch_mpi_attr_delete_fn *delete_fn,
                          void *extra_state, int *keyval);
/* MPI_ERR_KEYVAL: not one, or freed and no attribute uses it any more (a
 * free while attributes still use it succeeds, a repeated one too). */
int rch_mpi_keyval_free(int obj, int *keyval);
/* The whole of MPI_<Kind>_create_keyval / _free_keyval for kind obj: init
 * and the pointer argument `arg` checked, errors reported as call fn. */
int rch_mpi_keyval_create_call(const char *fn, const char *arg, int obj, rch_mpi_attr_copy_fn *copy_fn,
                               rch_mpi_attr_delete_fn *delete_fn, void *extra_state, int *keyval);
int rch_mpi_keyval_free_call(const char *fn, const char *arg, int obj, int *keyval);
int rch_mpi_keyval_live(int obj, int keyval);       /* 1: a user keyval of kind obj, not freed */
/* 1: a user keyval of kind obj, not freed or still used by an attribute
 * (MPI 4.1 §7.7.2: it still names those attributes for get and delete). */
int rch_mpi_keyval_valid(int obj, int keyval);
/* Set (the old value's delete callback runs first), get (returns the flag),
 * delete one (nothing attached: MPI_SUCCESS); keyval must be live for set,
 * valid for get and delete. type: how the value is set, out_type: for whom
 * it is got (MPIR_Attr_type of attr_lang.h; 0, MPIR_ATTR_PTR, is C). */
int rch_mpi_attr_set(struct rch_mpi_attr **list, int handle, int obj, int keyval, void *value, int type);
int rch_mpi_attr_get(struct rch_mpi_attr *list, int obj, int keyval, void **value, int out_type);
int rch_mpi_attr_delete(struct rch_mpi_attr **list, int handle, int obj, int keyval);
/* Every delete callback, newest attribute first, removing each. With
 * stop_on_error a failing one ends it and its code is returned (it and the
 * older ones stay); without, all go and the first failure's code is returned. */
int rch_mpi_attr_delete_all(struct rch_mpi_attr **list, int handle, int stop_on_error);
void rch_mpi_attr_drop(struct rch_mpi_attr **list);   /* forget them, no callbacks */
/* The copy callbacks into *to (empty), in order; stops at a failing one. */
int rch_mpi_attr_copy(struct rch_mpi_attr *from, int from_handle, struct rch_mpi_attr **to);
void rch_mpi_attr_finalize(void);
void rch_mpi_attr_init(void);          /* the predefined communicator attributes */
void rch_mpi_attr_lastusedcode(int code);   /* MPI_LASTUSEDCODE's value from now on */

/* ---- datatypes (mpi/type_*.c) ----
 * A committed type is described by its size (bytes of data), its extent and
 * bounds, and a flattened list of (offset, length) blocks; a contiguous type
 * has one block, so the fast path copies or sends in place. */
struct rch_mpi_type_block {
    MPI_Aint off;             /* from the buffer pointer */
    size_t len;
};
struct rch_mpi_type {
    MPI_Datatype handle;
    size_t size;              /* bytes of data in one element of this type */
    MPI_Aint lb, ub, extent;  /* ub - lb = extent */
    MPI_Aint true_lb, true_ub;
    int contig;               /* one block at true_lb of `size` bytes, and extent == size */
    int committed;
    int predefined;
    int nblocks;              /* flattened map of one element */
    struct rch_mpi_type_block *blocks;
    int basic;                /* the predefined type of every element if homogeneous, else MPI_DATATYPE_NULL */
    size_t basic_count;       /* predefined elements in one element of this type */
    int refcount;
    char name[MPI_MAX_OBJECT_NAME];
};
struct rch_mpi_type *rch_mpi_type_get(MPI_Datatype dt);  /* NULL if invalid (MPI_DATATYPE_NULL too) */
/* rch_mpi_type_get with the built-in types (MPI_CHAR, MPI_INT...) decided
 * inline: the point-to-point fast paths look one up on every call.
 * rch_mpi_type_builtin[low byte of the handle] is each built-in slot while
 * the types are initialized (type_predef.c), NULL otherwise. */
#define RCH_MPI_TYPE_BUILTIN_TOP 0x4cu   /* top byte of a built-in handle (type_impl.h) */
extern struct rch_mpi_type *rch_mpi_type_builtin[256];
static inline struct rch_mpi_type *rch_mpi_type_get_fast(MPI_Datatype dt)
{
    uint32_t h = (uint32_t)dt;
    if (RCH_LIKELY((h >> 24) == RCH_MPI_TYPE_BUILTIN_TOP)) {
        struct rch_mpi_type *t = rch_mpi_type_builtin[h & 0xffu];
        if (RCH_LIKELY(t != NULL && t->predefined && t->handle == dt))
            return t;
    }
    return rch_mpi_type_get(dt);
}
/* The datatype object of a buffer of count 0, whose datatype is not
 * checked (MPICH's bindings check a point-to-point or collective buffer's
 * datatype only "if (count > 0)"): dt's own if it is valid and committed,
 * else MPI_BYTE's, standing for any (zero elements move zero bytes).
 * Garbage handles are only looked up in the tables (pt2pt.c). */
const struct rch_mpi_type *rch_mpi_type_of_empty(MPI_Datatype dt);
/* Argument check for (buf, count, datatype) as every communication call does:
 * returns MPI_SUCCESS or the error class, with a message naming fn and arg. */
int rch_mpi_type_check_buf(MPI_Comm comm, const char *fn, const void *buf, int count, MPI_Datatype dt);
/* May count of t lie at MPI_BOTTOM (a null buffer)? Only if the type's
 * displacements are absolute addresses: no byte it touches in the first
 * page, which is never mapped (type_pack.c). */
int rch_mpi_type_bottom_ok(const struct rch_mpi_type *t, MPI_Count count);
/* Pack `count` elements into contiguous `out` (which holds count*size bytes). */
void rch_mpi_type_pack(const void *in, int count, const struct rch_mpi_type *t, void *out);
/* Unpack `bytes` (may be less than count*size: truncation) from `in`. */
void rch_mpi_type_unpack(const void *in, size_t bytes, void *out, int count, const struct rch_mpi_type *t);
/* Combining in place (an accumulate into memory mapped here): each of the
 * count elements of t at `user` becomes fn(src, it), element by element of
 * `elem` bytes, src packed in type-map order; `old` (or NULL) receives their
 * values before, packed. Only for maps of whole elements:
 * rch_mpi_type_combines (t's basic type contiguous and elem bytes). fn2d
 * (or NULL): the same operation over blocks apart (rch_coll_op2d_fn), which
 * combines them where they lie; rows (or NULL): over the repetitions of a
 * few elements (rch_coll_oprows_fn), a repetition at a time. */
typedef void (*rch_mpi_combine_fn)(const void *in, void *inout, size_t count, void *arg);
typedef void (*rch_mpi_combine2d_fn)(const void *in, ptrdiff_t istride, void *inout, ptrdiff_t ostride, size_t nblk,
                                     size_t blen);
typedef void (*rch_mpi_combinerows_fn)(const void *in, void *user, ptrdiff_t stride, size_t reps, const ptrdiff_t *off,
                                       int ne);
int rch_mpi_type_combines(const struct rch_mpi_type *t, size_t elem);
void rch_mpi_type_combine(void *user, size_t count, const struct rch_mpi_type *t, const void *src, void *old,
                          rch_mpi_combine_fn fn, rch_mpi_combine2d_fn fn2d, rch_mpi_combinerows_fn rows,
                          size_t elem);
/* MPI_Get_elements for `bytes` of data received as type t (MPI_UNDEFINED if not whole basics). */
MPI_Count rch_mpi_type_elements(const struct rch_mpi_type *t, size_t bytes);
/* The inverse: bytes of the first n basic elements of a message of type t
 * (whole elements, then the type map's first basic elements of the next). */
size_t rch_mpi_type_elements_bytes(const struct rch_mpi_type *t, MPI_Count n);
/* An operation that uses t after its call returns (a receive that unpacks at
 * completion) holds a reference, so MPI_Type_free in between is safe.
 * No-ops for predefined types. (Added by the datatype engine, type_table.c.) */
void rch_mpi_type_retain(struct rch_mpi_type *t);
void rch_mpi_type_release(struct rch_mpi_type *t);
void rch_mpi_type_init(void);
void rch_mpi_type_finalize(void);

/* ---- groups (mpi/group.c) ----
 * An ordered set of processes, as world ranks. MPI_GROUP_EMPTY is a built-in
 * object; others are direct handles into a table whose slots are reused. A
 * group is reference counted so that objects holding one (a window's access
 * group) keep it alive after the user's MPI_Group_free. */
struct rch_mpi_group {
    MPI_Group handle;
    int size;
    int rank;                 /* my index in the group, MPI_UNDEFINED if not a member */
    int *world_of;            /* [size] */
    int refcount;
    MPI_Session session;      /* Group_from_session_pset's session, else 0 */
};
struct rch_mpi_group *rch_mpi_group_get(MPI_Group g);   /* NULL if invalid (MPI_GROUP_NULL too) */
/* A new group of `size` world ranks (world_of taken over; NULL if size is 0),
 * with a handle and one reference. NULL if out of memory (world_of freed). */
struct rch_mpi_group *rch_mpi_group_new(int size, int *world_of);
void rch_mpi_group_retain(struct rch_mpi_group *g);
void rch_mpi_group_release(struct rch_mpi_group *g);   /* frees it at zero */
void rch_mpi_group_finalize(void);
/* A new group (handle in *group) of a copy of the n world ranks: MPI_Comm_group
 * and MPI_Comm_remote_group as call fn on comm. */
int rch_mpi_group_of_ranks(const char *fn, MPI_Comm comm, int n, const int *world_of, MPI_Group *group);

/* ---- process topologies (mpi/topo.c, topo_cart.c, topo_graph.c) ----
 * Whatever the kind, the neighbour lists the neighbourhood collectives use
 * are precomputed in MPI's order: `in` are the ranks this process receives
 * from, `out` those it sends to. Cartesian: for each dimension d, the rank at
 * -1 then the rank at +1 along d (MPI_Cart_shift(d, 1)'s source and dest),
 * MPI_PROC_NULL off a non-periodic edge, in == out. Graph: the neighbours of
 * this rank in edge order, in == out. Distributed graph: as given, with
 * weights (inw/outw NULL when unweighted). */
struct rch_mpi_topo {
    int kind;                 /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    int indegree, outdegree;
    int *in, *out;            /* [indegree], [outdegree] */
    int weighted;             /* MPI_DIST_GRAPH */
    int *inw, *outw;          /* [indegree], [outdegree] or NULL */
    /* MPI_CART */
    int ndims;
    int *dims, *periods, *coords;   /* [ndims]; coords: this rank's */
    /* MPI_GRAPH: the arguments of Graph_create */
    int nnodes, nedges;
    int *index, *edges;       /* [nnodes], [nedges] */
};
struct rch_mpi_topo *rch_mpi_topo_dup(const struct rch_mpi_topo *t);   /* NULL if out of memory */
void rch_mpi_topo_free(struct rch_mpi_topo *t);                       /* NULL is fine */
/* Collective over p: *newcomm, split from p in rank order, with t attached;
 * a rank with in == 0 gets MPI_COMM_NULL. t is freed if it is not attached
 * (in == 0 or an error). */
int rch_mpi_topo_comm(const char *fn, struct rch_mpi_comm *p, int in, struct rch_mpi_topo *t, MPI_Comm *newcomm);
/* The neighbour lists of c's topology; MPI_ERR_TOPOLOGY (reported, naming fn)
 * if c has none. */
int rch_mpi_topo_neighbors(const char *fn, struct rch_mpi_comm *c, int *indegree, const int **in,
                           int *outdegree, const int **out);

/* ---- info objects (mpi/info.c) ----
 * Ordered (key, value) lists. MPI_INFO_ENV is built at MPI_Init and is read-only. */
struct rch_mpi_info;
struct rch_mpi_info *rch_mpi_info_get(MPI_Info info);   /* NULL if invalid (MPI_INFO_NULL too) */
/* The value of key in info (NULL if absent); info may be NULL. */
const char *rch_mpi_info_lookup(const struct rch_mpi_info *info, const char *key);
/* The info calls need no running library, only one not yet closed:
 * MPI_SUCCESS or the reported error (check_init's). */
int rch_mpi_info_usable(const char *fn);
/* Checks an info argument that may be MPI_INFO_NULL: MPI_SUCCESS or the reported error. */
int rch_mpi_info_check(MPI_Comm comm, const char *fn, MPI_Info info);
void rch_mpi_info_init(void);
void rch_mpi_info_finalize(void);

/* ---- memory from MPI_Alloc_mem (mpi/mem.c) ----
 * The region [*base, *base + *len) of Alloc_mem memory containing addr:
 * 1 if found, 0 otherwise (a window over such memory may skip registration). */
int rch_mpi_mem_lookup(const void *addr, void **base, size_t *len);
void rch_mpi_mem_finalize(void);

/* ---- the MPICH ABI (mpi/abi_check.c) ----
 * At MPI_Init: every MPI symbol the program and its libraries reference
 * must be defined (by rdmach): a missing one ends the job as the loader
 * would, naming the symbol, instead of failing later (lazy binding) in the
 * middle of a run. RDMACH_ABI_CHECK=off skips it. */
void rch_mpi_abi_check(void);

#endif
