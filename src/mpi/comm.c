/*
 * Communicator objects: the handle table, MPI_COMM_WORLD and MPI_COMM_SELF,
 * and the local communicator calls (rank, size, compare, free, names), with
 * Comm_disconnect and the remote-group queries.
 * Creating communicators collectively is in comm_create.c.
 *
 * Handles: world and self are MPICH's built-ins (0x44000000, 0x44000001);
 * others are direct comm handles (0x84000000 | index) into `table`, whose
 * slots are not reused while the job runs so that a stale handle is reported
 * as invalid rather than naming another communicator.
 */
#include <stdlib.h>
#include <string.h>
#include "boot/boot.h"
#include "mpi/mpi_impl.h"

/* MPI_COMM_WORLD's object is global: mpi_impl.h's inline lookup reads it. */
struct rch_mpi_comm rch_mpi_comm_world;
static struct rch_mpi_comm self;
static struct rch_mpi_comm **table;
static int table_len, table_cap;

struct rch_mpi_comm *rch_mpi_comm_get(MPI_Comm comm)
{
    if (RCH_LIKELY(comm == MPI_COMM_WORLD))
        return rch_mpi_state == RCH_MPI_RUNNING ? &rch_mpi_comm_world : NULL;
    if (comm == MPI_COMM_SELF)
        return rch_mpi_state == RCH_MPI_RUNNING ? &self : NULL;
    if (RCH_MPI_HKIND(comm) != 2 || RCH_MPI_HOBJ(comm) != RCH_MPI_OBJ_COMM)
        return NULL;
    unsigned i = RCH_MPI_HINDEX(comm);
    return (int)i < table_len ? table[i] : NULL;
}

int rch_mpi_comm_bad(const char *fn, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COMM, "%s: argument comm is MPI_COMM_NULL", fn);
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COMM, "%s: invalid communicator 0x%x in argument comm",
                       fn, (unsigned)comm);
}

struct rch_mpi_comm *rch_mpi_comm_arg(const char *fn, MPI_Comm comm, int *err)
{
    *err = rch_mpi_check_init(fn);
    if (*err)
        return NULL;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        *err = rch_mpi_comm_bad(fn, comm);
    return c;
}

/* The node layout of the members, dense node indices in order of first
 * appearance, for the collectives' view. */
static int fill_coll_view(struct rch_mpi_comm *c)
{
    /* a process of another job (device/dyn.c) counts as a node of its own:
     * nothing of this node's shared memory reaches it */
    int nodes = rch_boot.num_nodes + (rch_dev_nprocs() - rch_boot.size);
    c->coll_node_of = malloc((size_t)c->size * sizeof(int));
    int *seen = malloc((size_t)nodes * sizeof(int));
    int *ppn = calloc((size_t)nodes, sizeof(int));
    if (!c->coll_node_of || !seen || !ppn) {
        free(seen);
        free(ppn);
        free(c->coll_node_of);
        c->coll_node_of = NULL;
        return -1;
    }
    for (int n = 0; n < nodes; n++)
        seen[n] = -1;
    int nnodes = 0, max_ppn = 0;
    for (int r = 0; r < c->size; r++) {
        int w = c->world_of[r];
        int wn = w < rch_boot.size ? rch_boot.node_of[w] : rch_boot.num_nodes + (w - rch_boot.size);
        if (seen[wn] < 0)
            seen[wn] = nnodes++;
        c->coll_node_of[r] = seen[wn];
        if (++ppn[wn] > max_ppn)
            max_ppn = ppn[wn];
    }
    free(seen);
    free(ppn);
    c->coll.rank = c->rank;
    c->coll.size = c->size;
    c->coll.world_of = c->world_of;
    c->coll.ctx = c->ctx + 1;
    c->coll.nnodes = nnodes;
    c->coll.max_ppn = max_ppn;
    c->coll.node_of = c->coll_node_of;
    /* the collectives' own state: barrier backend, non-blocking sequence */
    if (rch_coll_comm_init(&c->coll) != RDMACH_OK) {
        free(c->coll_node_of);
        c->coll_node_of = NULL;
        return -1;
    }
    return 0;
}

