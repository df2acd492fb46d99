/*
 * Datatype attributes (MPI 4.0 7.7.4), the binding (the lists and keyvals:
 * attr_core.c): Type_create_keyval, Type_free_keyval, Type_set_attr,
 * Type_get_attr, Type_delete_attr. Predefined datatypes carry attributes
 * too. Type_dup runs the copy callbacks (type_api.c), Type_free the delete
 * callbacks, and either fails with a failing callback's code. Errors go to
 * the handler of MPI_COMM_WORLD, as every datatype error here.
 */
#include "mpi/type_impl.h"

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state)
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

/* The datatype and keyval of an attribute call; NULL with *err reported. */
static struct rch_mpi_type_obj *attr_type(const char *fn, MPI_Datatype dt, int keyval, int *err)
{
    struct rch_mpi_type_obj *o;
    if ((*err = rch_mpi_check_init(fn)) || !(o = rch_mpi_type_arg(fn, "datatype", dt, err)))
        return NULL;
    if (!rch_mpi_keyval_live(RCH_MPI_OBJ_DATATYPE, keyval)) {
        *err = rch_mpi_err(MPI_COMM_NULL, MPI_ERR_KEYVAL,
                           "%s: 0x%x in argument type_keyval is not a live datatype keyval", fn, (unsigned)keyval);
        return NULL;
    }
    return o;
}

int rch_mpi_type_attr_raise(const char *fn, int rc)
{
    if (rc == MPI_ERR_NO_MEM)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return rch_mpi_err_raise(MPI_COMM_NULL, rc);
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Type_set_attr";
    int err;
    struct rch_mpi_type_obj *o = attr_type(fn, datatype, type_keyval, &err);
    if (!o)
        return err;
    int rc = rch_mpi_attr_set(&o->attrs, datatype, RCH_MPI_OBJ_DATATYPE, type_keyval, attribute_val);
    return rc ? rch_mpi_type_attr_raise(fn, rc) : MPI_SUCCESS;
}
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Type_get_attr";
    int err;
    struct rch_mpi_type_obj *o = attr_type(fn, datatype, type_keyval, &err);
    if (!o)
        return err;
    if (!attribute_val || !flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                           !attribute_val ? "attribute_val" : "flag");
    *flag = rch_mpi_attr_get(o->attrs, RCH_MPI_OBJ_DATATYPE, type_keyval, attribute_val);
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Type_delete_attr";
    int err;
    struct rch_mpi_type_obj *o = attr_type(fn, datatype, type_keyval, &err);
    if (!o)
        return err;
    int rc = rch_mpi_attr_delete(&o->attrs, datatype, RCH_MPI_OBJ_DATATYPE, type_keyval);
    return rc ? rch_mpi_type_attr_raise(fn, rc) : MPI_SUCCESS;
}
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
