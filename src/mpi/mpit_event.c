/*
 * MPI_T events (MPI-4.1 15.3.8) and their one source.
 *
 * Two event types, raised by hooks of the device (device/stats.h) that are
 * set only while some registration has a callback, so the device pays
 * nothing otherwise: "unexpected_message", a message arrived before the
 * receive that takes it was posted (the sender's world rank, the source
 * rank and tag in the communicator, the communicator's context id, the
 * size: struct unexp_data below, which MPI_T_event_copy writes as is), and
 * "peer_failed", a peer was declared failed (its world rank).
 *
 * The callback runs inside the progress engine, where it may not call MPI
 * (only MPI_T_event_read/copy/get_timestamp/get_source on its instance and
 * the other MPI_T functions): the context MPI_T_CB_REQUIRE_MPI_RESTRICTED
 * names. The callback registered for the lowest level that covers it
 * (MPI_RESTRICTED, then THREAD_SAFE, then ASYNC_SIGNAL_SAFE) is called; one
 * registered only for MPI_T_CB_REQUIRE_NONE is never called. Events are
 * delivered as they happen, never buffered, so none is ever dropped and a
 * dropped handler, though kept, is never called.
 *
 * The source is CLOCK_MONOTONIC in nanoseconds: ordered, the same clock
 * MPI_Wtime reads.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "device/stats.h"
#include "mpi/mpi_impl.h"
#include "mpi/mpit_impl.h"

struct unexp_data {
    int peer, source, tag;
    unsigned context;
    MPI_Count size;
};

struct fail_data {
    int peer;
};

static const struct {
    const char *name, *desc;
    int cat;
    size_t size;         /* bytes MPI_T_event_copy writes */
    int nelem;
    MPI_Datatype types[5];
    MPI_Aint displs[5];
} events[] = {
    { "unexpected_message",
      "A message arrived before its receive was posted: elements peer (sender's rank in MPI_COMM_WORLD), "
      "source and tag (its envelope in its communicator), context (the communicator's context id), size "
      "(bytes)",
      RCH_MPIT_CAT_DEVICE, sizeof(struct unexp_data), 5,
      { MPI_INT, MPI_INT, MPI_INT, MPI_UNSIGNED, MPI_COUNT },
      { offsetof(struct unexp_data, peer), offsetof(struct unexp_data, source),
        offsetof(struct unexp_data, tag), offsetof(struct unexp_data, context),
        offsetof(struct unexp_data, size) } },
    { "peer_failed",
      "A peer was found dead, disconnected or stopped for longer than RDMACH_PEER_STOP_TIMEOUT: its requests "
      "complete with MPI_ERR_PROC_ABORTED from now on; element peer (its rank in MPI_COMM_WORLD)",
      RCH_MPIT_CAT_DEVICE, sizeof(struct fail_data), 1, { MPI_INT }, { offsetof(struct fail_data, peer) } },
};
enum { EV_UNEXP, EV_FAIL, EV_MAX };
#define NLEVELS 4   /* MPI_T_cb_safety values */

/* A callback may free registrations (its own or others) or call
 * MPI_T_finalize: while callbacks run (`delivering`), a freed registration
 * stays on the list marked `dead`, skipped, and goes when the delivery ends. */
struct MPIR_T_event_registration_s {
    struct MPIR_T_event_registration_s *next;   /* live registrations */
    int event;
    int dead;
    MPI_T_event_cb_function *cb[NLEVELS];
    void *user_data[NLEVELS];
    MPI_T_event_dropped_cb_function *dropped;
};

/* The instance a callback is running for: valid only during the callback. */
struct MPIR_T_event_instance_s {
    int event;
    MPI_Count timestamp;
    const void *data;
};

static struct MPIR_T_event_registration_s *regs;
static MPI_T_event_instance live_instance;
static int delivering;

int rch_mpit_event_count(void)
{
    return EV_MAX;
}

int rch_mpit_event_cat(int e)
{
    return e >= 0 && e < EV_MAX ? events[e].cat : -1;
}

static MPI_Count now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* An info object for an output argument: a new empty one while MPI runs
 * (no hints are used), MPI_INFO_NULL before MPI_Init and after MPI_Finalize. */
static MPI_Info info_out(void)
{
    MPI_Info info = MPI_INFO_NULL;
    if (rch_mpi_running() && PMPI_Info_create(&info) != MPI_SUCCESS)
        info = MPI_INFO_NULL;
    return info;
}

static int info_in_ok(MPI_Info info)
{
    return info == MPI_INFO_NULL || (rch_mpi_running() && rch_mpi_info_get(info) != NULL);
}

/* ---- sources ---- */