static int init_object(struct rch_mpi_comm *c, int rank, int size, int *world_of, uint32_t ctx)
{
    c->rank = rank;
    c->size = size;
    c->world_of = world_of;
    c->ctx = ctx;
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    c->peer_size = size;
    c->peer_world_of = world_of;
    c->is_inter = 0;
    c->local = NULL;
    c->topo = NULL;
    c->attrs = NULL;
    c->hw_level = NULL;
    c->name[0] = '\0';
    if (fill_coll_view(c) != 0)
        return -1;
    /* The device fails receives naming a dead peer through these maps. */
    if (rch_dev_ctx_map(ctx, size, world_of) != RDMACH_OK || rch_dev_ctx_map(ctx + 1, size, world_of) != RDMACH_OK) {
        rch_dev_ctx_unmap(ctx);
        rch_coll_comm_free(&c->coll);
        free(c->coll_node_of);
        c->coll_node_of = NULL;
        return -1;
    }
    return 0;
}

struct rch_mpi_comm *rch_mpi_comm_create(int rank, int size, int *world_of, uint32_t ctx)
{
    if (table_len == table_cap) {
        if (table_len >= (1 << 26))
            return NULL;
        int n = table_cap ? table_cap * 2 : 16;
        struct rch_mpi_comm **p = realloc(table, (size_t)n * sizeof(*p));
        if (!p)
            return NULL;
        table = p;
        table_cap = n;
    }
    struct rch_mpi_comm *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    if (init_object(c, rank, size, world_of, ctx) != 0) {
        free(c);
        return NULL;
    }
    c->handle = RCH_MPI_HDIRECT(RCH_MPI_OBJ_COMM, table_len);
    table[table_len++] = c;
    return c;
}

void rch_mpi_comm_destroy(struct rch_mpi_comm *c)
{
    if (c == &rch_mpi_comm_world || c == &self)
        return;
    unsigned i = RCH_MPI_HINDEX(c->handle);
    if ((int)i < table_len && table[i] == c)
        table[i] = NULL;
    rch_mpi_bpool_drop(&c->bpool);    /* its buffered messages leave first */
    rch_dev_ctx_unmap(c->ctx);
    rch_dev_ctx_unmap(c->ctx + 1);
    rch_mpi_ctx_release(c->ctx);
    rch_mpi_topo_free(c->topo);
    rch_coll_comm_free(&c->coll);
    if (c->is_inter) {
        free(c->peer_world_of);
        rch_mpi_comm_destroy(c->local);
    }
    free(c->world_of);
    free(c->coll_node_of);
    free(c);
}

void rch_mpi_comm_init(void)
{
    static int self_world_of[1];
    int *w = malloc((size_t)rch_boot.size * sizeof(int));
    if (!w)
        rch_boot_abort(1, "MPI_Init: out of memory for MPI_COMM_WORLD");
    for (int i = 0; i < rch_boot.size; i++)
        w[i] = i;
    if (init_object(&rch_mpi_comm_world, rch_boot.rank, rch_boot.size, w, 0) != 0)
        rch_boot_abort(1, "MPI_Init: out of memory for MPI_COMM_WORLD");
    rch_mpi_comm_world.handle = MPI_COMM_WORLD;
    strcpy(rch_mpi_comm_world.name, "MPI_COMM_WORLD");
    self_world_of[0] = rch_boot.rank;
    if (init_object(&self, 0, 1, self_world_of, 2) != 0)
        rch_boot_abort(1, "MPI_Init: out of memory for MPI_COMM_SELF");
    self.handle = MPI_COMM_SELF;
    strcpy(self.name, "MPI_COMM_SELF");
}

int rch_mpi_comm_finalize_self(void)
{
    /* MPI: MPI_Finalize first frees MPI_COMM_SELF, deleting its attributes in
     * the reverse order of their setting, before any other part of MPI is
     * affected; a failing callback's code is MPI_Finalize's error. */
    return rch_mpi_attr_delete_all(&self.attrs, self.handle, 0);
}

void rch_mpi_comm_finalize(void)
{
    /* MPI_COMM_SELF's attributes were deleted by rch_mpi_comm_finalize_self;
     * world's delete callbacks run too (as MPICH), their errors unreported. */
    rch_mpi_attr_delete_all(&rch_mpi_comm_world.attrs, MPI_COMM_WORLD, 0);
    for (int i = 0; i < table_len; i++)
        if (table[i])
            rch_mpi_attr_drop(&table[i]->attrs);
    rch_mpi_bpool_drop(&rch_mpi_comm_world.bpool);
    rch_mpi_bpool_drop(&self.bpool);
    for (int i = 0; i < table_len; i++) {
        if (table[i]) {
            rch_mpi_bpool_drop(&table[i]->bpool);
            rch_mpi_topo_free(table[i]->topo);
            rch_coll_comm_free(&table[i]->coll);
            if (table[i]->is_inter)
                free(table[i]->peer_world_of);    /* ->local is in the table too */
            free(table[i]->world_of);
            free(table[i]->coll_node_of);
            free(table[i]);
        }
    }
    free(table);
    table = NULL;
    table_len = table_cap = 0;
    free(rch_mpi_comm_world.world_of);
    free(rch_mpi_comm_world.coll_node_of);
    rch_coll_comm_free(&rch_mpi_comm_world.coll);
    rch_coll_comm_free(&self.coll);
    free(self.coll_node_of);
    rch_mpi_comm_world.world_of = NULL;
}

