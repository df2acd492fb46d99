/*
 * Start and end: Init, Init_thread, Initialized, Finalize, Finalized, Abort,
 * Query_thread, Is_thread_main; the library's own start and end, shared
 * with the sessions (session.c).
 *
 * Two states: the library's (rch_mpi_state: device, tables, world and self
 * objects; RUNNING while the world model or any session needs it) and the
 * world model's (rch_mpi_world_state: MPI_Init to MPI_Finalize, what
 * MPI_Initialized and MPI_Finalized report). The first of MPI_Init and
 * MPI_Session_init starts the library. The device cannot be restarted once
 * closed (the process manager takes one PMI init per process), so
 * MPI_Finalize leaves it open: with no session open the library is IDLE
 * (every call fails as after the end) until a later MPI_Session_init
 * starts it again; it is closed when the process exits (exit_teardown).
 *
 * Thread support: Init_thread provides the level required, up to
 * MPI_THREAD_MULTIPLE. Up to SERIALIZED nothing is locked: the progress
 * engine and every table are meant for one thread at a time, and the
 * caller's own synchronisation orders our memory accesses. At MULTIPLE the
 * device's global critical section (device/cs.h) is switched on before
 * Init_thread returns: every entry point (RCH_MPI_CS(), mpi_impl.h) holds it
 * until it returns, recursively (user callbacks may call MPI), and blocking
 * calls hand it over between polls (the device's waits never sleep in the
 * kernel at MULTIPLE; they spin and sched_yield). Finalize switches it off;
 * no other thread may be inside MPI by then (MPI's rule). Only MPI_Wtime,
 * MPI_Wtick, MPI_Aint_add and MPI_Aint_diff take no lock: they touch no
 * shared state and cannot fail.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "boot/boot.h"
#include "mpi/dyn.h"
#include "mpi/mpi_impl.h"

int rch_mpi_state = RCH_MPI_NEVER;
int rch_mpi_world_state = RCH_MPI_NEVER;
int rch_mpi_thread_level = MPI_THREAD_SINGLE;
static pthread_t main_thread;
static int sessions_open;         /* MPI_Session_init's not yet finalized */
static pid_t lib_pid;             /* the process that started the library (not a forked child) */

static void exit_teardown(int code, void *arg);

void rch_mpi_thread_raise(int required)
{
    if (required <= rch_mpi_thread_level)
        return;
    rch_mpi_thread_level = required;
    if (required == MPI_THREAD_MULTIPLE)
        rch_dev_cs_enable();
}

int rch_mpi_lib_start(const char *fn, int *argc, char ***argv, int required)
{
    if (rch_mpi_state == RCH_MPI_IDLE)
        rch_mpi_state = RCH_MPI_RUNNING;     /* MPI_Session_init after MPI_Finalize */
    if (rch_mpi_state == RCH_MPI_RUNNING) {
        rch_mpi_thread_raise(required);
        return MPI_SUCCESS;
    }
    if (rch_mpi_state == RCH_MPI_FINALIZED)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER,
                           "%s: the process is exiting: its device is closed, and the process manager "
                           "allows one PMI init per process", fn);
    rdmach_status_t st = rdmach_init(argc, argv);
    if (st != RDMACH_OK)
        return rch_mpi_err(MPI_COMM_NULL, rch_mpi_class_of(st), "%s: start-up failed: %s (%s)", fn,
                           rdmach_strerror(st), rdmach_last_error());
    /* RDMACH_<COLL>, RDMACH_TUNING_FILE: a bad value stops the job here */
    if ((st = rch_coll_init()) != RDMACH_OK)
        return rch_mpi_err(MPI_COMM_NULL, rch_mpi_class_of(st), "%s: %s", fn, rdmach_last_error());
    /* A program built against MPICH that needs a function rdmach lacks stops here. */
    rch_mpi_abi_check();
    rch_mpi_ctx_init();
    rch_mpi_state = RCH_MPI_RUNNING;
    rch_mpi_comm_init();
    rch_mpi_attr_init();
    rch_mpi_type_init();
    main_thread = pthread_self();
    rch_mpi_thread_level = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required;
    rch_mpi_info_init();
    lib_pid = getpid();
    on_exit(exit_teardown, NULL);
    /* Last: from here on other threads may call in. */
    if (rch_mpi_thread_level == MPI_THREAD_MULTIPLE)
        rch_dev_cs_enable();
    return MPI_SUCCESS;
}

