/*
 * Communicator attributes: the predefined keys (MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM) and
 * user keyvals with their copy (on Comm_dup) and delete (on Comm_free,
 * Comm_delete_attr, Finalize for MPI_COMM_SELF) callbacks; MPI-1's Attr_* and
 * Keyval_* names map onto the same calls.
 *
 * A keyval slot is never reused, so a freed keyval that is still attached to
 * a communicator keeps its callbacks (MPI: freeing marks it for deletion).
 *
 * A communicator's list holds the newest attribute first: deleting them all
 * goes in the reverse order of their setting, which MPI requires of
 * MPI_COMM_SELF at Finalize. A failing delete callback stops the deletion
 * there (that attribute and the older ones stay) and its code is returned:
 * MPI makes Comm_free, Comm_delete_attr and Comm_set_attr fail with it.
 */
#include <stdlib.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

#define KEYVAL_USER(i) ((int)(0xa4400000u | (unsigned)(i)))   /* direct keyval, for comms */

struct keyval {
    MPI_Comm_copy_attr_function *copy_fn;
    MPI_Comm_delete_attr_function *delete_fn;
    void *extra_state;
    int freed;
};
static struct keyval *keyvals;
static int nkeyvals, capkeyvals;

struct rch_mpi_attr {
    int keyval_index;
    void *value;
    struct rch_mpi_attr *next;
};

/* Values of the predefined attributes (the C binding returns their addresses). */
static int attr_tag_ub = RCH_MPI_TAG_UB;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;      /* every process can do I/O */
static int attr_wtime_is_global = 0;
static int attr_universe_size;
static int attr_lastusedcode = MPI_ERR_LASTCODE;   /* no user error codes (MPI_Add_error_code) */
static int attr_appnum = 0;

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn, MPI_Comm_delete_attr_function *delete_fn,
                            int *comm_keyval, void *extra_state)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_create_keyval");
    if (err)
        return err;
    if (!comm_keyval)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Comm_create_keyval: argument comm_keyval is NULL");
    if (nkeyvals == capkeyvals) {
        int n = capkeyvals ? capkeyvals * 2 : 16;
        struct keyval *p = realloc(keyvals, (size_t)n * sizeof(*p));
        if (!p)
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "MPI_Comm_create_keyval: out of memory");
        keyvals = p;
        capkeyvals = n;
    }
    keyvals[nkeyvals] = (struct keyval){ copy_fn, delete_fn, extra_state, 0 };
    *comm_keyval = KEYVAL_USER(nkeyvals);
    nkeyvals++;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    RCH_MPI_CS();
    return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}
#pragma weak MPI_Keyval_create = PMPI_Keyval_create

/* Index of a user keyval, -1 if not one (predefined keys are not). */
static int user_index(int keyval)
{
    if ((unsigned)keyval < 0xa4400000u || (unsigned)keyval >= 0xa4400000u + (unsigned)nkeyvals)
        return -1;
    return (int)((unsigned)keyval - 0xa4400000u);
}

static int predefined(int keyval, void **value)
{
    switch (keyval) {
    case MPI_TAG_UB:          *value = &attr_tag_ub; return 1;
    case MPI_HOST:            *value = &attr_host; return 1;
    case MPI_IO:              *value = &attr_io; return 1;
    case MPI_WTIME_IS_GLOBAL: *value = &attr_wtime_is_global; return 1;
    case MPI_UNIVERSE_SIZE:   *value = &attr_universe_size; return 1;
    case MPI_LASTUSEDCODE:    *value = &attr_lastusedcode; return 1;
    case MPI_APPNUM:          *value = &attr_appnum; return 1;
    }
    return 0;
}

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_free_keyval");
    if (err)
        return err;
    if (!comm_keyval)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Comm_free_keyval: argument comm_keyval is NULL");
    int i = user_index(*comm_keyval);
    if (i < 0 || keyvals[i].freed)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_KEYVAL,
                           "MPI_Comm_free_keyval: invalid or predefined keyval 0x%x", (unsigned)*comm_keyval);
    keyvals[i].freed = 1;
    *comm_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval

int PMPI_Keyval_free(int *keyval)
{
    RCH_MPI_CS();
    return PMPI_Comm_free_keyval(keyval);
}
#pragma weak MPI_Keyval_free = PMPI_Keyval_free

static struct rch_mpi_attr **find(struct rch_mpi_comm *c, int index)
{
    struct rch_mpi_attr **pp = &c->attrs;
    while (*pp && (*pp)->keyval_index != index)
        pp = &(*pp)->next;
    return pp;
}

