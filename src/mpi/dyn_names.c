/*
 * MPI_Publish_name / MPI_Lookup_name / MPI_Unpublish_name. Neither launcher
 * rdmach runs under gives every job the same name service (Hydra's PMI-1
 * publish needs a separately started hydra_nameserver and -nameserver;
 * rdmachrun has one server per job), so names live in files: one per
 * service in RDMACH_NAMESERV_DIR (default /tmp/rdmach-names-<uid>, made
 * 0700), named by the service's bytes in hex and holding the port name.
 * Jobs of one user on hosts that share the directory see each other's
 * names. A publish is one link(2) of a complete file, so a lookup never
 * reads half a name and two publishes of one service cannot both win.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/tunables.h"
#include "mpi/dyn.h"

static int name_path(const char *fn, const char *service, char *path, size_t len)
{
    char dir[1024];
    if (rch_tun.nameserv_dir[0])
        snprintf(dir, sizeof(dir), "%s", rch_tun.nameserv_dir);
    else
        snprintf(dir, sizeof(dir), "/tmp/rdmach-names-%u", (unsigned)getuid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_SERVICE, "%s: cannot make the names directory %s: %s", fn, dir,
                           strerror(errno));
    size_t n = strlen(service);
    if (n == 0 || n > 200)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument service_name is empty or longer than 200 "
                           "bytes", fn);
    size_t at = (size_t)snprintf(path, len, "%s/", dir);
    for (size_t i = 0; i < n && at + 3 < len; i++)
        at += (size_t)snprintf(path + at, len - at, "%02x", (unsigned char)service[i]);
    return MPI_SUCCESS;
}

static int name_args(const char *fn, const char *service, const char *port, char *path, size_t len)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!service)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument service_name is NULL", fn);
    if (!port)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument port_name is NULL", fn);
    return name_path(fn, service, path, len);
}

/* The port name in file path, or -1 (errno). */
static int read_name(const char *path, char *port)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, port, MPI_MAX_PORT_NAME - 1);
    close(fd);
    if (n < 0)
        return -1;
    port[n] = '\0';
    return 0;
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Publish_name";
    char path[1500], tmp[1600];
    int err = name_args(fn, service_name, port_name, path, sizeof(path));
    if (err)
        return err;
    (void)info;
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    size_t n = strnlen(port_name, MPI_MAX_PORT_NAME - 1);
    int ok = fd >= 0 && write(fd, port_name, n) == (ssize_t)n;
    if (fd >= 0)
        close(fd);
    int e = errno;
    if (ok && link(tmp, path) != 0) {
        ok = 0;
        e = errno;
    }
    unlink(tmp);
    if (!ok)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_SERVICE, "%s: service %.200s: %s", fn, service_name,
                           e == EEXIST ? "already published" : strerror(e));
    return MPI_SUCCESS;
}
#pragma weak MPI_Publish_name = PMPI_Publish_name

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Unpublish_name";
    char path[1500], have[MPI_MAX_PORT_NAME];
    int err = name_args(fn, service_name, port_name, path, sizeof(path));
    if (err)
        return err;
    (void)info;
    if (read_name(path, have) != 0 || strcmp(have, port_name) != 0 || unlink(path) != 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_SERVICE, "%s: service %.200s is not published with port %.80s",
                           fn, service_name, port_name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Lookup_name";
    char path[1500];
    int err = name_args(fn, service_name, port_name, path, sizeof(path));
    if (err)
        return err;
    (void)info;
    if (read_name(path, port_name) != 0) {
        port_name[0] = '\0';
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NAME, "%s: service %.200s is not published", fn, service_name);
    }
    return MPI_SUCCESS;
}
#pragma weak MPI_Lookup_name = PMPI_Lookup_name