/* ---- local calls ---- */

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (RCH_UNLIKELY(!c)) {
        int err = rch_mpi_check_init("MPI_Comm_rank");
        return err ? err : rch_mpi_comm_bad("MPI_Comm_rank", comm);
    }
    if (RCH_UNLIKELY(!rank))
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_rank: argument rank is NULL");
    *rank = c->rank;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_rank = PMPI_Comm_rank

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (RCH_UNLIKELY(!c)) {
        int err = rch_mpi_check_init("MPI_Comm_size");
        return err ? err : rch_mpi_comm_bad("MPI_Comm_size", comm);
    }
    if (RCH_UNLIKELY(!size))
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_size: argument size is NULL");
    *size = c->size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_size = PMPI_Comm_size

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Two groups of world ranks: MPI_CONGRUENT (same order), MPI_SIMILAR (same
 * members), MPI_UNEQUAL, or -1 out of memory. */
static int group_cmp(int n, const int *a, int m, const int *b)
{
    if (n != m)
        return MPI_UNEQUAL;
    if (memcmp(a, b, (size_t)n * sizeof(int)) == 0)
        return MPI_CONGRUENT;
    int *x = malloc(2 * (size_t)n * sizeof(int));
    if (!x)
        return -1;
    int *y = x + n;
    memcpy(x, a, (size_t)n * sizeof(int));
    memcpy(y, b, (size_t)n * sizeof(int));
    qsort(x, (size_t)n, sizeof(int), cmp_int);
    qsort(y, (size_t)n, sizeof(int), cmp_int);
    int r = memcmp(x, y, (size_t)n * sizeof(int)) == 0 ? MPI_SIMILAR : MPI_UNEQUAL;
    free(x);
    return r;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_compare");
    if (err)
        return err;
    struct rch_mpi_comm *a = rch_mpi_comm_get(comm1), *b = rch_mpi_comm_get(comm2);
    if (!a)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_Comm_compare: invalid communicator 0x%x in argument comm1",
                           (unsigned)comm1);
    if (!b)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_Comm_compare: invalid communicator 0x%x in argument comm2",
                           (unsigned)comm2);
    if (!result)
        return rch_mpi_err(comm1, MPI_ERR_ARG, "MPI_Comm_compare: argument result is NULL");
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (a->is_inter != b->is_inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    /* MPI: intercommunicators compare by both groups; the weaker answer wins
     * (MPI_CONGRUENT < MPI_SIMILAR < MPI_UNEQUAL). */
    int r = group_cmp(a->size, a->world_of, b->size, b->world_of);
    if (r != -1 && r != MPI_UNEQUAL && a->is_inter) {
        int q = group_cmp(a->peer_size, a->peer_world_of, b->peer_size, b->peer_world_of);
        r = q == -1 || q > r ? q : r;
    }
    if (r == -1)
        return rch_mpi_err(comm1, MPI_ERR_NO_MEM, "MPI_Comm_compare: out of memory");
    *result = r;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_compare = PMPI_Comm_compare

static int names_world(const int *world_of, int n, int w)
{
    for (int i = 0; i < n; i++)
        if (world_of[i] == w)
            return 1;
    return 0;
}

/* The processes of other jobs c names (world ranks from rch_boot.size on,
 * dev.h), each once; NULL when none (or out of memory: their connections
 * then stay until MPI_Finalize). */
static int *other_jobs(const struct rch_mpi_comm *c, int *n)
{
    int *w = malloc((size_t)(c->size + c->peer_size) * sizeof(int));
    *n = 0;
    for (int i = 0; w && i < c->size + c->peer_size; i++) {
        int r = i < c->size ? c->world_of[i] : c->peer_world_of[i - c->size];
        if (r >= rch_boot.size && !names_world(w, *n, r))
            w[(*n)++] = r;
    }
    return w;
}

/* After Comm_disconnect: the connections to the processes of other jobs
 * that no communicator names any more close (MPI-4.1 11.10.4: disconnected
 * processes are no longer connected); the device counts the communicators
 * naming each (its context maps) and leaves the others. The other side
 * does the same in its own Comm_disconnect, every communicator being
 * named on both sides. */
static void close_unused(const int *worlds, int n)
{
    for (int k = 0; k < n; k++)
        rch_dev_dyn_detach(worlds[k]);
}

/* Comm_free and Comm_disconnect: argument checks, then (disconnect) the
 * members' agreement, the attributes' delete callbacks and the object. */
static int comm_release(const char *fn, MPI_Comm *comm, int collective)
{
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!comm)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument comm is NULL", fn);
    struct rch_mpi_comm *c = rch_mpi_comm_get(*comm);
    if (!c)
        return rch_mpi_comm_bad(fn, *comm);
    if (c == &rch_mpi_comm_world || c == &self)
        return rch_mpi_err(*comm, MPI_ERR_COMM, "%s: cannot free the predefined communicator %s", fn,
                           c == &rch_mpi_comm_world ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    if (collective) {
        /* Disconnect returns once every member has called it: nothing is
         * sent on the communicator after that. */
        rdmach_status_t st = c->is_inter ? rch_mpi_inter_sync(c) : rch_mpi_exchange(c, NULL, 0, NULL, NULL);
        if (st != RDMACH_OK)
            return rch_mpi_err(*comm, rch_mpi_class_of(st), "%s: synchronizing with the other members failed: %s",
                               fn, rdmach_last_error());
    }
    /* MPI: a failing delete callback makes the free fail (the communicator stays). */
    int rc = rch_mpi_attr_delete_all(&c->attrs, c->handle, 1);
    if (rc != MPI_SUCCESS)
        return rch_mpi_err_raise(*comm, rc);
    int nothers = 0, *others = collective ? other_jobs(c, &nothers) : NULL;
    /* Pending operations on the communicator complete normally: the device
     * requests hold the context id and world ranks they need. */
    rch_mpi_comm_destroy(c);
    *comm = MPI_COMM_NULL;
    close_unused(others, nothers);
    free(others);
    return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    RCH_MPI_CS();
    return comm_release("MPI_Comm_free", comm, 0);
}
#pragma weak MPI_Comm_free = PMPI_Comm_free

/* A collective free (both groups of an intercommunicator). */
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    RCH_MPI_CS();
    return comm_release("MPI_Comm_disconnect", comm, 1);
}
#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect


int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_set_name");
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad("MPI_Comm_set_name", comm);
    if (!comm_name)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_set_name: argument comm_name is NULL");
    size_t n = strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(c->name, comm_name, n);
    c->name[n] = '\0';
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name

/* MPI_COMM_NULL is no communicator (MPI: erroneous here), but MPICH takes
 * it and names it "MPI_COMM_NULL", and programs written for MPICH (its own
 * test suite among them) rely on that: so does rdmach. Any other invalid
 * handle is an error. */
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_get_name");
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c && comm != MPI_COMM_NULL)
        return rch_mpi_comm_bad("MPI_Comm_get_name", comm);
    if (!comm_name || !resultlen)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_get_name: argument %s is NULL",
                           !comm_name ? "comm_name" : "resultlen");
    const char *name = c ? c->name : "MPI_COMM_NULL";
    size_t n = strlen(name);
    memcpy(comm_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_test_inter");
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad("MPI_Comm_test_inter", comm);
    if (!flag)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_test_inter: argument flag is NULL");
    *flag = c->is_inter;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter

/* The remote group of an intercommunicator: MPI_ERR_COMM for an
 * intracommunicator (MPI: comm must be an intercommunicator). */
static struct rch_mpi_comm *remote_query(const char *fn, MPI_Comm comm, const void *out, const char *arg, int *err)
{
    struct rch_mpi_comm *c = rch_mpi_comm_arg(fn, comm, err);
    if (!c)
        return NULL;
    if (!out) {
        *err = rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn, arg);
        return NULL;
    }
    if (!c->is_inter) {
        *err = rch_mpi_err(comm, MPI_ERR_COMM, "%s: communicator 0x%x in argument comm is an intracommunicator (an "
                           "intercommunicator is required)", fn, (unsigned)comm);
        return NULL;
    }
    return c;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_comm *c = remote_query("MPI_Comm_remote_size", comm, size, "size", &err);
    if (!c)
        return err;
    *size = c->peer_size;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_comm *c = remote_query("MPI_Comm_remote_group", comm, group, "group", &err);
    if (!c)
        return err;
    return rch_mpi_group_of_ranks("MPI_Comm_remote_group", comm, c->peer_size, c->peer_world_of, group);
}
#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
