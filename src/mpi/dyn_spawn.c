/*
 * MPI_Comm_spawn, MPI_Comm_spawn_multiple, MPI_Comm_get_parent.
 *
 * The root checks the commands and their info, resolves each executable
 * itself (so a missing one is an error here, not children that never come),
 * opens a port of its own and asks the launcher (PMI-1 spawn: Hydra,
 * rdmachrun; PMIx_Spawn: Open MPI's mpirun) for one new job whose KVS holds
 * the port under PARENT_ROOT_PORT_NAME (MPICH's key; under PMIx the apps'
 * environment, src/boot/pmix.c). It broadcasts the outcome and the
 * error codes; the parents then accept on the port (dyn.h) while the
 * children, in MPI_Init, connect to it with their MPI_COMM_WORLD.
 *
 * Info keys: "host" (this machine only: the name, "localhost" or an address
 * of its own; another is MPI_ERR_SPAWN), "wdir" (the children's working
 * directory; a relative command is looked up there), "path" (directories,
 * ':'-separated, searched before PATH), "soft" (the acceptable numbers of
 * processes, "a", "a:b", "a:b:step", comma-separated: the largest of them up
 * to maxprocs is started). Others are ignored, as MPI allows.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "boot/boot.h"
#include "mpi/dyn.h"

#define PARENT_KEY "PARENT_ROOT_PORT_NAME"

static MPI_Comm parent = MPI_COMM_NULL;

int PMPI_Comm_get_parent(MPI_Comm *p)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Comm_get_parent");
    if (err)
        return err;
    if (!p)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Comm_get_parent: argument parent is NULL");
    /* MPI: after the parent intercommunicator was freed or disconnected, NULL */
    *p = parent != MPI_COMM_NULL && rch_mpi_comm_get(parent) ? parent : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent

int rch_dyn_init_child(void)
{
    static const char fn[] = "MPI_Init";
    if (!rch_boot_spawned())
        return MPI_SUCCESS;
    struct rch_mpi_comm *w = &rch_mpi_comm_world;
    char port[MPI_MAX_PORT_NAME];
    int link = -1, root_err = 0;
    if (w->rank == 0) {
        root_err = rch_boot_job_get(PARENT_KEY, port, sizeof(port)) != RDMACH_OK
                       ? MPI_ERR_SPAWN : rch_dyn_port_connect(port, &link);
    }
    int err = rch_dyn_establish(fn, w, 0, 0, link, root_err, &parent);
    struct rch_mpi_comm *c = err == MPI_SUCCESS ? rch_mpi_comm_get(parent) : NULL;
    if (c)   /* MPI 4.1 11.8.2: the parent intercommunicator's name */
        snprintf(c->name, sizeof(c->name), "MPI_COMM_PARENT");
    return err;
}

void rch_dyn_finalize(void)
{
    parent = MPI_COMM_NULL;
    rch_dyn_ports_fini();
}

/* ---- the root's checks ---- */

/* The executable the children run: cmd if it has a '/' (relative to wdir
 * if given), else the first in path and then PATH. 0, or -1. */
