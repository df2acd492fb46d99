/*
 * The MPI-4.0/4.1 additions of the communicator, info, datatype and error
 * chapters that are small on their own: Comm_idup_with_info,
 * Info_get_string, Info_create_env, Status_get/set_source/tag/error,
 * Get_hw_resource_info, Type_get_value_index. (Sessions: session.c; the
 * Remove_error_* calls live with the error classes in errhandler.c.)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

/* As Comm_idup (comm_idup.c), completing in progress; the duplicate has
 * info's hints, of which rdmach acts on none (Comm_get_info returns none of
 * them), and not the parent's. */
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Comm_idup_with_info";
    int err = rch_mpi_check_init(fn);
    if (!err && rch_mpi_comm_get(comm) && (err = rch_mpi_info_check(comm, fn, info)))
        return err;
    return err ? err : rch_mpi_comm_idup(fn, comm, 0, newcomm, request);
}
#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info

/* MPI-4.1 10.2: *buflen in is the size of value (0: only ask for the
 * length); out, the value's length with its NUL. At most *buflen - 1
 * characters and a NUL are stored. Key absent: *flag false, *buflen kept. */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Info_get_string";
    int err = rch_mpi_info_usable(fn);
    if (err)
        return err;
    const struct rch_mpi_info *o = rch_mpi_info_get(info);
    if (!o)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INFO, "%s: invalid info 0x%x in argument info", fn, (unsigned)info);
    if (!key)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_KEY, "%s: argument key is NULL", fn);
    size_t klen = strnlen(key, MPI_MAX_INFO_KEY);
    if (klen == 0 || klen >= MPI_MAX_INFO_KEY)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_INFO_KEY, "%s: argument key %s (a key has 1 .. %d characters)", fn,
                           klen ? "is too long" : "is empty", MPI_MAX_INFO_KEY - 1);
    if (!buflen || !flag)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn, !buflen ? "buflen" : "flag");
    if (*buflen < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: negative size %d in argument buflen", fn, *buflen);
    if (*buflen > 0 && !value)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument value is NULL", fn);
    const char *v = rch_mpi_info_lookup(o, key);
    *flag = v != NULL;
    if (!v)
        return MPI_SUCCESS;
    if (*buflen > 0)
        snprintf(value, (size_t)*buflen, "%s", v);
    *buflen = (int)strlen(v) + 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_string = PMPI_Info_get_string

/* MPI-4.1 10.4: MPI_INFO_ENV's contents, with "command" and "argv" from the
 * arguments given (argc 0: the process's own, as in MPI_INFO_ENV). The
 * same before MPI_Init, after it and after MPI_Finalize (MPI-4.1 11.4.1
 * allows the call at all three): MPI_INFO_ENV holds what the process was
 * started with (info.c). */
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Info_create_env";
    int err = rch_mpi_info_usable(fn);
    if (err)
        return err;
    if (argc < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: negative argc %d", fn, argc);
    if (argc > 0 && !argv)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument argv is NULL (argc %d)", fn, argc);
    for (int i = 0; i < argc; i++)
        if (!argv[i])
            return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argv[%d] is NULL (argc %d)", fn, i, argc);
    if (!info)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument info is NULL", fn);
    if ((err = PMPI_Info_dup(MPI_INFO_ENV, info)))
        return err;
    if (argc == 0)
        return MPI_SUCCESS;
    char args[MPI_MAX_INFO_VAL];
    size_t n = 0;
    args[0] = '\0';
    for (int i = 1; i < argc && n < sizeof(args); i++)
        n += (size_t)snprintf(args + n, sizeof(args) - n, "%s%s", i > 1 ? " " : "", argv[i]);
    /* replaced in place: the keys keep MPI_INFO_ENV's order */
    if (argv[0][0])
        err = PMPI_Info_set(*info, "command", argv[0]);
    if (!err && args[0])
        err = PMPI_Info_set(*info, "argv", args);
    else if (!err && rch_mpi_info_lookup(rch_mpi_info_get(*info), "argv"))    /* the process's own */
        err = PMPI_Info_delete(*info, "argv");
    if (err)
        PMPI_Info_free(info);
    return err;
}
#pragma weak MPI_Info_create_env = PMPI_Info_create_env

/* ---- MPI-4.1 3.2.5: the status fields by call (for bindings that cannot
 * reach them); usable at any time, as the fields are. ---- */

static int status_arg(const char *fn, const MPI_Status *status, const void *out, const char *out_name)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument status is %s", fn,
                           status ? "MPI_STATUS_IGNORE" : "NULL");
    if (!out)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument %s is NULL", fn, out_name);
    return MPI_SUCCESS;
}

