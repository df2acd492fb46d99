/*
 * Attribute caching, the part common to communicators, windows and
 * datatypes: one keyval table and the attribute lists the objects hold. The
 * bindings (attr.c for communicators, win_obj.c, type_attr.c) check their
 * arguments, report errors and name the object kind.
 *
 * Keyvals: MPICH's layout, 0xa4000000 | (object kind << 22) | index, so a
 * keyval of one kind is invalid for another. A slot is never reused. MPI
 * 4.1 §7.7.2: freeing a keyval that attributes still use is not erroneous;
 * the actual free happens once those attributes are gone, so until then the
 * keyval keeps its callbacks and may still be named to get or delete the
 * attributes (not to set new ones). Each attribute holds a reference on its
 * keyval; a freed keyval whose last reference goes is dead: any use of it,
 * a free included, is MPI_ERR_KEYVAL. A free of a freed keyval that is not
 * dead yet changes nothing and succeeds (as MPICH, whose test suite frees
 * one keyval from its delete callback and then from the program).
 *
 * Lists hold the newest attribute first: deleting them all goes in the
 * reverse order of their setting (what MPI requires of MPI_COMM_SELF at
 * Finalize). A failing delete callback stops a deletion there: that
 * attribute (and, when deleting all, the older ones) stays, and its code is
 * returned, for MPI makes the free or delete fail with it.
 *
 * Callbacks may call MPI on the same object (nothing in MPI 4.1 §7.7 keeps
 * them from it, and programs do: MPICH's attrdelete): a delete callback may
 * delete or set other attributes of its object, free its keyval, a copy
 * callback may change the list it is copied from. So an
 * attribute whose delete callback runs is marked `deleting` and stays in
 * the list until the callback returns: set and delete no longer see it (a
 * nested delete of it does nothing, a nested set makes a new attribute),
 * get still does (the value is attached until its deletion succeeds). No
 * pointer into a list is kept across a callback but to the marked one; a
 * copy notes what it copies before its first callback.
 *
 * Languages (attr_lang.h, MPI 4.1 §19.3.7): each attribute records how it
 * was set (C pointer, Fortran INTEGER or address-kind integer), which
 * decides what a C getter and the C callbacks see; a keyval created from
 * Fortran has proxies that call its callbacks with the stored value.
 */
#include <stdlib.h>
#include "mpi/mpi_impl.h"
#include "mpi/attr_lang.h"

#define KEYVAL_BASE     0xa4000000u
#define KEYVAL_MASK     0xffc00000u       /* base and kind */
#define KEYVAL_INDEX_MAX (1 << 22)

struct keyval {
    int obj;                              /* RCH_MPI_OBJ_COMM, _WIN or _DATATYPE */
    rch_mpi_attr_copy_fn *copy_fn;        /* NULL: not copied */
    rch_mpi_attr_delete_fn *delete_fn;    /* NULL: nothing to call */
    void *extra_state;
    int freed;                            /* MPI_*_free_keyval was called */
    int refs;                             /* attributes that use it, on any object */
    MPII_Attr_copy_proxy *copy_proxy;     /* NULL: C callbacks (c_copy, c_delete) */
    MPII_Attr_delete_proxy *delete_proxy;
};
static struct keyval *keyvals;
static int nkeyvals, capkeyvals;

struct rch_mpi_attr {
    int index;                            /* keyval slot */
    int deleting;                         /* its delete callback is running */
    MPIR_Attr_type type;                  /* how it was set (attr_lang.h) */
    void *value;                          /* the pointer, or the Fortran integer */
    struct rch_mpi_attr *next;
};

/* The kind field of a keyval handle: MPICH's object kind, but 2 for
 * datatypes (the values rdmach has always given, 0xa4800000 + index). */
static unsigned kind_bits(int obj)
{
    return obj == RCH_MPI_OBJ_DATATYPE ? 2u : (unsigned)obj;
}

static int keyval_make(int obj, int index)
{
    return (int)(KEYVAL_BASE | (kind_bits(obj) << 22) | (unsigned)index);
}

int rch_mpi_keyval_create(int obj, rch_mpi_attr_copy_fn *copy_fn, rch_mpi_attr_delete_fn *delete_fn,
                          void *extra_state, int *keyval)
{
    if (nkeyvals == capkeyvals) {
        int n = capkeyvals ? 2 * capkeyvals : 16;
        struct keyval *p = n <= KEYVAL_INDEX_MAX ? realloc(keyvals, (size_t)n * sizeof(*p)) : NULL;
        if (!p)
            return MPI_ERR_NO_MEM;
        keyvals = p;
        capkeyvals = n;
    }
    keyvals[nkeyvals] = (struct keyval){ obj, copy_fn, delete_fn, extra_state, 0, 0, NULL, NULL };
    *keyval = keyval_make(obj, nkeyvals);
    nkeyvals++;
    return MPI_SUCCESS;
}

