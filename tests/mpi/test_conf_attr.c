/*
 * Attribute caching by the letter of MPI 4.0 7.7 and 11.2: the copy
 * callback on Comm_dup/Type_dup (flag 0: not copied; an error: the call
 * fails with that code and newcomm is MPI_COMM_NULL), the delete callback on
 * free, delete and replacement (an error makes the call fail and the
 * object stay), a keyval freed while in use keeps working for the objects
 * that have it (get, delete, copy: MPI 4.1 §7.7.2, the program deletes
 * those attributes) and another free of it changes nothing until its last
 * attribute is gone, after which the stale handle is MPI_ERR_KEYVAL, delete
 * callbacks that delete other attributes of their object (on delete_attr,
 * set_attr, free, and MPI_COMM_SELF at Finalize) or free their own keyval,
 * keyvals of one object kind are invalid for another, the predefined
 * attributes of MPI_COMM_WORLD and MPI_COMM_SELF (flag and value) and of
 * windows, and MPI_COMM_SELF's attributes deleted first at MPI_Finalize in
 * the reverse order of their setting (11.2.4), while MPI is still usable.
 *
 * argv[1] "finalize_error": a delete callback on MPI_COMM_SELF fails, and
 * MPI_Finalize must return its code. argv[1] "appnum=N": this process is
 * of application N of an MPMD launch (MPI_APPNUM; 0 otherwise, the
 * process manager's number for a single application). Any number of ranks.
 */
#include "mpi_test.h"

#define MY_ERR_CLASS MPI_ERR_INTERN     /* what the failing callbacks return */

static int size, rank, expect_appnum;
static int fail_copy, fail_delete;      /* make the callbacks fail */
static int copies, deletes;
static intptr_t last_deleted;

static int copy_fn(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv, (void)extra;
    copies++;
    if (fail_copy)
        return MY_ERR_CLASS;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int nocopy_fn(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)kv, (void)extra;
    if (fail_delete)
        return MY_ERR_CLASS;
    deletes++;
    last_deleted = (intptr_t)val;
    return MPI_SUCCESS;
}