/* This process's last use of the device is over: free everything and
 * close the device for good (its queues drain first, rch_dev_finalize). */
static int lib_teardown(const char *fn)
{
    rch_dyn_finalize();
    rch_mpi_comm_finalize();
    rch_mpi_group_finalize();
    rch_mpi_info_finalize();
    rch_mpi_mem_finalize();
    rch_mpi_req_finalize();
    rch_mpi_type_finalize();
    rch_mpi_attr_finalize();
    rch_coll_scratch_release_all();
    rdmach_status_t st = rdmach_finalize();
    rch_mpi_state = RCH_MPI_FINALIZED;
    rch_dev_cs_disable();     /* the lock itself is released on return (RCH_MPI_CS) */
    if (st != RDMACH_OK)
        return rch_mpi_err(MPI_COMM_NULL, rch_mpi_class_of(st), "%s: %s (%s)", fn, rdmach_strerror(st),
                           rdmach_last_error());
    return MPI_SUCCESS;
}

/* No rank tears its channels down while another may still be sending to it:
 * buffered messages leave, then every rank of the job meets. */
static int lib_quiesce(const char *fn)
{
    rch_mpi_bsend_flush();
    rdmach_status_t st = rch_mpi_exchange(&rch_mpi_comm_world, NULL, 0, NULL, NULL);
    if (st != RDMACH_OK)
        return rch_mpi_err(MPI_COMM_WORLD, rch_mpi_class_of(st), "%s: synchronizing with the other ranks failed: %s",
                           fn, rdmach_last_error());
    return MPI_SUCCESS;
}

void rch_mpi_session_opened(void)
{
    sessions_open++;
}

void rch_mpi_session_closed(void)
{
    sessions_open--;
}

/* The device outlives MPI_Finalize and the last MPI_Session_finalize (a
 * session may be initialized again, and rdmach cannot restart the device
 * once closed): it is closed here, at the exit of the process that started
 * it (not a forked child), as a departure, never by a world exchange: after
 * MPI_Finalize, or with sessions only, the other ranks need not take part
 * in this process's end (a session's communicators may span a subset, and
 * a rank may finalize its session and exit while others still run). What
 * the standard says is delivered still is: a send that completed locally
 * left its buffer for our queues, which the device's close drains
 * (rch_dev_finalize) before the channels mark the departure (shm's
 * departed word, the network's BYE). Left IDLE by MPI_Finalize: closed
 * whatever the exit code (a code after MPI_Finalize is only the job's
 * status). Used by a session since: closed at a normal exit (code 0) with
 * the world model not running; a session still open then is the program's
 * error, said once, and the end is still a departure; a failing exit
 * leaves it to the boot layer's exit hook, which ends the job with the
 * code. */
static void exit_teardown(int code, void *arg)
{
    (void)arg;
    if (getpid() != lib_pid)
        return;
    if (rch_mpi_state == RCH_MPI_IDLE) {
        lib_teardown("exit");
        return;
    }
    if (code != 0 || rch_mpi_state != RCH_MPI_RUNNING || rch_mpi_world_state == RCH_MPI_RUNNING ||
        !pthread_equal(main_thread, pthread_self()))
        return;
    if (sessions_open != 0)
        fprintf(stderr, "rdmach: warning: rank %d exits with %d MPI session(s) not finalized "
                "(MPI: every session must be finalized)\n", rch_mpi_comm_world.rank, sessions_open);
    rch_mpi_bsend_flush();
    lib_teardown("exit");
}

