/*
 * Communicator attributes, the binding (the lists and keyvals: attr_core.c):
 * the predefined keys (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
 * MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM), user keyvals with their
 * copy (Comm_dup) and delete (Comm_free, Comm_delete_attr, Comm_set_attr of
 * a new value, Finalize for MPI_COMM_SELF) callbacks; MPI-1's Attr_* and
 * Keyval_* names map onto the same calls. A failing callback's code is the
 * call's error, raised on the communicator.
 */
#include <stdlib.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"
#include "mpi/attr_lang.h"

/* Values of the predefined attributes (the C binding returns their addresses).
 * MPI_HOST: no host process. MPI_IO: every process can do I/O. */
static int attr_tag_ub = RCH_MPI_TAG_UB;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;
static int attr_wtime_is_global = 0;
static int attr_universe_size;
static int attr_lastusedcode = MPI_ERR_LASTCODE;   /* follows MPI_Add/Remove_error_class/_code */
static int attr_appnum;            /* the process manager's; none (-1): the attribute is not set */

/* 1 if keyval is a predefined key: *flag whether it is set, *value its address. */
static int predefined(int keyval, void **value, int *flag)
{
    *flag = 1;
    switch (keyval) {
    case MPI_TAG_UB:          *value = &attr_tag_ub; return 1;
    case MPI_HOST:            *value = &attr_host; return 1;
    case MPI_IO:              *value = &attr_io; return 1;
    case MPI_WTIME_IS_GLOBAL: *value = &attr_wtime_is_global; return 1;
    case MPI_UNIVERSE_SIZE:   *value = &attr_universe_size; return 1;
    case MPI_LASTUSEDCODE:    *value = &attr_lastusedcode; return 1;
    case MPI_APPNUM:          *value = &attr_appnum; *flag = attr_appnum >= 0; return 1;
    }
    return 0;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn,
                            int *comm_keyval, void *extra_state)
{
    RCH_MPI_CS();
    return rch_mpi_keyval_create_call("MPI_Comm_create_keyval", "comm_keyval", RCH_MPI_OBJ_COMM,
                                      copy_fn, delete_fn, extra_state, comm_keyval);
}
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    RCH_MPI_CS();
    return rch_mpi_keyval_create_call("MPI_Keyval_create", "keyval", RCH_MPI_OBJ_COMM, copy_fn, delete_fn,
                                      extra_state, keyval);
}
#pragma weak MPI_Keyval_create = PMPI_Keyval_create

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    RCH_MPI_CS();
    return rch_mpi_keyval_free_call("MPI_Comm_free_keyval", "comm_keyval", RCH_MPI_OBJ_COMM, comm_keyval);
}
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval

int PMPI_Keyval_free(int *keyval)
{
    RCH_MPI_CS();
    return rch_mpi_keyval_free_call("MPI_Keyval_free", "keyval", RCH_MPI_OBJ_COMM, keyval);
}
#pragma weak MPI_Keyval_free = PMPI_Keyval_free

/* The calls by the name the program used (the MPI-1 Attr_* take their
 * keyval as "keyval"), which the error messages give. */
struct attr_call {
    const char *fn, *keyval_arg;
};

static const struct attr_call set_call = { "MPI_Comm_set_attr", "comm_keyval" };
static const struct attr_call put_call = { "MPI_Attr_put", "keyval" };
static const struct attr_call get_call = { "MPI_Comm_get_attr", "comm_keyval" };
static const struct attr_call attr_get_call = { "MPI_Attr_get", "keyval" };
static const struct attr_call delete_call = { "MPI_Comm_delete_attr", "comm_keyval" };
static const struct attr_call attr_delete_call = { "MPI_Attr_delete", "keyval" };

/* Set needs a keyval not freed; get and delete also take a freed one that
 * attributes still use (MPI 4.1 §7.7.2: the program deletes those). */
static const char not_live[] = "is not a live user communicator keyval (predefined attributes cannot be changed, "
                               "a freed keyval cannot be set)";
static const char not_valid[] = "is not a user communicator keyval (or was freed and no attribute uses it any more)";

static int bad_keyval(const struct attr_call *a, MPI_Comm comm, int keyval, const char *why)
{
    return rch_mpi_err(comm, MPI_ERR_KEYVAL, "%s: 0x%x in argument %s %s", a->fn, (unsigned)keyval, a->keyval_arg,
                       why);
}