static void comm_attributes(void)
{
    int kv, kv_nocopy;
    MPI_Comm a, b;
    MPI_OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &kv, NULL));
    MPI_OK(MPI_Comm_create_keyval(nocopy_fn, delete_fn, &kv_nocopy, NULL));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_set_attr(a, kv, (void *)(intptr_t)100));
    MPI_OK(MPI_Comm_set_attr(a, kv_nocopy, (void *)(intptr_t)7));
    /* dup: kv copied as value + 1, kv_nocopy not */
    MPI_OK(MPI_Comm_dup(a, &b));
    void *v;
    int flag;
    MPI_OK(MPI_Comm_get_attr(b, kv, &v, &flag));
    CHECK(flag && (intptr_t)v == 101, "dup's copied attribute: flag %d value %ld", flag, (long)(intptr_t)v);
    MPI_OK(MPI_Comm_get_attr(b, kv_nocopy, &v, &flag));
    CHECK(!flag, "an attribute whose copy callback set flag 0 was copied");
    /* replacing a value deletes the old one */
    deletes = 0;
    MPI_OK(MPI_Comm_set_attr(b, kv, (void *)(intptr_t)200));
    CHECK(deletes == 1 && last_deleted == 101, "set over a value: %d deletes, last %ld", deletes, (long)last_deleted);
    /* a failing delete makes Comm_delete_attr fail with its code; the attribute stays */
    fail_delete = 1;
    int rc = MPI_Comm_delete_attr(b, kv);
    CHECK(mt_class(rc) == MY_ERR_CLASS, "Comm_delete_attr with a failing callback: class %d", mt_class(rc));
    MPI_OK(MPI_Comm_get_attr(b, kv, &v, &flag));
    CHECK(flag && (intptr_t)v == 200, "the attribute is gone after a failed delete");
    rc = MPI_Comm_set_attr(b, kv, (void *)(intptr_t)300);
    CHECK(mt_class(rc) == MY_ERR_CLASS, "Comm_set_attr over a value whose delete fails: class %d", mt_class(rc));
    /* ... and Comm_free fail, the communicator still usable */
    MPI_Comm keep = b;
    rc = MPI_Comm_free(&b);
    CHECK(mt_class(rc) == MY_ERR_CLASS, "Comm_free with a failing delete callback: class %d", mt_class(rc));
    int sz;
    MPI_OK(MPI_Comm_size(keep, &sz));
    CHECK(b == keep && sz == size, "the communicator is gone after a failed Comm_free");
    fail_delete = 0;
    deletes = 0;
    /* what a failed free leaves attached the standard does not say (rdmach:
     * everything, so the delete runs now; MPICH 4.0.2: nothing) */
    MPI_OK(MPI_Comm_free(&b));
    CHECK(deletes <= 1 && b == MPI_COMM_NULL, "Comm_free: %d deletes", deletes);
    /* deleting an attribute not there (valid keyval) is not an error */
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_OK(MPI_Comm_delete_attr(c, kv));
    MPI_OK(MPI_Comm_free(&c));
    /* a failing copy fails Comm_dup with its code and MPI_COMM_NULL */
    fail_copy = 1;
    c = MPI_COMM_WORLD;
    rc = MPI_Comm_dup(a, &c);
    CHECK(mt_class(rc) == MY_ERR_CLASS && c == MPI_COMM_NULL, "Comm_dup with a failing copy: class %d, newcomm 0x%x",
          mt_class(rc), (unsigned)c);
    fail_copy = 0;
    /* freeing a keyval in use: the attribute lives on, its callbacks still run */
    int kv_saved = kv;
    MPI_OK(MPI_Comm_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "Comm_free_keyval left 0x%x", (unsigned)kv);
    copies = 0;
    MPI_OK(MPI_Comm_dup(a, &b));
    CHECK(copies == 1, "copy callback of a freed keyval ran %d times on dup", copies);
    deletes = 0;
    MPI_OK(MPI_Comm_free(&b));
    MPI_OK(MPI_Comm_free(&a));
    CHECK(deletes == 3, "delete callbacks on the frees: %d, expected 3 (101, 100, 7)", deletes);
    /* a freed keyval cannot be set, nor freed again */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK(mt_class(MPI_Comm_set_attr(a, kv_saved, NULL)) == MPI_ERR_KEYVAL, "set_attr with a freed keyval");
    CHECK(mt_class(MPI_Comm_free_keyval(&kv_saved)) == MPI_ERR_KEYVAL, "a second Comm_free_keyval");
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Comm_free_keyval(&kv_nocopy));
    /* predefined keyvals cannot be set, deleted or freed */
    int tag_ub = MPI_TAG_UB;
    CHECK(mt_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL)) == MPI_ERR_KEYVAL, "set MPI_TAG_UB");
    CHECK(mt_class(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB)) == MPI_ERR_KEYVAL, "delete MPI_TAG_UB");
    CHECK(mt_class(MPI_Comm_free_keyval(&tag_ub)) == MPI_ERR_KEYVAL, "free MPI_TAG_UB");
    int inv = MPI_KEYVAL_INVALID;
    CHECK(mt_class(MPI_Comm_get_attr(MPI_COMM_WORLD, inv, &v, &flag)) == MPI_ERR_KEYVAL, "get MPI_KEYVAL_INVALID");
    /* MPI-1 names are the same calls */
    int k1;
    MPI_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k1, NULL));
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, k1, (void *)(intptr_t)5));
    MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, k1, &v, &flag));
    CHECK(flag && (intptr_t)v == 5, "Attr_get");
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));       /* MPI_NULL_COPY_FN: not copied */
    MPI_OK(MPI_Attr_get(a, k1, &v, &flag));
    CHECK(!flag, "MPI_NULL_COPY_FN copied the attribute");
    MPI_OK(MPI_Comm_free(&a));
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, k1));
    MPI_OK(MPI_Keyval_free(&k1));
}

static void predefined(MPI_Comm comm, const char *name)
{
    void *v;
    int flag;
    MPI_OK(MPI_Comm_get_attr(comm, MPI_TAG_UB, &v, &flag));
    CHECK(flag && *(int *)v >= 32767, "%s MPI_TAG_UB: flag %d value %d (at least 32767)", name, flag,
          flag ? *(int *)v : 0);
    MPI_OK(MPI_Comm_get_attr(comm, MPI_HOST, &v, &flag));
    CHECK(flag && (*(int *)v == MPI_PROC_NULL || (*(int *)v >= 0 && *(int *)v < size)), "%s MPI_HOST", name);
    MPI_OK(MPI_Comm_get_attr(comm, MPI_IO, &v, &flag));
    int csize;
    MPI_OK(MPI_Comm_size(comm, &csize));
    int io = flag ? *(int *)v : -12345;
    CHECK(flag && (io == MPI_ANY_SOURCE || io == MPI_PROC_NULL || (io >= 0 && io < csize)),
          "%s MPI_IO: flag %d value %d (a rank of the communicator, MPI_ANY_SOURCE or MPI_PROC_NULL)", name, flag, io);
    MPI_OK(MPI_Comm_get_attr(comm, MPI_WTIME_IS_GLOBAL, &v, &flag));
    CHECK(!flag || *(int *)v == 0 || *(int *)v == 1, "%s MPI_WTIME_IS_GLOBAL is not a boolean", name);
    MPI_OK(MPI_Comm_get_attr(comm, MPI_UNIVERSE_SIZE, &v, &flag));
    CHECK(!flag || *(int *)v >= size, "%s MPI_UNIVERSE_SIZE %d below the world's size", name, *(int *)v);
    MPI_OK(MPI_Comm_get_attr(comm, MPI_LASTUSEDCODE, &v, &flag));
    CHECK(flag && *(int *)v >= MPI_ERR_LASTCODE, "%s MPI_LASTUSEDCODE: flag %d value %d (at least MPI_ERR_LASTCODE)",
          name, flag, flag ? *(int *)v : 0);
    MPI_OK(MPI_Comm_get_attr(comm, MPI_APPNUM, &v, &flag));
    CHECK(flag && *(int *)v == expect_appnum, "%s MPI_APPNUM: flag %d value %d, expected %d", name, flag,
          flag ? *(int *)v : -1, expect_appnum);
}