/* The slot of a user keyval of kind obj, or -1 (predefined, other kind, garbage). */
static int slot_of(int obj, int keyval)
{
    if (((unsigned)keyval & KEYVAL_MASK) != ((unsigned)keyval_make(obj, 0) & KEYVAL_MASK))
        return -1;
    int i = (int)((unsigned)keyval & ~KEYVAL_MASK);
    return i < nkeyvals && keyvals[i].obj == obj ? i : -1;
}

void MPII_Keyval_set_proxy(int keyval, MPII_Attr_copy_proxy copy_proxy, MPII_Attr_delete_proxy delete_proxy)
{
    RCH_MPI_CS();
    int i = (int)((unsigned)keyval & ~KEYVAL_MASK);   /* a user keyval of any kind, else nothing */
    if (i < nkeyvals && keyval == keyval_make(keyvals[i].obj, i)) {
        keyvals[i].copy_proxy = copy_proxy;
        keyvals[i].delete_proxy = delete_proxy;
    }
}

/* C callbacks: an attribute set from Fortran is passed as the address of
 * its value (here of a copy, as MPICH does), one set from C as its pointer.
 * The copy of a Fortran value is a value too: a callback that hands back
 * the address it was given (MPI_COMM_DUP_FN, or one that changed the value
 * there) copies the value, not the address of the copy, gone on return. */
static int c_copy(MPI_Comm_copy_attr_function *fn, int handle, int keyval, void *extra_state, MPIR_Attr_type type,
                  void *value, void **out, int *flag)
{
    if (!MPII_ATTR_KIND(type))
        return fn(handle, keyval, extra_state, value, out, flag);
    int rc = fn(handle, keyval, extra_state, &value, out, flag);
    if (rc == MPI_SUCCESS && *flag && *out == (void *)&value)
        *out = value;
    return rc;
}

static int c_delete(MPI_Comm_delete_attr_function *fn, int handle, int keyval, MPIR_Attr_type type, void *value,
                    void *extra_state)
{
    return fn(handle, keyval, MPII_ATTR_KIND(type) ? (void *)&value : value, extra_state);
}

/* Freed and no attribute left: the handle names nothing any more. */
static int dead(int i)
{
    return keyvals[i].freed && keyvals[i].refs == 0;
}

int rch_mpi_keyval_live(int obj, int keyval)
{
    int i = slot_of(obj, keyval);
    return i >= 0 && !keyvals[i].freed;
}

int rch_mpi_keyval_valid(int obj, int keyval)
{
    int i = slot_of(obj, keyval);
    return i >= 0 && !dead(i);
}

