/*
 * Ports: MPI_Open_port / MPI_Close_port, MPI_Comm_accept /
 * MPI_Comm_connect, and MPI_Comm_join (the protocol is in dyn.h). A port is
 * a listener of its own with a secret of its own; a connect must quote the
 * secret first ({magic, secret}, answered by one byte 1), or the accept
 * closes the connection and goes on waiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include "base/log.h"
#include "boot/boot.h"
#include "mpi/dyn.h"

struct port {
    struct port *next;
    struct rch_dyn_listener l;
    char name[MPI_MAX_PORT_NAME];
};
static struct port *ports;

struct port_hello {
    uint32_t magic, pad;      /* pad: the exit code in the launcher's RCH_BOOT_SPAWN_EXITED */
    uint64_t secret;
};

/* How long a connection to a port may take to say who it is. */
#define HELLO_MS 5000

static struct port *port_find(const char *name)
{
    for (struct port *p = ports; p; p = p->next)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

int rch_dyn_port_open(char *name)
{
    struct port *p = calloc(1, sizeof(*p));
    if (!p)
        return MPI_ERR_NO_MEM;
    if (rch_dyn_listen(&p->l) != RDMACH_OK) {
        free(p);
        return MPI_ERR_OTHER;
    }
    rch_dyn_port_name(&p->l.c, p->name, sizeof(p->name));
    p->next = ports;
    ports = p;
    strcpy(name, p->name);
    return MPI_SUCCESS;
}

int rch_dyn_port_close(const char *name)
{
    for (struct port **pp = &ports; *pp; pp = &(*pp)->next) {
        struct port *p = *pp;
        if (strcmp(p->name, name) == 0) {
            *pp = p->next;
            rch_dyn_unlisten(&p->l);
            free(p);
            return 0;
        }
    }
    return -1;
}

void rch_dyn_ports_fini(void)
{
    while (ports)
        rch_dyn_port_close(ports->name);
    rch_dyn_fini();
}

static struct rch_log_limit stranger_limit;

/* The root's link of an accept: the first connection that quotes the
 * port's secret (timeout_ms < 0: wait for ever). An MPI error class. */
int rch_dyn_port_link(const char *name, int timeout_ms, int *link)
{
    struct port *p = port_find(name);
    if (!p) {
        rch_base_err(RDMACH_ERR_INVALID_ARG, "port %.80s is not open in this process (MPI_Open_port)", name);
        return MPI_ERR_PORT;
    }
    for (;;) {
        int fd;
        rdmach_status_t st = rch_dyn_accept_fd(p->l.fd, timeout_ms, &fd);
        if (st != RDMACH_OK)
            return rch_mpi_class_of(st);
        struct port_hello h;
        int said = rch_dyn_read(fd, &h, sizeof(h), HELLO_MS) == RDMACH_OK && h.secret == p->l.c.secret;
        if (said && h.magic == RCH_BOOT_SPAWN_EXITED) {
            close(fd);
            rch_base_err(RDMACH_ERR_PEER_DEAD, "the spawned job ended with exit code %d before its processes "
                         "connected (the launcher's report)", (int)h.pad);
            return MPI_ERR_SPAWN;
        }
        if (said && h.magic == RCH_DYN_MAGIC) {
            char yes = 1;
            if (rch_dyn_write(fd, &yes, 1) == RDMACH_OK) {
                *link = fd;
                return MPI_SUCCESS;
            }
        } else {
            rch_log_limited(&stranger_limit, RCH_LOG_WARN, "dyn", "port %s: refused a connection that did not "
                            "quote the port's key", name);
        }
        close(fd);
    }
}

/* The root's link of a connect. An MPI error class. */
int rch_dyn_port_connect(const char *name, int *link)
{
    struct rch_dyn_contact c;
    if (rch_dyn_port_parse(name, &c) != RDMACH_OK)
        return MPI_ERR_PORT;
    int fd;
    if (rch_dyn_dial(&c, &fd) != RDMACH_OK)
        return MPI_ERR_PORT;
    struct port_hello h = { .magic = RCH_DYN_MAGIC, .secret = c.secret };
    char yes = 0;
    rdmach_status_t st = rch_dyn_write(fd, &h, sizeof(h));
    if (st == RDMACH_OK)
        st = rch_dyn_read(fd, &yes, 1, RCH_DYN_TIMEOUT_MS);
    if (st != RDMACH_OK || yes != 1) {
        close(fd);
        rch_base_err(RDMACH_ERR_UNREACHABLE, "port %.80s refused the connection (a port closed, or another "
                     "key)", name);
        return MPI_ERR_PORT;
    }
    *link = fd;
    return MPI_SUCCESS;
}

/* The link between two leaders of an MPI_Intercomm_create whose groups
 * connect the way accept/connect's do (intercomm.c): the acceptor opens a
 * port and sends its name (empty: it could not) to the other over peer, on
 * (remote_leader, tag, ctx), which connects to it. An MPI error class. */
int rch_dyn_leader_link(struct rch_mpi_comm *peer, int remote_leader, int tag, uint32_t ctx, int acceptor,
                        int *link)
{
    char name[MPI_MAX_PORT_NAME];
    memset(name, 0, sizeof(name));
    *link = -1;
    if (acceptor) {
        int cls = rch_dyn_port_open(name);
        if (cls)
            name[0] = '\0';
        struct rch_dev_req *s = NULL;
        rdmach_status_t st = rch_dev_isend(name, sizeof(name), peer->peer_world_of[remote_leader], peer->rank, tag,
                                           ctx, RCH_DEV_SEND_STD, &s);
        st = st == RDMACH_OK ? rch_mpi_wait_free(s) : st;
        if (!cls && st != RDMACH_OK)
            cls = rch_mpi_class_of(st);
        if (!cls)
            cls = rch_dyn_port_link(name, RCH_DYN_TIMEOUT_MS, link);
        if (name[0])
            rch_dyn_port_close(name);
        return cls;
    }
    struct rch_dev_req *r = NULL;
    rdmach_status_t st = rch_dev_irecv(name, sizeof(name), remote_leader, tag, ctx, &r);
    st = st == RDMACH_OK ? rch_mpi_wait_free(r) : st;
    if (st != RDMACH_OK)
        return rch_mpi_class_of(st);
    name[sizeof(name) - 1] = '\0';
    if (!name[0]) {
        rch_base_err(RDMACH_ERR_OTHER, "the remote leader could not open a port to connect the groups");
        return MPI_ERR_OTHER;
    }
    return rch_dyn_port_connect(name, link);
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Open_port";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    (void)info;   /* no key of MPI's for ports; rdmach has none of its own */
    if (!port_name)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument port_name is NULL", fn);
    err = rch_dyn_port_open(port_name);
    if (err)
        return rch_mpi_err(MPI_COMM_NULL, err, "%s: %s", fn, rdmach_last_error());
    return MPI_SUCCESS;
}
#pragma weak MPI_Open_port = PMPI_Open_port

int PMPI_Close_port(const char *port_name)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Close_port";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!port_name)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument port_name is NULL", fn);
    if (rch_dyn_port_close(port_name) != 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_PORT, "%s: port %.80s is not open in this process", fn, port_name);
    return MPI_SUCCESS;
}
#pragma weak MPI_Close_port = PMPI_Close_port