static void type_attributes(void)
{
    int kv;
    MPI_Datatype t, d;
    MPI_OK(MPI_Type_create_keyval((MPI_Type_copy_attr_function *)copy_fn, (MPI_Type_delete_attr_function *)delete_fn,
                                  &kv, NULL));
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    MPI_OK(MPI_Type_set_attr(t, kv, (void *)(intptr_t)40));
    MPI_OK(MPI_Type_dup(t, &d));
    void *v;
    int flag;
    MPI_OK(MPI_Type_get_attr(d, kv, &v, &flag));
    CHECK(flag && (intptr_t)v == 41, "Type_dup's copied attribute: flag %d value %ld", flag, (long)(intptr_t)v);
    fail_copy = 1;
    MPI_Datatype e = MPI_INT;
    int rc = MPI_Type_dup(t, &e);
    CHECK(mt_class(rc) == MY_ERR_CLASS && e == MPI_DATATYPE_NULL, "Type_dup with a failing copy: class %d",
          mt_class(rc));
    fail_copy = 0;
    fail_delete = 1;
    rc = MPI_Type_free(&d);
    CHECK(mt_class(rc) == MY_ERR_CLASS && d != MPI_DATATYPE_NULL, "Type_free with a failing delete: class %d",
          mt_class(rc));
    fail_delete = 0;
    deletes = 0;
    MPI_OK(MPI_Type_delete_attr(d, kv));
    CHECK(deletes == 1 && last_deleted == 41, "Type_delete_attr: %d deletes", deletes);
    MPI_OK(MPI_Type_get_attr(d, kv, &v, &flag));
    CHECK(!flag, "an attribute after Type_delete_attr");
    MPI_OK(MPI_Type_free(&d));
    deletes = 0;
    MPI_OK(MPI_Type_free(&t));
    CHECK(deletes == 1 && last_deleted == 40, "Type_free ran %d delete callbacks", deletes);
    /* predefined datatypes carry attributes too */
    MPI_OK(MPI_Type_set_attr(MPI_DOUBLE, kv, (void *)(intptr_t)9));
    MPI_OK(MPI_Type_get_attr(MPI_DOUBLE, kv, &v, &flag));
    CHECK(flag && (intptr_t)v == 9, "attribute on MPI_DOUBLE");
    MPI_OK(MPI_Type_delete_attr(MPI_DOUBLE, kv));
    /* a keyval of another kind is invalid */
    int ckv;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckv, NULL));
    CHECK(mt_class(MPI_Type_set_attr(MPI_INT, ckv, NULL)) == MPI_ERR_KEYVAL, "a communicator keyval on a type");
    CHECK(mt_class(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, NULL)) == MPI_ERR_KEYVAL, "a type keyval on a comm");
    MPI_OK(MPI_Comm_free_keyval(&ckv));
    int saved = kv;
    MPI_OK(MPI_Type_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID && mt_class(MPI_Type_free_keyval(&saved)) == MPI_ERR_KEYVAL,
          "Type_free_keyval twice");
}

