/*
 * Start and end: Init, Init_thread, Initialized, Finalize, Finalized, Abort,
 * Query_thread, Is_thread_main.
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
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

int rch_mpi_state = RCH_MPI_NEVER;
int rch_mpi_thread_level = MPI_THREAD_SINGLE;
static pthread_t main_thread;

static int init_common(const char *fn, int *argc, char ***argv, int required)
{
    if (rch_mpi_state != RCH_MPI_NEVER)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_OTHER, "%s: MPI was already %s", fn,
                           rch_mpi_state == RCH_MPI_RUNNING ? "initialized" : "finalized (it cannot be restarted)");
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
    /* Last: from here on other threads may call in. */
    if (rch_mpi_thread_level == MPI_THREAD_MULTIPLE)
        rch_dev_cs_enable();
    return MPI_SUCCESS;
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
    *flag = rch_mpi_state != RCH_MPI_NEVER;    /* MPI: stays true after Finalize */
    return MPI_SUCCESS;
}
#pragma weak MPI_Initialized = PMPI_Initialized

int PMPI_Finalized(int *flag)
{
    RCH_MPI_CS();
    if (!flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Finalized: argument flag is NULL");
    *flag = rch_mpi_state == RCH_MPI_FINALIZED;
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
    int err = rch_mpi_check_init("MPI_Finalize");
    if (err)
        return err;
    int self_rc = rch_mpi_comm_finalize_self();
    if (self_rc != MPI_SUCCESS)
        self_rc = rch_mpi_err_raise(MPI_COMM_SELF, self_rc);
    /* MPI: buffered messages are delivered before Finalize returns. */
    rch_mpi_bsend_flush();
    /* Finalize is collective over world: no rank tears its channels down
     * while another may still be sending to it. */
    struct rch_mpi_comm *w = rch_mpi_comm_get(MPI_COMM_WORLD);
    rdmach_status_t st = rch_mpi_exchange(w, NULL, 0, NULL, NULL);
    if (st != RDMACH_OK)
        return rch_mpi_err(MPI_COMM_WORLD, rch_mpi_class_of(st), "MPI_Finalize: synchronizing with the other ranks failed: %s",
                           rdmach_last_error());
    rch_mpi_comm_finalize();
    rch_mpi_group_finalize();
    rch_mpi_info_finalize();
    rch_mpi_mem_finalize();
    rch_mpi_req_finalize();
    rch_mpi_type_finalize();
    rch_mpi_attr_finalize();
    st = rdmach_finalize();
    rch_mpi_state = RCH_MPI_FINALIZED;
    rch_dev_cs_disable();     /* the lock itself is released on return (RCH_MPI_CS) */
    if (st != RDMACH_OK)
        return rch_mpi_err(MPI_COMM_NULL, rch_mpi_class_of(st), "MPI_Finalize: %s (%s)", rdmach_strerror(st),
                           rdmach_last_error());
    return self_rc;
}
#pragma weak MPI_Finalize = PMPI_Finalize

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    RCH_MPI_CS();
    char msg[160];
    snprintf(msg, sizeof(msg), "MPI_Abort(comm 0x%x, errorcode %d) called", (unsigned)comm, errorcode);
    if (rch_mpi_state == RCH_MPI_RUNNING)
        rch_boot_abort(errorcode, msg);      /* ends every process of the job */
    fprintf(stderr, "rdmach: %s\n", msg);
    exit(errorcode);
}
#pragma weak MPI_Abort = PMPI_Abort