int PMPI_T_source_get_num(int *num_sources)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (num_sources == NULL)
        return MPI_T_ERR_INVALID;
    *num_sources = 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_source_get_num = PMPI_T_source_get_num

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                           MPI_Info *info)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    rch_mpit_str(name, name_len, "rdmach_device");
    rch_mpit_str(desc, desc_len, "The progress engine of this process; timestamps are CLOCK_MONOTONIC in ns");
    RCH_MPIT_SET(ordering, MPI_T_SOURCE_ORDERED);
    RCH_MPIT_SET(ticks_per_second, 1000000000);
    RCH_MPIT_SET(max_ticks, INT64_MAX);
    if (info)
        *info = info_out();
    return MPI_SUCCESS;
}
#pragma weak MPI_T_source_get_info = PMPI_T_source_get_info

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (timestamp == NULL)
        return MPI_T_ERR_INVALID;
    *timestamp = now_ns();
    return MPI_SUCCESS;
}
#pragma weak MPI_T_source_get_timestamp = PMPI_T_source_get_timestamp

/* ---- event types ---- */

int PMPI_T_event_get_num(int *num_events)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (num_events == NULL)
        return MPI_T_ERR_INVALID;
    *num_events = EV_MAX;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_get_num = PMPI_T_event_get_num

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements,
                          MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (event_index < 0 || event_index >= EV_MAX)
        return MPI_T_ERR_INVALID_INDEX;
    /* num_elements: in, the arrays' length; out, the event's elements
     * (the arrays get as many as fit). */
    if (num_elements) {
        int n = events[event_index].nelem;
        for (int i = 0; i < n && i < *num_elements; i++) {
            if (array_of_datatypes)
                array_of_datatypes[i] = events[event_index].types[i];
            if (array_of_displacements)
                array_of_displacements[i] = events[event_index].displs[i];
        }
        *num_elements = n;
    }
    rch_mpit_str(name, name_len, events[event_index].name);
    RCH_MPIT_SET(verbosity, MPI_T_VERBOSITY_TUNER_DETAIL);
    RCH_MPIT_SET(enumtype, MPI_T_ENUM_NULL);
    if (info)
        *info = info_out();
    rch_mpit_str(desc, desc_len, events[event_index].desc);
    RCH_MPIT_SET(bind, MPI_T_BIND_NO_OBJECT);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_get_info = PMPI_T_event_get_info

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (name == NULL || event_index == NULL)
        return MPI_T_ERR_INVALID;
    for (int e = 0; e < EV_MAX; e++)
        if (strcmp(events[e].name, name) == 0) {
            *event_index = e;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}
#pragma weak MPI_T_event_get_index = PMPI_T_event_get_index

/* ---- registrations ---- */

static struct MPIR_T_event_registration_s **reg_find(MPI_T_event_registration r)
{
    for (struct MPIR_T_event_registration_s **p = &regs; *p; p = &(*p)->next)
        if (*p == r && r != NULL && !r->dead)
            return p;
    return NULL;
}

static MPI_T_event_cb_function *callback_for(const struct MPIR_T_event_registration_s *r, int *level)
{
    for (int l = MPI_T_CB_REQUIRE_MPI_RESTRICTED; l < NLEVELS; l++)
        if (r->cb[l]) {
            *level = l;
            return r->cb[l];
        }
    return NULL;
}

/* Free the registrations marked dead (none is while callbacks run). */
static void reap(void)
{
    for (struct MPIR_T_event_registration_s **p = &regs; *p;) {
        struct MPIR_T_event_registration_s *r = *p;
        if (r->dead) {
            *p = r->next;
            free(r);
        } else {
            p = &r->next;
        }
    }
}

/* Take a registration out of service: freed now, or by reap after the delivery. */
static void reg_drop(struct MPIR_T_event_registration_s *r)
{
    r->dead = 1;
    if (!delivering)
        reap();
}

/* Run the callbacks of every registration for event `ev`. */
static void deliver(int ev, const void *data)
{
    struct MPIR_T_event_instance_s inst = { ev, now_ns(), data };
    MPI_T_event_instance outer = live_instance;   /* a callback's MPI_T call cannot progress, but be safe */
    live_instance = &inst;
    delivering++;
    for (struct MPIR_T_event_registration_s *r = regs; r; r = r->next) {
        int level;
        MPI_T_event_cb_function *cb = r->event == ev && !r->dead ? callback_for(r, &level) : NULL;
        if (cb)
            cb(&inst, r, (MPI_T_cb_safety)level, r->user_data[level]);
    }
    live_instance = outer;
    if (--delivering == 0)
        reap();
}

static void on_unexpected(int peer, int src, int tag, uint32_t ctx, uint64_t size)
{
    struct unexp_data d = { peer, src, tag, ctx, (MPI_Count)size };
    deliver(EV_UNEXP, &d);
}

static void on_peer_failed(int peer)
{
    struct fail_data d = { peer };
    deliver(EV_FAIL, &d);
}

static int wanted(int ev)
{
    int level;
    for (struct MPIR_T_event_registration_s *r = regs; r; r = r->next)
        if (r->event == ev && !r->dead && callback_for(r, &level))
            return 1;
    return 0;
}