static void win_attributes(void)
{
    int kv, buf[4];
    MPI_Win w;
    MPI_OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MPI_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    void *v;
    int flag;
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_BASE, &v, &flag));
    CHECK(flag && v == buf, "MPI_WIN_BASE %p, expected %p", v, (void *)buf);
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_SIZE, &v, &flag));
    CHECK(flag && *(MPI_Aint *)v == (MPI_Aint)sizeof(buf), "MPI_WIN_SIZE %ld", (long)*(MPI_Aint *)v);
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &v, &flag));
    CHECK(flag && *(int *)v == (int)sizeof(int), "MPI_WIN_DISP_UNIT %d", *(int *)v);
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    CHECK(flag && *(int *)v == MPI_WIN_FLAVOR_CREATE, "MPI_WIN_CREATE_FLAVOR %d", *(int *)v);
    MPI_OK(MPI_Win_get_attr(w, MPI_WIN_MODEL, &v, &flag));
    CHECK(flag && (*(int *)v == MPI_WIN_UNIFIED || *(int *)v == MPI_WIN_SEPARATE), "MPI_WIN_MODEL %d", *(int *)v);
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, (MPI_Win_delete_attr_function *)delete_fn, &kv, NULL));
    MPI_OK(MPI_Win_set_attr(w, kv, (void *)(intptr_t)70));
    fail_delete = 1;
    int rc = MPI_Win_delete_attr(w, kv);
    CHECK(mt_class(rc) == MY_ERR_CLASS, "Win_delete_attr with a failing callback: class %d", mt_class(rc));
    fail_delete = 0;
    int saved = kv, again = kv;
    MPI_OK(MPI_Win_free_keyval(&kv));
    /* still used by w's attribute, so not freed yet: another free of it
     * changes nothing (as MPICH) but the variable */
    MPI_OK(MPI_Win_free_keyval(&again));
    CHECK(again == MPI_KEYVAL_INVALID, "a second Win_free_keyval left 0x%x", (unsigned)again);
    MPI_OK(MPI_Win_get_attr(w, saved, &v, &flag));
    CHECK(flag && (intptr_t)v == 70, "Win_get_attr with a freed keyval still in use: flag %d", flag);
    CHECK(mt_class(MPI_Win_set_attr(w, saved, NULL)) == MPI_ERR_KEYVAL, "Win_set_attr with a freed keyval");
    deletes = 0;
    MPI_OK(MPI_Win_free(&w));
    CHECK(deletes == 1 && last_deleted == 70, "Win_free ran %d delete callbacks (freed keyval still attached)",
          deletes);
    /* its last attribute gone, the keyval is freed: the stale handle is invalid */
    mt_expect_error(MPI_Win_free_keyval(&saved), MPI_ERR_KEYVAL, "win_keyval",
                    "Win_free_keyval of a freed keyval no attribute uses");
}

/* ---- delete callbacks that delete other attributes of their object ----
 * Nothing in MPI 4.1 §7.7 keeps a callback from calling MPI on the object
 * it runs for. Three keyvals per kind; the middle one's delete callback
 * deletes the other two attributes of the same object (as a program
 * tearing down related state does). Each callback must run exactly once,
 * whatever the order the attributes were set in. */
static int chain_kv[3], chain_runs[3], chain_fail;

static void chain_count(void *extra)
{
    chain_runs[(intptr_t)extra]++;
}

static int chain_comm_delete(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)kv, (void)val;
    chain_count(extra);
    if ((intptr_t)extra == 1) {
        MPI_OK(MPI_Comm_delete_attr(c, chain_kv[0]));
        MPI_OK(MPI_Comm_delete_attr(c, chain_kv[2]));
    }
    return (intptr_t)extra == 1 && chain_fail ? MY_ERR_CLASS : MPI_SUCCESS;
}

static int chain_type_delete(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)kv, (void)val;
    chain_count(extra);
    for (int k = 0; k < 3 && (intptr_t)extra == 1; k += 2) {
        void *v;
        int flag;
        /* (rdmach: deleting a type attribute not there is MPI_ERR_KEYVAL) */
        MPI_OK(MPI_Type_get_attr(t, chain_kv[k], &v, &flag));
        if (flag)
            MPI_OK(MPI_Type_delete_attr(t, chain_kv[k]));
    }
    return MPI_SUCCESS;
}

static int chain_win_delete(MPI_Win w, int kv, void *val, void *extra)
{
    (void)kv, (void)val;
    chain_count(extra);
    if ((intptr_t)extra == 1) {
        MPI_OK(MPI_Win_delete_attr(w, chain_kv[0]));
        MPI_OK(MPI_Win_delete_attr(w, chain_kv[2]));
    }
    return MPI_SUCCESS;
}

static void chain_check(const char *what)
{
    CHECK(chain_runs[0] == 1 && chain_runs[1] == 1 && chain_runs[2] == 1,
          "%s: delete callbacks ran %d, %d, %d times (each once expected)", what, chain_runs[0], chain_runs[1],
          chain_runs[2]);
    memset(chain_runs, 0, sizeof(chain_runs));
}