static int init_common(const char *fn, int *argc, char ***argv, int required)
{
    if (rch_mpi_world_state != RCH_MPI_NEVER)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: MPI was already %s", fn,
                           rch_mpi_world_state == RCH_MPI_RUNNING ? "initialized"
                                                                  : "finalized (it cannot be restarted)");
    int err = rch_mpi_lib_start(fn, argc, argv, required);
    if (err)
        return err;
    rch_mpi_world_state = RCH_MPI_RUNNING;
    /* a spawned process connects to its parents (dyn_spawn.c) */
    return rch_dyn_init_child();
}

int PMPI_Init(int *argc, char ***argv)
{
    RCH_MPI_CS();
    return init_common("MPI_Init", argc, argv, MPI_THREAD_SINGLE);
}
#pragma weak MPI_Init = PMPI_Init

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    RCH_MPI_CS();
    if (!provided)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Init_thread: argument provided is NULL");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
                           "MPI_Init_thread: invalid thread level %d in argument required (MPI_THREAD_SINGLE .. MULTIPLE)",
                           required);
    int err = init_common("MPI_Init_thread", argc, argv, required);
    if (err == MPI_SUCCESS)
        *provided = rch_mpi_thread_level;
    return err;
}
#pragma weak MPI_Init_thread = PMPI_Init_thread

int PMPI_Initialized(int *flag)
{
    RCH_MPI_CS();
    if (!flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Initialized: argument flag is NULL");
    *flag = rch_mpi_world_state != RCH_MPI_NEVER;    /* MPI: the world model's; stays true after Finalize */
    return MPI_SUCCESS;
}
#pragma weak MPI_Initialized = PMPI_Initialized

int PMPI_Finalized(int *flag)
{
    RCH_MPI_CS();
    if (!flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Finalized: argument flag is NULL");
    *flag = rch_mpi_world_state == RCH_MPI_FINALIZED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Finalized = PMPI_Finalized

int PMPI_Query_thread(int *provided)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Query_thread");
    if (err)
        return err;
    if (!provided)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Query_thread: argument provided is NULL");
    *provided = rch_mpi_thread_level;
    return MPI_SUCCESS;
}
#pragma weak MPI_Query_thread = PMPI_Query_thread

int PMPI_Is_thread_main(int *flag)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Is_thread_main");
    if (err)
        return err;
    if (!flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Is_thread_main: argument flag is NULL");
    *flag = pthread_equal(main_thread, pthread_self()) != 0;
    return MPI_SUCCESS;
}
#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main

int PMPI_Finalize(void)
{
    RCH_MPI_CS();
    if (rch_mpi_world_state != RCH_MPI_RUNNING)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "MPI_Finalize: called %s", rch_mpi_world_state == RCH_MPI_NEVER
                           ? "before MPI_Init" : "after MPI_Finalize");
    int self_rc = rch_mpi_comm_finalize_self();
    if (self_rc != MPI_SUCCESS)
        self_rc = rch_mpi_err_raise(MPI_COMM_SELF, self_rc);
    /* MPI: buffered messages are delivered before Finalize returns;
     * Finalize is collective over world. */
    int err = lib_quiesce("MPI_Finalize");
    if (err)
        return err;
    rch_mpi_world_state = RCH_MPI_FINALIZED;
    /* The device stays for a later session (closed at exit, exit_teardown);
     * with none open, nothing may use it until one is initialized. */
    if (sessions_open == 0)
        rch_mpi_state = RCH_MPI_IDLE;
    return self_rc;
}
#pragma weak MPI_Finalize = PMPI_Finalize

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    RCH_MPI_CS();
    char msg[160];
    snprintf(msg, sizeof(msg), "MPI_Abort(comm 0x%x, errorcode %d) called", (unsigned)comm, errorcode);
    /* what the program printed before reaches the launcher, as exit() would
     * see to (the abort leaves by _exit); the boot layer drains the pipes */
    fflush(NULL);
    if (rch_mpi_state == RCH_MPI_RUNNING)
        rch_boot_abort(errorcode, msg);      /* ends every process of the job */
    fprintf(stderr, "rdmach: %s\n", msg);
    exit(errorcode);
}
#pragma weak MPI_Abort = PMPI_Abort
