/*
 * MPI dynamic processes (MPI-4.1 chapter 11): spawn, ports, names, join.
 *
 * Processes of different jobs reach each other over the device's sock
 * channel (src/rdma/sock): one TCP connection per pair, made here and handed
 * to the device (rch_dev_dyn_attach), which numbers the process after the
 * job's own ranks. Every connection is authenticated by a secret:
 *
 *   port name   "rdmach-port:<ipv4>:<tcp port>:<secret, 16 hex>"  (Open_port)
 *               a connect must quote the secret or it is refused (a stranger
 *               learns nothing and the accept goes on waiting);
 *   contact     each process's own listener {ipv4, port, secret}, opened on
 *               its first dynamic call; the roots swap their groups' contacts.
 *
 * Establishing an intercommunicator (dyn_connect.c), for accept, connect,
 * spawn (parent: accept on a port of its own; children: connect at init),
 * join, and an MPI_Intercomm_create whose groups are not all of one job
 * (intercomm.c; the link is a port one leader opens, rch_dyn_leader_link):
 *   1. both groups: a hidden duplicate of the local communicator, then
 *      every member's contact and free context ids gathered at the root;
 *   2. the roots, over their link (the port's connection, or join's socket):
 *      each sends {size, free context ids, contacts}; a context pair free
 *      at every member of both groups is the candidate; the acceptor adds
 *      a random operation id;
 *   3. each root broadcasts the outcome to its group; then in rounds, each
 *      member holds the candidate if it is still free, the roots swap their
 *      groups' {all held, free ids} and broadcast: agreed, or the next
 *      candidate (dyn_connect.c: other threads may establish meanwhile);
 *   4. every connector member connects to every acceptor member's listener
 *      and sends {magic, that member's secret, operation id, its own rank};
 *      every acceptor member accepts as many and attaches each to the
 *      device under the rank it names (one naming another operation of this
 *      process is kept for that one: all accept on the one listener). The
 *      acceptor's group is first in a merge whose two sides pass the same
 *      `high`.
 */
#ifndef RCH_MPI_DYN_H
#define RCH_MPI_DYN_H

#include <stdint.h>
#include "base/tunables.h"
#include "mpi/mpi_impl.h"

#define RCH_DYN_MAGIC 0x5244594eu      /* "RDYN" */
/* How long a step that waits for another process may take (the accept of a
 * user's port waits for ever): RDMACH_DYN_TIMEOUT_MS. */
#define RCH_DYN_TIMEOUT_MS (rch_tun.dyn_timeout_ms)
/* The waits poll in slices this long and, at MPI_THREAD_MULTIPLE, let the
 * other threads have the global critical section between them (dyn_sock.c). */
#define RCH_DYN_SLICE_MS 5

/* A listener: what a peer needs to connect and prove it may. */
struct rch_dyn_contact {
    uint32_t ip;                      /* network order */
    uint16_t port;                    /* network order */
    uint16_t pad;
    uint64_t secret;
};
_Static_assert(sizeof(struct rch_dyn_contact) == 16, "contact is wire data");

struct rch_dyn_listener {
    int fd;
    struct rch_dyn_contact c;
};

/* dyn_sock.c */
rdmach_status_t rch_dyn_listen(struct rch_dyn_listener *l);
void rch_dyn_unlisten(struct rch_dyn_listener *l);
/* This process's own listener, opened on first use. */
rdmach_status_t rch_dyn_self(const struct rch_dyn_contact **c);
int rch_dyn_self_fd(void);
void rch_dyn_port_name(const struct rch_dyn_contact *c, char *name, size_t len);
/* OK, or RDMACH_ERR_INVALID_ARG naming what is wrong. */
rdmach_status_t rch_dyn_port_parse(const char *name, struct rch_dyn_contact *c);
/* A TCP connection to c (blocking, with TCP_NODELAY), or an error. */
rdmach_status_t rch_dyn_dial(const struct rch_dyn_contact *c, int *fd);
/* Accept one connection within timeout_ms (< 0: for ever). */
rdmach_status_t rch_dyn_accept_fd(int lfd, int timeout_ms, int *fd);
rdmach_status_t rch_dyn_write(int fd, const void *buf, size_t len);
rdmach_status_t rch_dyn_read(int fd, void *buf, size_t len, int timeout_ms);
/* 1 if the two ends of the connected TCP socket fd have different addresses
 * (the other process runs on another host), else 0. */
int rch_dyn_other_host(int fd);
void rch_dyn_fini(void);

/* dyn_port.c: open ports (a name into name[MPI_MAX_PORT_NAME]), close
 * (-1: not open here), and the root's link of an accept on one: an MPI
 * error class. */
int rch_dyn_port_open(char *name);
int rch_dyn_port_close(const char *name);
int rch_dyn_port_link(const char *name, int timeout_ms, int *link);
/* The root's link of a connect to port name: an MPI error class. */
int rch_dyn_port_connect(const char *name, int *link);
void rch_dyn_ports_fini(void);
/* The link of MPI_Intercomm_create's leaders when their groups connect as
 * above (intercomm.c): the acceptor opens a port and names it to the other
 * in a message over peer (remote_leader, tag, ctx). An MPI error class. */
int rch_dyn_leader_link(struct rch_mpi_comm *peer, int remote_leader, int tag, uint32_t ctx, int acceptor,
                        int *link);

/* dyn_connect.c: the collective establishment above. `link` is the root's
 * connection to the other root (-1 at the root: it failed, with the reason
 * in *root_err, an MPI error class; ignored elsewhere; closed here). */
int rch_dyn_establish(const char *fn, struct rch_mpi_comm *c, int root, int acceptor, int link, int root_err,
                      MPI_Comm *newcomm);
/* Close the connections of step 4 kept for establishments that never took
 * them (at finalize, from rch_dyn_fini). */
void rch_dyn_parked_fini(void);

/* dyn_spawn.c: the intercommunicator to the parent (MPI_COMM_NULL if none),
 * made at init by a spawned process. */
int rch_dyn_init_child(void);
void rch_dyn_finalize(void);

#endif