/* The key set i-th (0: first, so oldest) when the middle one goes at
 * position pos, the other two in their order around it. */
static int chain_key_at(int pos, int i)
{
    return i == pos ? 1 : (i < pos ? i : i - 1) == 0 ? 0 : 2;
}

/* The three attributes on c, key k with the value k + 1. */
static void chain_set_comm(MPI_Comm c, int pos)
{
    for (int i = 0; i < 3; i++) {
        int k = chain_key_at(pos, i);
        MPI_OK(MPI_Comm_set_attr(c, chain_kv[k], (void *)(intptr_t)(k + 1)));
    }
}

static void chain_comm(void)
{
    for (intptr_t i = 0; i < 3; i++)
        MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, chain_comm_delete, &chain_kv[i], (void *)i));
    MPI_Comm c;
    void *v;
    int flag;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    for (int pos = 0; pos < 3; pos++) {
        chain_set_comm(c, pos);
        MPI_OK(MPI_Comm_delete_attr(c, chain_kv[1]));
        chain_check("Comm_delete_attr");
        for (int k = 0; k < 3; k++) {
            MPI_OK(MPI_Comm_get_attr(c, chain_kv[k], &v, &flag));
            CHECK(!flag, "attribute %d still set after the chained deletion", k);
        }
        /* replacing the middle value deletes the others too; the new value stays */
        chain_set_comm(c, pos);
        MPI_OK(MPI_Comm_set_attr(c, chain_kv[1], (void *)(intptr_t)22));
        CHECK(chain_runs[0] == 1 && chain_runs[1] == 1 && chain_runs[2] == 1, "Comm_set_attr over the middle "
              "value: callbacks ran %d, %d, %d times", chain_runs[0], chain_runs[1], chain_runs[2]);
        memset(chain_runs, 0, sizeof(chain_runs));
        MPI_OK(MPI_Comm_get_attr(c, chain_kv[1], &v, &flag));
        CHECK(flag && (intptr_t)v == 22, "the replaced middle value: flag %d value %ld", flag, (long)(intptr_t)v);
        MPI_OK(MPI_Comm_delete_attr(c, chain_kv[1]));
        memset(chain_runs, 0, sizeof(chain_runs));
    }
    /* a failing middle callback: it stays, the two it deleted are gone */
    chain_set_comm(c, 1);
    chain_fail = 1;
    int rc = MPI_Comm_delete_attr(c, chain_kv[1]);
    chain_fail = 0;
    CHECK(mt_class(rc) == MY_ERR_CLASS, "a failing chained delete: class %d", mt_class(rc));
    MPI_OK(MPI_Comm_get_attr(c, chain_kv[1], &v, &flag));
    CHECK(flag && (intptr_t)v == 2, "the attribute whose delete failed is gone");
    MPI_OK(MPI_Comm_get_attr(c, chain_kv[0], &v, &flag));
    CHECK(!flag, "an attribute the failing callback deleted is still set");
    MPI_OK(MPI_Comm_delete_attr(c, chain_kv[1]));
    memset(chain_runs, 0, sizeof(chain_runs));
    /* Comm_free: every attribute, each callback once */
    for (int pos = 0; pos < 3; pos++) {
        MPI_Comm d;
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        chain_set_comm(d, pos);
        MPI_OK(MPI_Comm_free(&d));
        chain_check("Comm_free");
    }
    MPI_OK(MPI_Comm_free(&c));
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Comm_free_keyval(&chain_kv[i]));
}

static void chain_type_win(void)
{
    for (intptr_t i = 0; i < 3; i++)
        MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, chain_type_delete, &chain_kv[i], (void *)i));
    for (int pos = 0; pos < 3; pos++) {
        MPI_Datatype t;
        MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Type_set_attr(t, chain_kv[chain_key_at(pos, i)], NULL));
        MPI_OK(MPI_Type_delete_attr(t, chain_kv[1]));
        chain_check("Type_delete_attr");
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Type_set_attr(t, chain_kv[chain_key_at(pos, i)], NULL));
        MPI_OK(MPI_Type_free(&t));
        chain_check("Type_free");
    }
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Type_free_keyval(&chain_kv[i]));

    int buf[2];
    for (intptr_t i = 0; i < 3; i++)
        MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, chain_win_delete, &chain_kv[i], (void *)i));
    for (int pos = 0; pos < 3; pos++) {
        MPI_Win w;
        MPI_OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Win_set_attr(w, chain_kv[chain_key_at(pos, i)], NULL));
        MPI_OK(MPI_Win_delete_attr(w, chain_kv[1]));
        chain_check("Win_delete_attr");
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Win_set_attr(w, chain_kv[chain_key_at(pos, i)], NULL));
        MPI_OK(MPI_Win_free(&w));
        chain_check("Win_free");
    }
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Win_free_keyval(&chain_kv[i]));
}