int rch_mpi_keyval_free(int obj, int *keyval)
{
    int i = slot_of(obj, *keyval);
    if (i < 0 || dead(i))
        return MPI_ERR_KEYVAL;
    keyvals[i].freed = 1;                 /* again while still in use: no change */
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* ---- list entries ---- */

/* The attribute of slot index that set and delete see (none being deleted
 * is), or with being_deleted also one whose deletion runs (get's view). */
static struct rch_mpi_attr *find(struct rch_mpi_attr *list, int index, int being_deleted)
{
    struct rch_mpi_attr *marked = NULL;
    for (; list; list = list->next) {
        if (list->index != index)
            continue;
        if (!list->deleting)
            return list;
        if (being_deleted && !marked)
            marked = list;
    }
    return marked;
}

static struct rch_mpi_attr *attr_new(int index, MPIR_Attr_type type, void *value)
{
    struct rch_mpi_attr *a = malloc(sizeof(*a));
    if (a) {
        *a = (struct rch_mpi_attr){ index, 0, type, value, NULL };
        keyvals[index].refs++;
    }
    return a;
}

/* Take a out of the list and free it: its keyval loses a reference (and
 * dies with the last one if it was freed). */
static void attr_remove(struct rch_mpi_attr **list, struct rch_mpi_attr *a)
{
    while (*list && *list != a)
        list = &(*list)->next;
    if (*list)
        *list = a->next;
    if (a->index < nkeyvals)
        keyvals[a->index].refs--;
    free(a);
}

/* a's delete callback, with a marked so that calls it makes on the same
 * object pass it by. The keyval's fields are read before the call: the
 * callback may create keyvals (moving the table). */
static int run_delete(int handle, struct rch_mpi_attr *a)
{
    const struct keyval k = keyvals[a->index];
    if (!k.delete_fn)
        return MPI_SUCCESS;
    a->deleting = 1;
    int rc = (k.delete_proxy ? k.delete_proxy : c_delete)(k.delete_fn, handle, keyval_make(k.obj, a->index), a->type,
                                                          a->value, k.extra_state);
    a->deleting = 0;
    return rc;
}

/* Delete a: its callback, then its removal. A failing callback leaves it
 * in place when keep_on_error, unless the callback set the keyval anew
 * (the newer attribute replaces it). Returns the callback's code. */
static int delete_one(struct rch_mpi_attr **list, int handle, struct rch_mpi_attr *a, int keep_on_error)
{
    int rc = run_delete(handle, a);
    if (rc == MPI_SUCCESS || !keep_on_error || find(*list, a->index, 0) != a)
        attr_remove(list, a);
    return rc;
}

/* ---- the operations ---- */

int rch_mpi_attr_set(struct rch_mpi_attr **list, int handle, int obj, int keyval, void *value, int type)
{
    int i = slot_of(obj, keyval);
    struct rch_mpi_attr *a = find(*list, i, 0);
    if (a) {
        int rc = run_delete(handle, a);   /* MPI: the old value is deleted first */
        /* a, or a newer attribute if the callback set this keyval itself */
        struct rch_mpi_attr *now = find(*list, i, 0);
        if (now != a)
            attr_remove(list, a);
        if (rc == MPI_SUCCESS) {
            now->value = value;
            now->type = (MPIR_Attr_type)type;
        }
        return rc;
    }
    if (!(a = attr_new(i, (MPIR_Attr_type)type, value)))
        return MPI_ERR_NO_MEM;
    a->next = *list;
    *list = a;
    return MPI_SUCCESS;
}

int rch_mpi_attr_get(struct rch_mpi_attr *list, int obj, int keyval, void **value, int out_type)
{
    struct rch_mpi_attr *a = find(list, slot_of(obj, keyval), 1);
    if (!a)
        return 0;
    if (out_type != MPIR_ATTR_PTR || !MPII_ATTR_KIND(a->type)) {
        *value = a->value;                /* Fortran gets the integer, C its pointer */
    } else {
        /* C, of a value set from Fortran: its address. An INTEGER is kept
         * sign-extended to the pointer's size; a big-endian word has its
         * low-order int last. */
        char *p = (char *)&a->value;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        if (a->type == MPIR_ATTR_INT)
            p += sizeof(void *) - sizeof(MPI_Fint);
#endif
        *value = p;
    }
    return 1;
}

int rch_mpi_attr_delete(struct rch_mpi_attr **list, int handle, int obj, int keyval)
{
    struct rch_mpi_attr *a = find(*list, slot_of(obj, keyval), 0);
    return a ? delete_one(list, handle, a, 1) : MPI_SUCCESS;
}

/* The newest attribute whose deletion is not running already. */
static struct rch_mpi_attr *first_idle(struct rch_mpi_attr *list)
{
    while (list && list->deleting)
        list = list->next;
    return list;
}

int rch_mpi_attr_delete_all(struct rch_mpi_attr **list, int handle, int stop_on_error)
{
    int first = MPI_SUCCESS;
    struct rch_mpi_attr *a;
    /* From the head each time: a callback may have deleted any of the rest. */
    while ((a = first_idle(*list))) {
        int rc = delete_one(list, handle, a, stop_on_error);
        if (rc != MPI_SUCCESS && stop_on_error)
            return rc;
        if (first == MPI_SUCCESS)
            first = rc;
    }
    return first;
}

void rch_mpi_attr_drop(struct rch_mpi_attr **list)
{
    while (*list)
        attr_remove(list, *list);
}

/* What a copy takes from one attribute, noted before any callback runs. */
struct copy_item {
    int index;
    MPIR_Attr_type type;
    void *value;
};

/* The copy callbacks of items, the copies appended to *to; stops at a
 * failing callback. A keyval dead by now (freed, and an earlier callback
 * deleted its last attribute) is passed by. */
static int copy_items(const struct copy_item *items, size_t n, int from_handle, struct rch_mpi_attr **to)
{
    while (*to)
        to = &(*to)->next;
    for (size_t j = 0; j < n; j++) {
        int index = items[j].index;
        if (dead(index))
            continue;
        const struct keyval k = keyvals[index];   /* a callback may move the table */
        void *out = NULL;
        int flag = 0;
        int rc = (k.copy_proxy ? k.copy_proxy : c_copy)(k.copy_fn, from_handle, keyval_make(k.obj, index),
                                                        k.extra_state, items[j].type, items[j].value, &out, &flag);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!flag)
            continue;
        struct rch_mpi_attr *c = attr_new(index, items[j].type, out);   /* set as the original was */
        if (!c)
            return MPI_ERR_NO_MEM;
        *to = c;
        to = &c->next;
    }
    return MPI_SUCCESS;
}

int rch_mpi_attr_copy(struct rch_mpi_attr *from, int from_handle, struct rch_mpi_attr **to)
{
    /* A copy callback may call MPI on the old object and change its list
     * (which this function cannot follow: it has the list, not its head's
     * place), so the attributes to copy are noted first, in order. */
    size_t n = 0;
    for (struct rch_mpi_attr *a = from; a; a = a->next)
        n += keyvals[a->index].copy_fn && !a->deleting;   /* the NULL copy function: not copied */
    if (n == 0)
        return MPI_SUCCESS;
    struct copy_item *items = malloc(n * sizeof(*items));
    if (!items)
        return MPI_ERR_NO_MEM;
    n = 0;
    for (struct rch_mpi_attr *a = from; a; a = a->next)
        if (keyvals[a->index].copy_fn && !a->deleting)
            items[n++] = (struct copy_item){ a->index, a->type, a->value };
    int rc = copy_items(items, n, from_handle, to);
    free(items);
    return rc;
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
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory for another keyval (%d exist)", fn,
                           nkeyvals);
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
                           "freed already (and no attribute uses it any more)", fn, (unsigned)kv, arg);
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
