/*
 * Attribute caching, the part common to communicators and windows: one
 * keyval table and the attribute lists the objects hold. The bindings
 * (attr.c for communicators, win_obj.c) check their arguments, report
 * errors and name the object kind. (Datatypes keep a table of their own,
 * type_attr.c, of the same shape.)
 *
 * Keyvals: MPICH's layout, 0xa4000000 | (object kind << 22) | index, so a
 * keyval of one kind is invalid for another. A slot is never reused: a
 * freed keyval that attributes still use keeps its callbacks (MPI: freeing
 * only marks it), and a second free of the same value is an error.
 *
 * Lists hold the newest attribute first: deleting them all goes in the
 * reverse order of their setting (what MPI requires of MPI_COMM_SELF at
 * Finalize). A failing delete callback stops a deletion there: that
 * attribute (and, when deleting all, the older ones) stays, and its code is
 * returned, for MPI makes the free or delete fail with it.
 */
#include <stdlib.h>
#include "mpi/mpi_impl.h"

#define KEYVAL_BASE     0xa4000000u
#define KEYVAL_MASK     0xffc00000u       /* base and kind */
#define KEYVAL_MAKE(obj, i) ((int)(KEYVAL_BASE | ((unsigned)(obj) << 22) | (unsigned)(i)))

struct keyval {
    int obj;                              /* RCH_MPI_OBJ_COMM or _WIN */
    rch_mpi_attr_copy_fn *copy_fn;        /* NULL: not copied */
    rch_mpi_attr_delete_fn *delete_fn;    /* NULL: nothing to call */
    void *extra_state;
    int freed;
};
static struct keyval *keyvals;
static int nkeyvals, capkeyvals;

struct rch_mpi_attr {
    int index;                            /* keyval slot */
    void *value;
    struct rch_mpi_attr *next;
};

int rch_mpi_keyval_create(int obj, rch_mpi_attr_copy_fn *copy_fn, rch_mpi_attr_delete_fn *delete_fn,
                          void *extra_state, int *keyval)
{
    if (nkeyvals == capkeyvals) {
        int n = capkeyvals ? 2 * capkeyvals : 16;
        struct keyval *p = n < (1 << 22) ? realloc(keyvals, (size_t)n * sizeof(*p)) : NULL;
        if (!p)
            return MPI_ERR_NO_MEM;
        keyvals = p;
        capkeyvals = n;
    }
    keyvals[nkeyvals] = (struct keyval){ obj, copy_fn, delete_fn, extra_state, 0 };
    *keyval = KEYVAL_MAKE(obj, nkeyvals);
    nkeyvals++;
    return MPI_SUCCESS;
}

/* The slot of a user keyval of kind obj, or -1 (predefined, other kind, garbage). */
static int slot_of(int obj, int keyval)
{
    if (((unsigned)keyval & KEYVAL_MASK) != ((unsigned)KEYVAL_MAKE(obj, 0) & KEYVAL_MASK))
        return -1;
    int i = (int)((unsigned)keyval & ~KEYVAL_MASK);
    return i < nkeyvals && keyvals[i].obj == obj ? i : -1;
}

int rch_mpi_keyval_live(int obj, int keyval)
{
    int i = slot_of(obj, keyval);
    return i >= 0 && !keyvals[i].freed;
}