/* ---- keyvals freed while attributes use them (MPI 4.1 §7.7.2) ----
 * "the actual free does not transpire until after all references ... have
 * been freed. These references need to be explicitly freed by the program,
 * either via calls to MPI_COMM_DELETE_ATTR ... or by calls to
 * MPI_COMM_FREE": so a saved copy of the freed handle still names those
 * attributes for get and delete, and dup still copies them. */
static void freed_keyval_in_use(void)
{
    int kv, saved;
    void *v;
    int flag;
    MPI_Comm a, b;
    MPI_OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &kv, NULL));
    saved = kv;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_set_attr(a, kv, (void *)(intptr_t)10));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kv, (void *)(intptr_t)20));
    MPI_OK(MPI_Comm_free_keyval(&kv));
    MPI_OK(MPI_Comm_get_attr(a, saved, &v, &flag));
    CHECK(flag && (intptr_t)v == 10, "Comm_get_attr with a freed keyval in use: flag %d", flag);
    copies = 0;
    MPI_OK(MPI_Comm_dup(a, &b));
    CHECK(copies == 1, "Comm_dup ran the copy callback of a freed keyval %d times", copies);
    deletes = 0;
    MPI_OK(MPI_Comm_delete_attr(b, saved));
    CHECK(deletes == 1 && last_deleted == 11, "Comm_delete_attr with a freed keyval: %d deletes, last %ld", deletes,
          (long)last_deleted);
    deletes = 0;
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, saved));
    CHECK(deletes == 1 && last_deleted == 20, "Attr_delete with a freed keyval: %d deletes", deletes);
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, saved));    /* nothing attached: still fine */
    mt_expect_error(MPI_Comm_set_attr(b, saved, NULL), MPI_ERR_KEYVAL, "comm_keyval",
                    "Comm_set_attr with a freed keyval");
    MPI_OK(MPI_Comm_free(&b));
    deletes = 0;
    MPI_OK(MPI_Comm_free(&a));
    CHECK(deletes == 1 && last_deleted == 10, "Comm_free: %d deletes", deletes);
    /* the last reference is gone: the keyval is freed, its handle stale */
    mt_expect_error(MPI_Comm_delete_attr(MPI_COMM_WORLD, saved), MPI_ERR_KEYVAL, "comm_keyval",
                    "Comm_delete_attr with a keyval freed and unused");
    mt_expect_error(MPI_Attr_get(MPI_COMM_WORLD, saved, &v, &flag), MPI_ERR_KEYVAL, "keyval",
                    "Attr_get with a keyval freed and unused");

    /* the same for a datatype and a window */
    MPI_Datatype t;
    MPI_OK(MPI_Type_create_keyval((MPI_Type_copy_attr_function *)copy_fn, (MPI_Type_delete_attr_function *)delete_fn,
                                  &kv, NULL));
    saved = kv;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_set_attr(t, kv, (void *)(intptr_t)30));
    MPI_OK(MPI_Type_free_keyval(&kv));
    MPI_Datatype d;
    copies = 0;
    MPI_OK(MPI_Type_dup(t, &d));
    CHECK(copies == 1, "Type_dup ran the copy callback of a freed keyval %d times", copies);
    MPI_OK(MPI_Type_get_attr(d, saved, &v, &flag));
    CHECK(flag && (intptr_t)v == 31, "Type_get_attr with a freed keyval in use: flag %d", flag);
    deletes = 0;
    MPI_OK(MPI_Type_delete_attr(d, saved));
    MPI_OK(MPI_Type_delete_attr(t, saved));
    CHECK(deletes == 2, "Type_delete_attr with a freed keyval: %d deletes", deletes);
    mt_expect_error(MPI_Type_get_attr(t, saved, &v, &flag), MPI_ERR_KEYVAL, "type_keyval",
                    "Type_get_attr with a keyval freed and unused");
    MPI_OK(MPI_Type_free(&d));
    MPI_OK(MPI_Type_free(&t));

    int buf[2];
    MPI_Win w;
    MPI_OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MPI_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, (MPI_Win_delete_attr_function *)delete_fn, &kv, NULL));
    saved = kv;
    MPI_OK(MPI_Win_set_attr(w, kv, (void *)(intptr_t)40));
    MPI_OK(MPI_Win_free_keyval(&kv));
    deletes = 0;
    MPI_OK(MPI_Win_delete_attr(w, saved));
    CHECK(deletes == 1 && last_deleted == 40, "Win_delete_attr with a freed keyval: %d deletes", deletes);
    mt_expect_error(MPI_Win_delete_attr(w, saved), MPI_ERR_KEYVAL, "win_keyval",
                    "Win_delete_attr with a keyval freed and unused");
    MPI_OK(MPI_Win_free(&w));
}