/* out has PATH_MAX bytes (realpath's). */
static int resolve(const char *cmd, const char *path, const char *wdir, char *out, size_t len)
{
    if (strchr(cmd, '/')) {
        if (cmd[0] != '/' && wdir)
            snprintf(out, len, "%s/%s", wdir, cmd);
        else if (cmd[0] != '/')   /* absolute: the children need not start where we run */
            return realpath(cmd, out) && access(out, X_OK) == 0 ? 0 : -1;
        else
            snprintf(out, len, "%s", cmd);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    const char *lists[2] = { path, getenv("PATH") };
    for (int l = 0; l < 2; l++) {
        for (const char *d = lists[l]; d && *d;) {
            const char *e = strchr(d, ':');
            size_t n = e ? (size_t)(e - d) : strlen(d);
            if (n > 0) {
                snprintf(out, len, "%.*s/%s", (int)n, d, cmd);
                if (access(out, X_OK) == 0)
                    return 0;
            }
            d = e ? e + 1 : NULL;
        }
    }
    return -1;
}

static int host_is_here(const char *h)
{
    char me[256];
    if (strcmp(h, "localhost") == 0 || strcmp(h, "127.0.0.1") == 0 || strcmp(h, rch_boot.hostname) == 0)
        return 1;
    if (gethostname(me, sizeof(me)) == 0 && (strcmp(h, me) == 0 || (strncmp(h, me, strlen(h)) == 0 &&
                                                                    me[strlen(h)] == '.')))
        return 1;
    return 0;
}

/* The largest count in the soft set up to maxprocs, or -1 (none, or bad). */
static int soft_count(const char *soft, int maxprocs)
{
    int best = -1;
    for (const char *s = soft; s && *s;) {
        long a, b, step = 1;
        char *e;
        a = strtol(s, &e, 10);
        if (e == s)
            return -1;
        b = a;
        if (*e == ':') {
            b = strtol(e + 1, &e, 10);
            if (*e == ':')
                step = strtol(e + 1, &e, 10);
        }
        if (step <= 0 || (*e && *e != ','))
            return -1;
        for (long v = a; v <= b && v <= maxprocs; v += step)
            if (v > best)
                best = (int)v;
        s = *e ? e + 1 : e;
    }
    return best;
}

struct spawn_plan {
    struct rch_boot_spawn cmd;
    char exec[PATH_MAX];
    const char *keys[1], *vals[1];
};

/* Check one command at the root: an MPI error class (reason recorded). */
static int plan_one(const char *fn, int k, const char *command, char **argv, int maxprocs, MPI_Info info,
                    struct spawn_plan *p)
{
    if (!command)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: command %d is NULL", fn, k), MPI_ERR_ARG;
    if (maxprocs <= 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: invalid maxprocs %d of command %d (at least 1)", fn,
                            maxprocs, k), MPI_ERR_ARG;
    struct rch_mpi_info *in = NULL;
    if (info != MPI_INFO_NULL && !(in = rch_mpi_info_get(info)))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: invalid info of command %d", fn, k), MPI_ERR_INFO;
    const char *host = rch_mpi_info_lookup(in, "host"), *wdir = rch_mpi_info_lookup(in, "wdir");
    const char *path = rch_mpi_info_lookup(in, "path"), *soft = rch_mpi_info_lookup(in, "soft");
    if (host && !host_is_here(host))
        return rch_base_err(RDMACH_ERR_UNSUPPORTED, "%s: info host=%s of command %d: rdmach spawns on this "
                            "machine (%s) only", fn, host, k, rch_boot.hostname), MPI_ERR_SPAWN;
    p->cmd.nprocs = soft ? soft_count(soft, maxprocs) : maxprocs;
    if (p->cmd.nprocs <= 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: info soft=%s of command %d allows no count from 1 to "
                            "maxprocs %d", fn, soft, k, maxprocs), MPI_ERR_SPAWN;
    if (wdir && access(wdir, X_OK) != 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: info wdir=%s of command %d is not a directory this "
                            "process can enter", fn, wdir, k), MPI_ERR_SPAWN;
    if (resolve(command, path, wdir, p->exec, sizeof(p->exec)) != 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: command %d '%s' is not an executable file (looked up %s)",
                            fn, k, command, strchr(command, '/') ? "as given" : "in info path and PATH"),
               MPI_ERR_SPAWN;
    p->cmd.exec = p->exec;
    p->cmd.argv = argv;
    p->keys[0] = "wdir";
    p->vals[0] = wdir;
    p->cmd.ninfo = wdir ? 1 : 0;
    p->cmd.info_key = p->keys;
    p->cmd.info_val = p->vals;
    return MPI_SUCCESS;
}

/* What the root broadcasts: its outcome, then total error codes. */
struct spawn_outcome {
    int errclass;
    int total;
};

/* The children's root never connected to the root's port (rch_dyn_port_link
 * said why): MPI_ERR_SPAWN, with the reason. Under Hydra inside a Slurm
 * allocation the likely one is named: Hydra starts the children's proxies
 * as a new job step, and Slurm (20.11 on) makes a step wait while the job's
 * first step holds the nodes, unless it may overlap. */
static int link_failed(void)
{
    char why[256];
    snprintf(why, sizeof(why), "%s", rdmach_last_error());
    int slurm = getenv("SLURM_JOB_ID") && strcmp(rch_boot_pmi_name(), "pmi1") == 0;
    rch_base_err(RDMACH_ERR_TIMEOUT, "the spawned processes did not connect: %s%s", why,
                 slurm ? " (under Slurm, Hydra's step for them may be waiting for nodes the job's first step "
                         "holds: set HYDRA_LAUNCHER_EXTRA_ARGS=--overlap)" : "");
    return MPI_ERR_SPAWN;
}

/* The root's part: plan, open the port, spawn, take the children's root's
 * connection. The outcome in *o and errcodes[]; *link on success. */
static void root_spawn(const char *fn, int count, char *commands[], char **argvs[], const int maxprocs[],
                       const MPI_Info infos[], char *port, struct spawn_outcome *o, int *errcodes, int *link)
{
    struct spawn_plan *plan = calloc((size_t)count, sizeof(*plan));
    struct rch_boot_spawn *cmds = calloc((size_t)count, sizeof(*cmds));
    int *started = NULL;
    o->total = 0;
    o->errclass = !plan || !cmds ? MPI_ERR_NO_MEM : 0;
    for (int k = 0; k < count && !o->errclass; k++) {
        o->errclass = plan_one(fn, k, commands[k], argvs ? argvs[k] : NULL, maxprocs[k],
                               infos ? infos[k] : MPI_INFO_NULL, &plan[k]);
        cmds[k] = plan[k].cmd;
        o->total += plan[k].cmd.nprocs;
    }
    if (!o->errclass && !(started = malloc((size_t)o->total * sizeof(int))))
        o->errclass = MPI_ERR_NO_MEM;
    if (!o->errclass)
        o->errclass = rch_dyn_port_open(port);
    if (!o->errclass) {
        rdmach_status_t st = rch_boot_spawn(count, cmds, PARENT_KEY, port, started);
        if (st != RDMACH_OK) {
            o->errclass = MPI_ERR_SPAWN;
            rch_dyn_port_close(port);
        }
    }
    if (!o->errclass && rch_dyn_port_link(port, RCH_DYN_TIMEOUT_MS, link) != MPI_SUCCESS)
        o->errclass = -link_failed();   /* negative: the link failed */
    /* errcodes: one per maxprocs of each command, in order; the ones soft
     * left out, and all when the children never connected, MPI_ERR_SPAWN */
    for (int k = 0, at = 0, s = 0; k < count; k++)
        for (int i = 0; i < maxprocs[k] && maxprocs[k] > 0; i++, at++)
            errcodes[at] = o->errclass > 0 ? o->errclass : o->errclass < 0 ? MPI_ERR_SPAWN
                           : i < plan[k].cmd.nprocs ? (started[s++] ? MPI_ERR_SPAWN : MPI_SUCCESS) : MPI_ERR_SPAWN;
    free(started);
    free(cmds);
    free(plan);
}

static int spawn_common(const char *fn, int count, char *commands[], char **argvs[], const int maxprocs[],
                        const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm, int *errcodes)
{
    struct rch_mpi_comm *c;
    int err = rch_mpi_comm_maker_check(fn, comm, intercomm, &c);
    if (err)
        return err;
    *intercomm = MPI_COMM_NULL;
    if ((err = rch_mpi_intra_only(fn, c, "comm")) != MPI_SUCCESS)
        return err;
    if (root < 0 || root >= c->size)
        return rch_mpi_err(comm, MPI_ERR_ROOT, "%s: invalid root %d in argument root (communicator size %d)", fn,
                           root, c->size);
    struct spawn_outcome o = { 0, 0 };
    int nerr = 0, *codes = NULL, link = -1;
    char port[MPI_MAX_PORT_NAME] = "";
    if (c->rank == root) {
        if (count <= 0 || !commands || !maxprocs) {
            o.errclass = MPI_ERR_ARG;
            rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: %s", fn, count <= 0 ? "count must be at least 1"
                         : !commands ? "argument array_of_commands is NULL" : "argument array_of_maxprocs is NULL");
        } else {
            for (int k = 0; k < count; k++)
                nerr += maxprocs[k] > 0 ? maxprocs[k] : 0;
            codes = calloc((size_t)nerr + 1, sizeof(int));
            if (!codes)
                o.errclass = MPI_ERR_NO_MEM;
            else
                root_spawn(fn, count, commands, argvs, maxprocs, infos, port, &o, codes, &link);
        }
    }
    /* every member learns the outcome and the codes: nobody waits for children that never come */
    char why[256];
    snprintf(why, sizeof(why), "%s", rdmach_last_error());
    rdmach_status_t st = rch_coll_bcast(&c->coll, &nerr, sizeof(nerr), root);
    if (st == RDMACH_OK)
        st = rch_coll_bcast(&c->coll, &o, sizeof(o), root);
    if (st == RDMACH_OK && c->rank != root && !(codes = calloc((size_t)nerr + 1, sizeof(int))))
        st = RDMACH_ERR_NO_MEMORY;
    if (st == RDMACH_OK)
        st = rch_coll_bcast(&c->coll, codes, (size_t)nerr * sizeof(int), root);
    if (st == RDMACH_OK && errcodes != MPI_ERRCODES_IGNORE && nerr > 0)
        memcpy(errcodes, codes, (size_t)nerr * sizeof(int));
    free(codes);
    if (st != RDMACH_OK) {
        if (link >= 0)
            close(link);
        return rch_mpi_err(comm, rch_mpi_class_of(st), "%s: telling the others the outcome failed: %s", fn,
                           rdmach_last_error());
    }
    if (o.errclass > 0) {
        if (c->rank == root)
            return rch_mpi_err(comm, o.errclass, "%s", why);
        return rch_mpi_err(comm, o.errclass, "%s: the root (rank %d) failed to spawn the processes", fn, root);
    }
    err = rch_dyn_establish(fn, c, root, 1, link, -o.errclass, intercomm);
    if (c->rank == root)
        rch_dyn_port_close(port);
    return err;
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *intercomm, int array_of_errcodes[])
{
    RCH_MPI_CS();
    char *cmds[1] = { (char *)command };
    char **argvs[1] = { argv };
    MPI_Info infos[1] = { info };
    return spawn_common("MPI_Comm_spawn", 1, cmds, argvs, &maxprocs, infos, root, comm, intercomm,
                        array_of_errcodes);
}
#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm,
                             MPI_Comm *intercomm, int array_of_errcodes[])
{
    RCH_MPI_CS();
    return spawn_common("MPI_Comm_spawn_multiple", count, array_of_commands, array_of_argv, array_of_maxprocs,
                        array_of_info, root, comm, intercomm, array_of_errcodes);
}
#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