/* Runs the delete callback of an attribute; returns its MPI code. */
static int run_delete(struct rch_mpi_comm *c, struct rch_mpi_attr *a)
{
    struct keyval *k = &keyvals[a->keyval_index];
    if (!k->delete_fn)
        return MPI_SUCCESS;
    return k->delete_fn(c->handle, KEYVAL_USER(a->keyval_index), a->value, k->extra_state);
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_set_attr");
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad("MPI_Comm_set_attr", comm);
    int i = user_index(comm_keyval);
    if (i < 0 || keyvals[i].freed)
        return rch_mpi_err(comm, MPI_ERR_KEYVAL, "MPI_Comm_set_attr: invalid or predefined keyval 0x%x",
                           (unsigned)comm_keyval);
    struct rch_mpi_attr **pp = find(c, i);
    if (*pp) {
        int rc = run_delete(c, *pp);
        if (rc != MPI_SUCCESS)
            return rch_mpi_err_raise(comm, rc);
        (*pp)->value = attribute_val;
        return MPI_SUCCESS;
    }
    struct rch_mpi_attr *a = malloc(sizeof(*a));
    if (!a)
        return rch_mpi_err(comm, MPI_ERR_NO_MEM, "MPI_Comm_set_attr: out of memory");
    *a = (struct rch_mpi_attr){ i, attribute_val, c->attrs };
    c->attrs = a;                 /* newest first */
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    RCH_MPI_CS();
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}
#pragma weak MPI_Attr_put = PMPI_Attr_put

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_get_attr");
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad("MPI_Comm_get_attr", comm);
    if (!attribute_val || !flag)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_attr: argument %s is NULL",
                           !attribute_val ? "attribute_val" : "flag");
    void *v;
    if (predefined(comm_keyval, &v)) {
        *(void **)attribute_val = v;
        *flag = 1;
        return MPI_SUCCESS;
    }
    int i = user_index(comm_keyval);
    if (i < 0)
        return rch_mpi_err(comm, MPI_ERR_KEYVAL, "MPI_Comm_get_attr: invalid keyval 0x%x", (unsigned)comm_keyval);
    struct rch_mpi_attr *a = *find(c, i);
    *flag = a != NULL;
    if (a)
        *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    RCH_MPI_CS();
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
#pragma weak MPI_Attr_get = PMPI_Attr_get

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_delete_attr");
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad("MPI_Comm_delete_attr", comm);
    int i = user_index(comm_keyval);
    if (i < 0 || keyvals[i].freed)
        return rch_mpi_err(comm, MPI_ERR_KEYVAL, "MPI_Comm_delete_attr: invalid or predefined keyval 0x%x",
                           (unsigned)comm_keyval);
    struct rch_mpi_attr **pp = find(c, i);
    if (!*pp)
        return MPI_SUCCESS;       /* nothing attached: nothing to delete (as MPICH) */
    int rc = run_delete(c, *pp);
    if (rc != MPI_SUCCESS)
        return rch_mpi_err_raise(comm, rc);
    struct rch_mpi_attr *a = *pp;
    *pp = a->next;
    free(a);
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    RCH_MPI_CS();
    return PMPI_Comm_delete_attr(comm, keyval);
}
#pragma weak MPI_Attr_delete = PMPI_Attr_delete

int rch_mpi_attr_comm_free(struct rch_mpi_comm *c)
{
    while (c->attrs) {
        struct rch_mpi_attr *a = c->attrs;
        int rc = run_delete(c, a);
        if (rc != MPI_SUCCESS)
            return rc;
        c->attrs = a->next;
        free(a);
    }
    return MPI_SUCCESS;
}

void rch_mpi_attr_comm_drop(struct rch_mpi_comm *c)
{
    while (c->attrs) {
        struct rch_mpi_attr *a = c->attrs;
        c->attrs = a->next;
        free(a);
    }
}

int rch_mpi_attr_comm_copy(struct rch_mpi_comm *from, struct rch_mpi_comm *to)
{
    struct rch_mpi_attr **tail = &to->attrs;
    for (struct rch_mpi_attr *a = from->attrs; a; a = a->next) {
        struct keyval *k = &keyvals[a->keyval_index];
        if (!k->copy_fn)
            continue;              /* MPI_COMM_NULL_COPY_FN */
        void *out = NULL;
        int flag = 0;
        int rc = k->copy_fn(from->handle, KEYVAL_USER(a->keyval_index), k->extra_state, a->value, &out, &flag);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!flag)
            continue;
        struct rch_mpi_attr *n = malloc(sizeof(*n));
        if (!n)
            return rch_mpi_err_code(MPI_ERR_NO_MEM, "MPI_Comm_dup: out of memory copying attributes");
        *n = (struct rch_mpi_attr){ a->keyval_index, out, NULL };
        *tail = n;
        tail = &n->next;
    }
    return MPI_SUCCESS;
}

void rch_mpi_attr_init(void)
{
    attr_universe_size = rch_boot.size;
}

/* MPI_DUP_FN / MPI_COMM_DUP_FN: the attribute is shared by the copy. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}