/* ---- a delete callback that frees its own keyval ----
 * The keyval is still used by another object's attribute: the program's
 * own frees of it that follow (it kept copies of the handle) change
 * nothing, as MPICH; once the last attribute is gone the stale handle is
 * MPI_ERR_KEYVAL. */
static int self_free_calls, self_free_bad;

static int self_freeing_comm(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c, (void)val, (void)extra;
    self_free_calls++;
    self_free_bad += MPI_Comm_free_keyval(&kv) != MPI_SUCCESS || kv != MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static int self_freeing_type(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t, (void)val, (void)extra;
    self_free_calls++;
    self_free_bad += MPI_Type_free_keyval(&kv) != MPI_SUCCESS || kv != MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static int self_freeing_win(MPI_Win w, int kv, void *val, void *extra)
{
    (void)w, (void)val, (void)extra;
    self_free_calls++;
    self_free_bad += MPI_Win_free_keyval(&kv) != MPI_SUCCESS || kv != MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static void self_freeing_check(const char *what, int calls)
{
    CHECK(self_free_calls == calls && self_free_bad == 0, "%s: %d delete callbacks (%d expected), %d of their "
          "keyval frees failed", what, self_free_calls, calls, self_free_bad);
}

static void keyval_freed_by_callback(void)
{
    int kv, copy1, copy2;
    MPI_Comm a, b;
    self_free_calls = self_free_bad = 0;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_freeing_comm, &kv, NULL));
    copy1 = copy2 = kv;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    MPI_OK(MPI_Comm_set_attr(a, kv, NULL));
    MPI_OK(MPI_Comm_set_attr(b, kv, NULL));
    MPI_OK(MPI_Comm_free(&a));                      /* the callback frees kv */
    self_freeing_check("Comm_free", 1);
    MPI_OK(MPI_Comm_free_keyval(&kv));              /* b still uses it */
    CHECK(kv == MPI_KEYVAL_INVALID, "Comm_free_keyval of a freed keyval in use left 0x%x", (unsigned)kv);
    MPI_OK(MPI_Keyval_free(&copy1));
    MPI_OK(MPI_Comm_free(&b));                      /* the callback frees it again */
    self_freeing_check("Comm_free", 2);
    mt_expect_error(MPI_Comm_free_keyval(&copy2), MPI_ERR_KEYVAL, "comm_keyval",
                    "Comm_free_keyval of a keyval freed and unused");

    MPI_Datatype t, u;
    self_free_calls = 0;
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, self_freeing_type, &kv, NULL));
    copy1 = copy2 = kv;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &u));
    MPI_OK(MPI_Type_set_attr(t, kv, NULL));
    MPI_OK(MPI_Type_set_attr(u, kv, NULL));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free_keyval(&kv));
    MPI_OK(MPI_Type_free_keyval(&copy1));
    MPI_OK(MPI_Type_free(&u));
    self_freeing_check("Type_free", 2);
    mt_expect_error(MPI_Type_free_keyval(&copy2), MPI_ERR_KEYVAL, "type_keyval",
                    "Type_free_keyval of a keyval freed and unused");

    int buf[2];
    MPI_Win w1, w2;
    self_free_calls = 0;
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, self_freeing_win, &kv, NULL));
    copy1 = copy2 = kv;
    MPI_OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w1));
    MPI_OK(MPI_Win_create(buf, sizeof(buf), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w2));
    MPI_OK(MPI_Win_set_attr(w1, kv, NULL));
    MPI_OK(MPI_Win_set_attr(w2, kv, NULL));
    MPI_OK(MPI_Win_free(&w1));
    MPI_OK(MPI_Win_free_keyval(&kv));
    MPI_OK(MPI_Win_free_keyval(&copy1));
    MPI_OK(MPI_Win_free(&w2));
    self_freeing_check("Win_free", 2);
    mt_expect_error(MPI_Win_free_keyval(&copy2), MPI_ERR_KEYVAL, "win_keyval",
                    "Win_free_keyval of a keyval freed and unused");
}

/* MPI_COMM_SELF at Finalize: the order the callbacks ran in. */
static int self_order[8], self_n, self_finalized_seen = -1, self_fail;