/* The device's hooks are set while a registration has a callback they can call. */
static void hook_update(void)
{
    rch_dev_unexp_hook = wanted(EV_UNEXP) ? on_unexpected : NULL;
    rch_dev_fail_hook = wanted(EV_FAIL) ? on_peer_failed : NULL;
}

void rch_mpit_event_fini(void)
{
    for (struct MPIR_T_event_registration_s *r = regs; r; r = r->next)
        r->dead = 1;
    if (!delivering)
        reap();
    hook_update();
}

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    RCH_MPI_CS();
    (void)obj_handle;   /* bound to no object: ignored */
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (event_index < 0 || event_index >= EV_MAX)
        return MPI_T_ERR_INVALID_INDEX;
    if (event_registration == NULL || !info_in_ok(info))
        return MPI_T_ERR_INVALID;
    struct MPIR_T_event_registration_s *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return MPI_T_ERR_MEMORY;
    r->event = event_index;
    r->next = regs;
    regs = r;
    *event_registration = r;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_handle_alloc = PMPI_T_event_handle_alloc

/* No hints are used: setting checks the arguments, getting returns an empty info. */
int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (reg_find(event_registration) == NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    return info_in_ok(info) ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}
#pragma weak MPI_T_event_handle_set_info = PMPI_T_event_handle_set_info

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (reg_find(event_registration) == NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    if (info_used == NULL)
        return MPI_T_ERR_INVALID;
    *info_used = info_out();
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_handle_get_info = PMPI_T_event_handle_get_info

static int level_ok(MPI_T_cb_safety l)
{
    return (int)l >= MPI_T_CB_REQUIRE_NONE && (int)l < NLEVELS;
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info, void *user_data, MPI_T_event_cb_function *event_cb_function)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (reg_find(event_registration) == NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!level_ok(cb_safety) || !info_in_ok(info))
        return MPI_T_ERR_INVALID;
    /* A NULL function removes the level's callback. */
    event_registration->cb[cb_safety] = event_cb_function;
    event_registration->user_data[cb_safety] = user_data;
    hook_update();
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_register_callback = PMPI_T_event_register_callback

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (reg_find(event_registration) == NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    return level_ok(cb_safety) && info_in_ok(info) ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}
#pragma weak MPI_T_event_callback_set_info = PMPI_T_event_callback_set_info

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info *info_used)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (reg_find(event_registration) == NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!level_ok(cb_safety) || info_used == NULL)
        return MPI_T_ERR_INVALID;
    *info_used = info_out();
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_callback_get_info = PMPI_T_event_callback_get_info

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (reg_find(event_registration) == NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    /* Nothing is buffered or in flight: the registration can go at once. */
    event_registration->dead = 1;
    hook_update();
    if (free_cb_function)
        free_cb_function(event_registration, MPI_T_CB_REQUIRE_MPI_RESTRICTED, user_data);
    reg_drop(event_registration);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_handle_free = PMPI_T_event_handle_free

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    RCH_MPI_CS();
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (reg_find(event_registration) == NULL)
        return MPI_T_ERR_INVALID_HANDLE;
    event_registration->dropped = dropped_cb_function;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_set_dropped_handler = PMPI_T_event_set_dropped_handler

/* ---- instances (inside a callback) ---- */

/* The checks of the instance calls: MPI_SUCCESS or the error. */
static int instance_check(MPI_T_event_instance i, const void *out)
{
    if (!rch_mpit_ready())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (i == NULL || i != live_instance)
        return MPI_T_ERR_INVALID_HANDLE;
    return out ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    int err = instance_check(event_instance, buffer);
    if (err != MPI_SUCCESS)
        return err;
    int e = event_instance->event;
    if (element_index < 0 || element_index >= events[e].nelem)
        return MPI_T_ERR_INVALID_INDEX;
    size_t off = (size_t)events[e].displs[element_index];
    size_t len = events[e].types[element_index] == MPI_COUNT ? sizeof(MPI_Count) : sizeof(int);
    memcpy(buffer, (const char *)event_instance->data + off, len);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_read = PMPI_T_event_read

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    int err = instance_check(event_instance, buffer);
    if (err != MPI_SUCCESS)
        return err;
    memcpy(buffer, event_instance->data, events[event_instance->event].size);
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_copy = PMPI_T_event_copy

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    int err = instance_check(event_instance, event_timestamp);
    if (err != MPI_SUCCESS)
        return err;
    *event_timestamp = event_instance->timestamp;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_get_timestamp = PMPI_T_event_get_timestamp

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    int err = instance_check(event_instance, source_index);
    if (err != MPI_SUCCESS)
        return err;
    *source_index = 0;
    return MPI_SUCCESS;
}
#pragma weak MPI_T_event_get_source = PMPI_T_event_get_source