/* The checks of accept and connect, at every member. */
static int conn_check(const char *fn, const char *port_name, int root, MPI_Comm comm, MPI_Comm *newcomm,
                      struct rch_mpi_comm **cp)
{
    int err = rch_mpi_comm_maker_check(fn, comm, newcomm, cp);
    if (err)
        return err;
    *newcomm = MPI_COMM_NULL;
    if ((err = rch_mpi_intra_only(fn, *cp, "comm")) != MPI_SUCCESS)
        return err;
    if (root < 0 || root >= (*cp)->size)
        return rch_mpi_err(comm, MPI_ERR_ROOT, "%s: invalid root %d in argument root (communicator size %d)", fn,
                           root, (*cp)->size);
    if ((*cp)->rank == root && !port_name)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument port_name is NULL at the root", fn);
    return MPI_SUCCESS;
}

/* Accept or connect: the root makes the link, then everyone establishes. */
static int conn_side(const char *fn, const char *port_name, int root, MPI_Comm comm, MPI_Comm *newcomm,
                     int acceptor)
{
    struct rch_mpi_comm *c;
    int err = conn_check(fn, port_name, root, comm, newcomm, &c);
    if (err)
        return err;
    int link = -1, root_err = 0;
    if (c->rank == root)   /* an accept waits for its client for ever, as MPI says */
        root_err = acceptor ? rch_dyn_port_link(port_name, -1, &link) : rch_dyn_port_connect(port_name, &link);
    return rch_dyn_establish(fn, c, root, acceptor, link, root_err, newcomm);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    (void)info;
    return conn_side("MPI_Comm_accept", port_name, root, comm, newcomm, 1);
}
#pragma weak MPI_Comm_accept = PMPI_Comm_accept

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    RCH_MPI_CS();
    (void)info;
    return conn_side("MPI_Comm_connect", port_name, root, comm, newcomm, 0);
}
#pragma weak MPI_Comm_connect = PMPI_Comm_connect

/* Join: both sides send a random number over fd; the larger accepts. The
 * roots' exchange then runs over a duplicate of fd (closed after), the
 * connection itself is made between the listeners as for connect. */
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Comm_join";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!intercomm)
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, "%s: argument intercomm is NULL", fn);
    *intercomm = MPI_COMM_NULL;
    if (fd < 0 || fcntl(fd, F_GETFD) < 0)
        return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_ARG, "%s: argument fd %d is not an open socket", fn, fd);
    uint64_t mine[2] = { RCH_DYN_MAGIC, 0 }, theirs[2];
    do {
        if (getrandom(&mine[1], sizeof(mine[1]), 0) != (ssize_t)sizeof(mine[1]))
            return rch_mpi_err(MPI_COMM_SELF, MPI_ERR_INTERN, "%s: getrandom failed", fn);
        rdmach_status_t st = rch_dyn_write(fd, mine, sizeof(mine));
        if (st == RDMACH_OK)
            st = rch_dyn_read(fd, theirs, sizeof(theirs), RCH_DYN_TIMEOUT_MS);
        if (st != RDMACH_OK || theirs[0] != RCH_DYN_MAGIC)
            return rch_mpi_err(MPI_COMM_SELF, st != RDMACH_OK ? rch_mpi_class_of(st) : MPI_ERR_OTHER,
                               "%s: the other side of fd %d does not join: %s", fn, fd,
                               st != RDMACH_OK ? rdmach_last_error() : "it sent something else");
    } while (mine[1] == theirs[1]);
    int link = dup(fd);
    int root_err = link < 0 ? MPI_ERR_OTHER : 0;
    if (link < 0)
        rch_base_errno(errno, "dup of fd %d", fd);
    return rch_dyn_establish(fn, rch_mpi_comm_get(MPI_COMM_SELF), 0, mine[1] > theirs[1], link, root_err,
                             intercomm);
}
#pragma weak MPI_Comm_join = PMPI_Comm_join