int rch_mpi_keyval_free(int obj, int *keyval)
{
    int i = slot_of(obj, *keyval);
    if (i < 0 || keyvals[i].freed)
        return MPI_ERR_KEYVAL;
    keyvals[i].freed = 1;
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static struct rch_mpi_attr **find(struct rch_mpi_attr **list, int index)
{
    while (*list && (*list)->index != index)
        list = &(*list)->next;
    return list;
}

static int run_delete(int handle, const struct rch_mpi_attr *a)
{
    const struct keyval *k = &keyvals[a->index];
    return k->delete_fn ? k->delete_fn(handle, KEYVAL_MAKE(k->obj, a->index), a->value, k->extra_state)
                        : MPI_SUCCESS;
}

int rch_mpi_attr_set(struct rch_mpi_attr **list, int handle, int obj, int keyval, void *value)
{
    int i = slot_of(obj, keyval);
    struct rch_mpi_attr **pp = find(list, i);
    if (*pp) {
        int rc = run_delete(handle, *pp);     /* MPI: the old value is deleted first */
        if (rc == MPI_SUCCESS)
            (*pp)->value = value;
        return rc;
    }
    struct rch_mpi_attr *a = malloc(sizeof(*a));
    if (!a)
        return MPI_ERR_NO_MEM;
    *a = (struct rch_mpi_attr){ i, value, *list };
    *list = a;
    return MPI_SUCCESS;
}

int rch_mpi_attr_get(struct rch_mpi_attr *list, int obj, int keyval, void **value)
{
    struct rch_mpi_attr *a = *find(&list, slot_of(obj, keyval));
    if (a)
        *value = a->value;
    return a != NULL;
}

int rch_mpi_attr_delete(struct rch_mpi_attr **list, int handle, int obj, int keyval)
{
    struct rch_mpi_attr **pp = find(list, slot_of(obj, keyval));
    if (!*pp)
        return MPI_SUCCESS;
    int rc = run_delete(handle, *pp);
    if (rc == MPI_SUCCESS) {
        struct rch_mpi_attr *a = *pp;
        *pp = a->next;
        free(a);
    }
    return rc;
}

int rch_mpi_attr_delete_all(struct rch_mpi_attr **list, int handle, int stop_on_error)
{
    int first = MPI_SUCCESS;
    while (*list) {
        struct rch_mpi_attr *a = *list;
        int rc = run_delete(handle, a);
        if (rc != MPI_SUCCESS && stop_on_error)
            return rc;
        if (first == MPI_SUCCESS)
            first = rc;
        *list = a->next;
        free(a);
    }
    return first;
}

void rch_mpi_attr_drop(struct rch_mpi_attr **list)
{
    while (*list) {
        struct rch_mpi_attr *a = *list;
        *list = a->next;
        free(a);
    }
}

int rch_mpi_attr_copy(struct rch_mpi_attr *from, int from_handle, struct rch_mpi_attr **to)
{
    struct rch_mpi_attr **tail = to;
    for (struct rch_mpi_attr *a = from; a; a = a->next) {
        const struct keyval *k = &keyvals[a->index];
        if (!k->copy_fn)
            continue;                     /* the NULL copy function: not copied */
        void *out = NULL;
        int flag = 0;
        int rc = k->copy_fn(from_handle, KEYVAL_MAKE(k->obj, a->index), k->extra_state, a->value, &out, &flag);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!flag)
            continue;
        struct rch_mpi_attr *n = malloc(sizeof(*n));
        if (!n)
            return MPI_ERR_NO_MEM;
        *n = (struct rch_mpi_attr){ a->index, out, NULL };
        *tail = n;
        tail = &n->next;
    }
    return MPI_SUCCESS;
}

int rch_mpi_keyval_create_call(const char *fn, const char *arg, int obj, rch_mpi_attr_copy_fn *copy_fn,
                               rch_mpi_attr_delete_fn *delete_fn, void *extra_state, int *keyval)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!keyval)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn, arg);
    if (rch_mpi_keyval_create(obj, copy_fn, delete_fn, extra_state, keyval))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return MPI_SUCCESS;
}

int rch_mpi_keyval_free_call(const char *fn, const char *arg, int obj, int *keyval)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!keyval)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn, arg);
    int kv = *keyval;
    if (rch_mpi_keyval_free(obj, keyval))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_KEYVAL,
                           "%s: 0x%x in argument %s is not a keyval of this kind of object, is predefined or was "
                           "freed already", fn, (unsigned)kv, arg);
    return MPI_SUCCESS;
}

void rch_mpi_attr_finalize(void)
{
    free(keyvals);
    keyvals = NULL;
    nkeyvals = capkeyvals = 0;
}

/* MPI_DUP_FN, MPI_COMM_DUP_FN, MPI_TYPE_DUP_FN, MPI_WIN_DUP_FN: the
 * attribute is shared by the copy. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}
