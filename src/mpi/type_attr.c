/*
 * Datatype attributes (MPI 4.1 §7.7.4), the binding: MPI_Type_create_keyval,
 * MPI_Type_free_keyval, MPI_Type_set_attr, MPI_Type_get_attr,
 * MPI_Type_delete_attr; the copy callbacks run on MPI_Type_dup, the delete
 * callbacks on MPI_Type_free, MPI_Type_delete_attr and when a value is
 * replaced. Predefined datatypes take attributes too.
 *
 * The keyvals and lists are attr_core.c's, of kind RCH_MPI_OBJ_DATATYPE (a
 * type keyval on a communicator is MPI_ERR_KEYVAL there and here), encoded
 * 0xa4800000 + slot; a freed keyval that attributes still use keeps
 * working for them (get, delete, copy) until the last one goes.
 */
#include <stdlib.h>
#include "mpi/type_impl.h"
#include "mpi/attr_lang.h"

/* Set needs a keyval not freed; get and delete also take a freed one that
 * attributes still use (MPI 4.1 §7.7.2: the program deletes those). */
static int bad_keyval(const char *fn, int keyval, int for_set)
{
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_KEYVAL, "%s: invalid datatype keyval 0x%x in argument type_keyval%s",
                       fn, (unsigned)keyval,
                       for_set ? " (a freed keyval cannot be set)"
                               : " (or it was freed and no attribute uses it any more)");
}

/* A callback's failure (its own code, or MPI_ERR_NO_MEM from the lists). */
static int callback_failed(const char *fn, const char *what, int rc)
{
    if (rc == MPI_ERR_NO_MEM)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: no memory for an attribute", fn);
    return rch_mpi_err(MPI_COMM_NULL, rc, "%s: a %s callback returned %d", fn, what, rc);
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    RCH_MPI_CS();
    return rch_mpi_keyval_create_call("MPI_Type_create_keyval", "type_keyval", RCH_MPI_OBJ_DATATYPE,
                                      type_copy_attr_fn, type_delete_attr_fn, extra_state, type_keyval);
}
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval

int PMPI_Type_free_keyval(int *type_keyval)
{
    RCH_MPI_CS();
    return rch_mpi_keyval_free_call("MPI_Type_free_keyval", "type_keyval", RCH_MPI_OBJ_DATATYPE, type_keyval);
}
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval

/* The checks of set/get/delete: init, the type's object, the keyval (live
 * for set, valid for get and delete). */
static int args(const char *fn, MPI_Datatype dt, int keyval, int for_set, struct rch_mpi_type_obj **o)
{
    int rc = rch_mpi_check_init(fn);
    if (rc)
        return rc;
    if (!(*o = rch_mpi_type_arg(fn, "datatype", dt, &rc)))
        return rc;
    if (for_set ? !rch_mpi_keyval_live(RCH_MPI_OBJ_DATATYPE, keyval)
                : !rch_mpi_keyval_valid(RCH_MPI_OBJ_DATATYPE, keyval))
        return bad_keyval(fn, keyval, for_set);
    return MPI_SUCCESS;
}

static int type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int type)
{
    static const char fn[] = "MPI_Type_set_attr";
    struct rch_mpi_type_obj *o;
    int rc = args(fn, datatype, type_keyval, 1, &o);
    if (rc)
        return rc;
    rc = rch_mpi_attr_set(&o->attrs, datatype, RCH_MPI_OBJ_DATATYPE, type_keyval, attribute_val, type);
    return rc ? callback_failed(fn, "delete", rc) : MPI_SUCCESS;
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    RCH_MPI_CS();
    return type_set_attr(datatype, type_keyval, attribute_val, MPIR_ATTR_PTR);
}
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr

/* From Fortran (attr_lang.h). */
int MPII_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, MPIR_Attr_type type)
{
    RCH_MPI_CS();
    return type_set_attr(datatype, type_keyval, attribute_val, type);
}

static int type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag, int out_type)
{
    static const char fn[] = "MPI_Type_get_attr";
    struct rch_mpi_type_obj *o;
    int rc = args(fn, datatype, type_keyval, 0, &o);
    if (rc)
        return rc;
    if (!attribute_val || !flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                           flag ? "attribute_val" : "flag");
    *flag = rch_mpi_attr_get(o->attrs, RCH_MPI_OBJ_DATATYPE, type_keyval, attribute_val, out_type);
    return MPI_SUCCESS;
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    RCH_MPI_CS();
    return type_get_attr(datatype, type_keyval, attribute_val, flag, MPIR_ATTR_PTR);
}
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr

/* For Fortran (attr_lang.h). */
int MPII_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag,
                       MPIR_Attr_type out_type)
{
    RCH_MPI_CS();
    return type_get_attr(datatype, type_keyval, attribute_val, flag, out_type);
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Type_delete_attr";
    struct rch_mpi_type_obj *o;
    int rc = args(fn, datatype, type_keyval, 0, &o);
    if (rc)
        return rc;
    void *v;
    if (!rch_mpi_attr_get(o->attrs, RCH_MPI_OBJ_DATATYPE, type_keyval, &v, MPIR_ATTR_PTR))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_KEYVAL, "%s: datatype has no attribute for keyval 0x%x in "
                           "argument type_keyval", fn, (unsigned)type_keyval);
    rc = rch_mpi_attr_delete(&o->attrs, datatype, RCH_MPI_OBJ_DATATYPE, type_keyval);
    return rc ? callback_failed(fn, "delete", rc) : MPI_SUCCESS;
}
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr

int rch_mpi_type_attr_copy(const char *fn, struct rch_mpi_type_obj *from, struct rch_mpi_type_obj *to)
{
    int rc = rch_mpi_attr_copy(from->attrs, from->t.handle, &to->attrs);
    return rc ? callback_failed(fn, "copy", rc) : MPI_SUCCESS;
}

int rch_mpi_type_attr_delete_all(const char *fn, struct rch_mpi_type_obj *o)
{
    /* MPI: a failing delete callback makes the free fail (the type stays). */
    int rc = rch_mpi_attr_delete_all(&o->attrs, o->t.handle, 1);
    return rc ? callback_failed(fn, "delete", rc) : MPI_SUCCESS;
}

void rch_mpi_type_attr_drop(struct rch_mpi_type_obj *o)
{
    rch_mpi_attr_drop(&o->attrs);
}