static int self_delete(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)kv, (void)extra;
    int fin = 1, r = -1;
    MPI_Finalized(&fin);
    if (self_finalized_seen < 0 || fin)
        self_finalized_seen = fin;
    /* MPI is still usable: world is intact */
    if (MPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS || r != rank || c != MPI_COMM_SELF)
        self_finalized_seen = 2;
    if (self_n < 8)
        self_order[self_n++] = (int)(intptr_t)val;
    return self_fail && (intptr_t)val == 2 ? MY_ERR_CLASS : MPI_SUCCESS;
}

/* Three more on MPI_COMM_SELF: the newest one's delete callback deletes
 * the oldest (at the far end of the list Finalize is working through) and
 * the one set just before it (the next Finalize would come to). */
static int self_chain_kv[2], self_chain_runs[3];

static int self_chain_delete(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)kv, (void)val;
    self_chain_runs[(intptr_t)extra]++;
    for (int i = 0; i < 2 && (intptr_t)extra == 2; i++)
        if (MPI_Comm_delete_attr(c, self_chain_kv[i]) != MPI_SUCCESS)
            self_chain_runs[2] += 100;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int finalize_error = argc > 1 && strcmp(argv[1], "finalize_error") == 0;
    if (argc > 1 && strncmp(argv[1], "appnum=", 7) == 0)
        expect_appnum = atoi(argv[1] + 7);
    mt_init(&argc, &argv, &rank, &size);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (!finalize_error) {
        comm_attributes();
        predefined(MPI_COMM_WORLD, "MPI_COMM_WORLD");
        predefined(MPI_COMM_SELF, "MPI_COMM_SELF");
        type_attributes();
        win_attributes();
        chain_comm();
        chain_type_win();
        freed_keyval_in_use();
        keyval_freed_by_callback();
    }
    int kb;
    for (intptr_t i = 0; i < 2; i++)
        MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_chain_delete, &self_chain_kv[i], (void *)i));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_chain_delete, &kb, (void *)2));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, self_chain_kv[0], NULL));
    /* three attributes on MPI_COMM_SELF, set in the order 1, 2, 3 (2 with
     * its own keyval set last but replaced: its place is its first setting) */
    int k[3];
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &k[i], NULL));
    self_fail = finalize_error;
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k[0], (void *)(intptr_t)1));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k[1], (void *)(intptr_t)2));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, k[2], (void *)(intptr_t)3));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, self_chain_kv[1], NULL));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kb, NULL));
    for (int i = 0; i < 3; i++)
        MPI_OK(MPI_Comm_free_keyval(&k[i]));       /* still attached: deleted at Finalize */
    MPI_OK(MPI_Comm_free_keyval(&kb));
    for (int i = 0; i < 2; i++) {
        int copy = self_chain_kv[i];             /* the callback deletes with the saved handles */
        MPI_OK(MPI_Comm_free_keyval(&copy));
    }
    int rc = MPI_Finalize();
    if (finalize_error) {
        int cls = -1;
        MPI_Error_class(rc, &cls);
        if (cls != MY_ERR_CLASS) {
            fprintf(stderr, "[rank %d] MPI_Finalize returned %d (class %d), expected the callback's class %d\n",
                    rank, rc, cls, MY_ERR_CLASS);
            return 1;
        }
    } else if (rc != MPI_SUCCESS) {
        fprintf(stderr, "[rank %d] MPI_Finalize returned %d\n", rank, rc);
        return 1;
    }
    if (self_n != 3 || self_order[0] != 3 || self_order[1] != 2 || self_order[2] != 1 || self_finalized_seen != 0) {
        fprintf(stderr, "[rank %d] MPI_COMM_SELF's delete callbacks at Finalize: %d calls, order %d %d %d "
                "(expected 3 2 1), MPI usable in them: %s\n", rank, self_n, self_order[0], self_order[1],
                self_order[2], self_finalized_seen == 0 ? "yes" : "no");
        return 1;
    }
    if (self_chain_runs[0] != 1 || self_chain_runs[1] != 1 || self_chain_runs[2] != 1) {
        fprintf(stderr, "[rank %d] MPI_COMM_SELF at Finalize: a delete callback deleting two other attributes: "
                "callbacks ran %d, %d and %d times (once each expected, +100: its deletes failed)\n", rank,
                self_chain_runs[0], self_chain_runs[1], self_chain_runs[2]);
        return 1;
    }
    if (rank == 0)
        printf("test_conf_attr%s: %d ranks ok\n", finalize_error ? " finalize_error" : "", size);
    return 0;
}