/* A code from the attribute lists: the callback's own, or a class. */
static int raise_code(const char *fn, MPI_Comm comm, int rc)
{
    if (rc == MPI_ERR_NO_MEM)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return rch_mpi_err_raise(comm, rc);
}

static int attr_set(const struct attr_call *a, MPI_Comm comm, int comm_keyval, void *attribute_val, int type)
{
    int err;
    struct rch_mpi_comm *c = rch_mpi_comm_arg(a->fn, comm, &err);
    if (!c)
        return err;
    if (!rch_mpi_keyval_live(RCH_MPI_OBJ_COMM, comm_keyval))
        return bad_keyval(a, comm, comm_keyval, not_live);
    int rc = rch_mpi_attr_set(&c->attrs, comm, RCH_MPI_OBJ_COMM, comm_keyval, attribute_val, type);
    return rc ? raise_code(a->fn, comm, rc) : MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    RCH_MPI_CS();
    return attr_set(&set_call, comm, comm_keyval, attribute_val, MPIR_ATTR_PTR);
}
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    RCH_MPI_CS();
    return attr_set(&put_call, comm, keyval, attribute_val, MPIR_ATTR_PTR);
}
#pragma weak MPI_Attr_put = PMPI_Attr_put

/* From Fortran (attr_lang.h): MPI_ATTR_PUT sets an INTEGER. */
int MPII_Comm_set_attr(MPI_Comm comm, int keyval, void *value, MPIR_Attr_type type)
{
    RCH_MPI_CS();
    return attr_set(type == MPIR_ATTR_INT ? &put_call : &set_call, comm, keyval, value, type);
}

static int attr_get(const struct attr_call *a, MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag,
                    int out_type)
{
    const char *fn = a->fn;
    int err;
    struct rch_mpi_comm *c = rch_mpi_comm_arg(fn, comm, &err);
    if (!c)
        return err;
    if (!attribute_val || !flag)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !attribute_val ? "attribute_val" : "flag");
    void *v;
    if (predefined(comm_keyval, &v, flag)) {
        if (*flag)
            *(void **)attribute_val = v;
        return MPI_SUCCESS;
    }
    if (!rch_mpi_keyval_valid(RCH_MPI_OBJ_COMM, comm_keyval))
        return bad_keyval(a, comm, comm_keyval, not_valid);
    *flag = rch_mpi_attr_get(c->attrs, RCH_MPI_OBJ_COMM, comm_keyval, attribute_val, out_type);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    RCH_MPI_CS();
    return attr_get(&get_call, comm, comm_keyval, attribute_val, flag, MPIR_ATTR_PTR);
}
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    RCH_MPI_CS();
    return attr_get(&attr_get_call, comm, keyval, attribute_val, flag, MPIR_ATTR_PTR);
}
#pragma weak MPI_Attr_get = PMPI_Attr_get

/* For Fortran (attr_lang.h): MPI_ATTR_GET asks for an INTEGER. */
int MPII_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag, MPIR_Attr_type out_type)
{
    RCH_MPI_CS();
    return attr_get(out_type == MPIR_ATTR_INT ? &attr_get_call : &get_call, comm, keyval, value, flag, out_type);
}

static int attr_delete(const struct attr_call *a, MPI_Comm comm, int comm_keyval)
{
    int err;
    struct rch_mpi_comm *c = rch_mpi_comm_arg(a->fn, comm, &err);
    if (!c)
        return err;
    if (!rch_mpi_keyval_valid(RCH_MPI_OBJ_COMM, comm_keyval))
        return bad_keyval(a, comm, comm_keyval, not_valid);
    int rc = rch_mpi_attr_delete(&c->attrs, comm, RCH_MPI_OBJ_COMM, comm_keyval);
    return rc ? raise_code(a->fn, comm, rc) : MPI_SUCCESS;
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    RCH_MPI_CS();
    return attr_delete(&delete_call, comm, comm_keyval);
}
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    RCH_MPI_CS();
    return attr_delete(&attr_delete_call, comm, keyval);
}
#pragma weak MPI_Attr_delete = PMPI_Attr_delete

void rch_mpi_attr_lastusedcode(int code)
{
    attr_lastusedcode = code;
}

void rch_mpi_attr_init(void)
{
    /* the launcher's universe (PMI-1 get_universe_size), at least the job */
    int u = rch_boot_universe_size();
    attr_universe_size = u > rch_boot.size ? u : rch_boot.size;
    attr_appnum = rch_boot.appnum;
}