static const int not_null = 1;    /* the setters have no output argument */

int PMPI_Status_get_source(MPI_Status *status, int *source)
{
    RCH_MPI_CS();
    int err = status_arg("MPI_Status_get_source", status, source, "source");
    if (!err)
        *source = status->MPI_SOURCE;
    return err;
}
#pragma weak MPI_Status_get_source = PMPI_Status_get_source

int PMPI_Status_set_source(MPI_Status *status, int source)
{
    RCH_MPI_CS();
    int err = status_arg("MPI_Status_set_source", status, &not_null, "");
    if (!err)
        status->MPI_SOURCE = source;
    return err;
}
#pragma weak MPI_Status_set_source = PMPI_Status_set_source

int PMPI_Status_get_tag(MPI_Status *status, int *tag)
{
    RCH_MPI_CS();
    int err = status_arg("MPI_Status_get_tag", status, tag, "tag");
    if (!err)
        *tag = status->MPI_TAG;
    return err;
}
#pragma weak MPI_Status_get_tag = PMPI_Status_get_tag

int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    RCH_MPI_CS();
    int err = status_arg("MPI_Status_set_tag", status, &not_null, "");
    if (!err)
        status->MPI_TAG = tag;
    return err;
}
#pragma weak MPI_Status_set_tag = PMPI_Status_set_tag

int PMPI_Status_get_error(MPI_Status *status, int *error)
{
    RCH_MPI_CS();
    int err = status_arg("MPI_Status_get_error", status, error, "error");
    if (!err)
        *error = status->MPI_ERROR;
    return err;
}
#pragma weak MPI_Status_get_error = PMPI_Status_get_error

int PMPI_Status_set_error(MPI_Status *status, int error)
{
    RCH_MPI_CS();
    int err = status_arg("MPI_Status_set_error", status, &not_null, "");
    if (!err)
        status->MPI_ERROR = error;
    return err;
}
#pragma weak MPI_Status_set_error = PMPI_Status_set_error

/* The standard leaves the keys to the implementation. rdmach's: "host" (the
 * node's name, as MPI_INFO_ENV's), "mpi_shared_memory_size" (the processes
 * of the job on this node: rdmach's node, as mpix://SHARED) and
 * "num_cpus" (the CPUs online here). */
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Get_hw_resource_info";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!hw_info)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument hw_info is NULL", fn);
    char host[MPI_MAX_INFO_VAL], local[16], cpus[16];
    int flag = 0, nlocal = 0;
    if ((err = PMPI_Info_get(MPI_INFO_ENV, "host", sizeof(host) - 1, host, &flag)))
        return err;
    for (int r = 0; r < rch_boot.size; r++)
        nlocal += rch_boot.node_of[r] == rch_boot.node_of[rch_boot.rank];
    snprintf(local, sizeof(local), "%d", nlocal);
    snprintf(cpus, sizeof(cpus), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    if ((err = PMPI_Info_create(hw_info)))
        return err;
    if ((flag && (err = PMPI_Info_set(*hw_info, "host", host))) ||
        (err = PMPI_Info_set(*hw_info, "mpi_shared_memory_size", local)) ||
        (err = PMPI_Info_set(*hw_info, "num_cpus", cpus)))
        PMPI_Info_free(hw_info);
    return err;
}
#pragma weak MPI_Get_hw_resource_info = PMPI_Get_hw_resource_info

/* MPI-4.1 6.9.4: the predefined (value, index) pair type of MINLOC/MAXLOC
 * for these two types, MPI_DATATYPE_NULL if there is none. */
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Type_get_value_index";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!rch_mpi_type_get(value_type))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: invalid datatype 0x%x in argument value_type", fn,
                           (unsigned)value_type);
    if (!rch_mpi_type_get(index_type))
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_TYPE, "%s: invalid datatype 0x%x in argument index_type", fn,
                           (unsigned)index_type);
    if (!pair_type)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument pair_type is NULL", fn);
    static const struct { MPI_Datatype value, index, pair; } pairs[] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },   { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },     { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_INT, MPI_INT, MPI_2INT },          { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
        { MPI_REAL, MPI_REAL, MPI_2REAL },       { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
        { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
    };
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        if (pairs[i].value == value_type && pairs[i].index == index_type)
            *pair_type = pairs[i].pair;
    return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_value_index = PMPI_Type_get_value_index
