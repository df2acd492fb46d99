/*
 * Process creation and management (MPI-3.1 chapter 10): rdmach runs the
 * processes its launcher started and has no name service, so
 *   - MPI_Comm_get_parent gives MPI_COMM_NULL (no process was spawned);
 *   - MPI_Comm_spawn(_multiple) fail with MPI_ERR_SPAWN (every errcode too);
 *   - ports (Open_port, Comm_accept, Comm_connect, Comm_join) with
 *     MPI_ERR_UNSUPPORTED_OPERATION, Close_port with MPI_ERR_PORT (no port
 *     is open), names with MPI_ERR_SERVICE (publish, unpublish) and
 *     MPI_ERR_NAME (lookup: nothing is published).
 * The arguments are checked first, like every call's; a collective one
 * fails on every rank locally, so nobody waits for the others.
 * (MPI_Comm_disconnect belongs with the communicators.)
 */
#include "mpi/mpi_impl.h"

static int begin(const char *fn, MPI_Comm comm, int root, int check_root)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad(fn, comm);
    if (check_root && (root < 0 || root >= c->size))
        return rch_mpi_err(comm, MPI_ERR_ROOT, "%s: invalid root %d in argument root (communicator size %d)", fn,
                           root, c->size);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_get_parent");
    if (err)
        return err;
    if (!parent)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Comm_get_parent: argument parent is NULL");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent

static int spawn_fails(const char *fn, MPI_Comm comm, int root, MPI_Comm *intercomm, int *errcodes, int n)
{
    int err = begin(fn, comm, root, 1);
    if (err)
        return err;
    if (!intercomm)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument intercomm is NULL", fn);
    *intercomm = MPI_COMM_NULL;
    for (int i = 0; errcodes != MPI_ERRCODES_IGNORE && i < n; i++)
        errcodes[i] = MPI_ERR_SPAWN;
    return rch_mpi_err(comm, MPI_ERR_SPAWN, "%s: rdmach does not spawn processes (start them all with the "
                       "launcher)", fn);
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *intercomm, int array_of_errcodes[])
{
    RCH_MPI_CS();
    (void)command, (void)argv, (void)info;
    return spawn_fails("MPI_Comm_spawn", comm, root, intercomm, array_of_errcodes, maxprocs);
}
#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
                             MPI_Comm *intercomm, int array_of_errcodes[])
{
    RCH_MPI_CS();
    (void)array_of_commands, (void)array_of_argv, (void)array_of_info;
    int n = 0;
    for (int i = 0; array_of_maxprocs && i < count; i++)
        n += array_of_maxprocs[i] > 0 ? array_of_maxprocs[i] : 0;
    return spawn_fails("MPI_Comm_spawn_multiple", comm, root, intercomm, array_of_errcodes, n);
}
#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    RCH_MPI_CS();
    (void)info;
    int err = rch_mpi_check_init("MPI_Open_port");
    if (err)
        return err;
    if (!port_name)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Open_port: argument port_name is NULL");
    port_name[0] = '\0';
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_UNSUPPORTED_OPERATION,
                       "MPI_Open_port: rdmach does not connect separately started jobs");
}
#pragma weak MPI_Open_port = PMPI_Open_port

int PMPI_Close_port(const char *port_name)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Close_port");
    if (err)
        return err;
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_PORT, "MPI_Close_port: port %s was not opened (MPI_Open_port opens "
                       "none here)", port_name ? port_name : "(NULL)");
}
#pragma weak MPI_Close_port = PMPI_Close_port

static int connect_fails(const char *fn, MPI_Comm comm, int root, MPI_Comm *newcomm)
{
    int err = begin(fn, comm, root, 1);
    if (err)
        return err;
    if (!newcomm)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument newcomm is NULL", fn);
    *newcomm = MPI_COMM_NULL;
    return rch_mpi_err(comm, MPI_ERR_UNSUPPORTED_OPERATION, "%s: rdmach does not connect separately started jobs",
                       fn);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    (void)port_name, (void)info;
    return connect_fails("MPI_Comm_accept", comm, root, newcomm);
}
#pragma weak MPI_Comm_accept = PMPI_Comm_accept

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    (void)port_name, (void)info;
    return connect_fails("MPI_Comm_connect", comm, root, newcomm);
}
#pragma weak MPI_Comm_connect = PMPI_Comm_connect

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    RCH_MPI_CS();
    (void)fd;
    return connect_fails("MPI_Comm_join", MPI_COMM_SELF, 0, intercomm);
}
#pragma weak MPI_Comm_join = PMPI_Comm_join

static int name_fails(const char *fn, const char *service_name, int cls, const char *why)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!service_name)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument service_name is NULL", fn);
    return rch_mpi_err(MPI_COMM_NULL, cls, "%s: service %s: %s", fn, service_name, why);
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    RCH_MPI_CS();
    (void)info, (void)port_name;
    return name_fails("MPI_Publish_name", service_name, MPI_ERR_SERVICE, "rdmach has no name service");
}
#pragma weak MPI_Publish_name = PMPI_Publish_name

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    RCH_MPI_CS();
    (void)info, (void)port_name;
    return name_fails("MPI_Unpublish_name", service_name, MPI_ERR_SERVICE, "not published (rdmach has no name "
                      "service)");
}
#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    RCH_MPI_CS();
    (void)info;
    if (port_name)
        port_name[0] = '\0';
    return name_fails("MPI_Lookup_name", service_name, MPI_ERR_NAME, "not published (rdmach has no name service)");
}
#pragma weak MPI_Lookup_name = PMPI_Lookup_name
