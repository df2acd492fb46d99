/*
 * The launcher options users bring from MPICH's mpiexec and Open MPI's mpirun
 * (rdmachrun is also installed as mpiexec and mpirun). Those with a meaning
 * when every rank runs on this machine act: the environment options set the
 * variable before the ranks are started, --bind-to sets RDMACH_BIND,
 * --timeout sets MPIEXEC_TIMEOUT (the job's time limit, as Hydra's), -usize
 * MPIEXEC_UNIVERSE_SIZE (MPI_UNIVERSE_SIZE, as Hydra's), and
 * --oversubscribe / -genvall ask for what is already the default, and the
 * ranks-per-node options (-ppn, --map-by ppr:N:node) are met by this one
 * host, as Hydra meets them with a one-host list. Those that
 * place ranks on other nodes are refused with a message naming Hydra, which
 * runs rdmach programs across nodes (docs/ARCHITECTURE.md, src/boot), unless
 * every host they name is this machine (-hosts localhost, a hostfile of this
 * host's name): then they ask for what rdmachrun does. Any other option is
 * left to the caller, which calls it unknown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "run.h"

/* Options that take a value and only make sense across several nodes. */
static const char *const multi_node[] = { "-rankfile", "--rankfile" };
/* Ranks per node: with this machine as the only host, every block of N
 * ranks lands on it, as Hydra does with a one-host list; the value is still
 * checked. (RDMACH_VNODE_SIZE=N lays the ranks out as pretend nodes of N.) */
static const char *const per_node[] = { "-ppn", "-npernode", "--npernode" };
static const char *const map_by[] = { "--map-by", "-map-by" };
/* Host lists (MPICH's "a,b:2", Open MPI's "a,b") and host files (one host a
 * line, "host:slots" or "host slots=N", # comments). */
static const char *const host_list[] = { "-hosts", "-host", "--host", "-H" };
static const char *const host_file[] = { "-f", "-hostfile", "--hostfile", "-machinefile", "--machinefile" };

static int is_one_of(const char *a, const char *const *list, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(a, list[k]) == 0)
            return 1;
    return 0;
}
#define IS_ONE_OF(a, list) is_one_of(a, list, sizeof(list) / sizeof(list[0]))

static void refuse_nodes(const char *prog, const char *opt, const char *what)
{
    fprintf(stderr,
            "%s: %s%s places ranks on other nodes; %s starts every rank on this machine "
            "(across nodes run rdmach programs with Hydra, mpiexec.hydra / mpiexec.mpich)\n",
            prog, opt, what, prog);
}

/* Is the host name (len bytes, up to any ":slots") this machine? */
static int is_local(const char *h, size_t len)
{
    char me[256];
    const char *colon = memchr(h, ':', len);
    if (colon != NULL)
        len = (size_t)(colon - h);
    if ((len == 9 && strncmp(h, "localhost", 9) == 0) || (len == 9 && strncmp(h, "127.0.0.1", 9) == 0))
        return 1;
    if (gethostname(me, sizeof(me)) != 0)
        return 0;
    me[sizeof(me) - 1] = '\0';
    size_t short_len = strcspn(me, ".");
    return (len == strlen(me) && strncmp(h, me, len) == 0) ||
           (len == short_len && strncmp(h, me, len) == 0);
}

/* 0 if every host of the comma-separated list is this machine, else -1 (said why). */
static int check_host_list(const char *prog, const char *opt, const char *list)
{
    for (const char *h = list; *h != '\0';) {
        size_t len = strcspn(h, ",");
        if (len > 0 && !is_local(h, len)) {
            char what[300];
            snprintf(what, sizeof(what), " '%.*s'", (int)(len < 256 ? len : 256), h);
            refuse_nodes(prog, opt, what);
            return -1;
        }
        h += len + (h[len] == ',');
    }
    return 0;
}

static int check_host_file(const char *prog, const char *opt, const char *path)
{
    char line[512];
    FILE *f = fopen(path, "r");
    int rc = 0;

    if (f == NULL) {
        fprintf(stderr, "%s: %s '%s': %s\n", prog, opt, path, strerror(errno));
        return -1;
    }
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "#\n")] = '\0';
        const char *h = line + strspn(line, " \t");
        size_t len = strcspn(h, " \t");
        if (len > 0 && !is_local(h, len)) {
            char what[300];
            snprintf(what, sizeof(what), " (%s: '%.*s')", path, (int)(len < 256 ? len : 256), h);
            refuse_nodes(prog, opt, what);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

/* RDMACH_BIND's values (src/base/tunables.c); Open MPI's "socket" and
 * "package" are the NUMA node on the machines rdmach runs on. */
static const char *bind_value(const char *v)
{
    if (strcmp(v, "core") == 0 || strcmp(v, "none") == 0 || strcmp(v, "numa") == 0)
        return v;
    if (strcmp(v, "socket") == 0 || strcmp(v, "package") == 0)
        return "numa";
    return NULL;
}

static int valid_name(const char *s, size_t len)
{
    if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t k = 0; k < len; k++)
        if (!(s[k] == '_' || (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
              (s[k] >= '0' && s[k] <= '9')))
            return 0;
    return 1;
}

static int set_env(const char *prog, const char *opt, const char *name, size_t len, const char *value)
{
    char buf[256];

    if (!valid_name(name, len) || len >= sizeof(buf)) {
        fprintf(stderr, "%s: %s: '%.*s' is not an environment variable name\n", prog, opt, (int)len, name);
        return -1;
    }
    memcpy(buf, name, len);
    buf[len] = '\0';
    if (value != NULL)
        setenv(buf, value, 1);
    return 0;
}

static int check_per_node(const char *prog, const char *opt, const char *v, const char *n)
{
    char *end;
    errno = 0;
    long k = strtol(n, &end, 10);
    if (errno || end == n || (*end != '\0' && *end != ':') || k < 1 || k > RUN_NP_MAX) {
        fprintf(stderr, "%s: %s '%s': a number of ranks per node from 1 to %d\n", prog, opt, v, RUN_NP_MAX);
        return -1;
    }
    return 0;
}

/* --map-by: Open MPI's ppr:N:node is ranks per node (above); slot, core,
 * hwthread, numa, socket and package with their :modifiers ask for ranks in
 * order on this machine's resources, which is what rdmachrun does (binding is
 * --bind-to's). Anything else (node, dist, seq, rankfile) places ranks on
 * other nodes or by a file. */
static int check_map_by(const char *prog, const char *opt, const char *v)
{
    static const char *const local[] = { "slot", "core", "hwthread", "numa", "socket", "package", "l3cache" };
    size_t len = strcspn(v, ":");
    if (strncmp(v, "ppr:", 4) == 0) {
        const char *unit = strchr(v + 4, ':');
        if (unit != NULL && strcmp(unit + 1, "node") == 0)
            return check_per_node(prog, opt, v, v + 4);
        fprintf(stderr, "%s: %s '%s': accepted ppr form: ppr:N:node\n", prog, opt, v);
        return -1;
    }
    for (size_t k = 0; k < sizeof(local) / sizeof(local[0]); k++)
        if (strlen(local[k]) == len && strncmp(v, local[k], len) == 0)
            return 0;
    refuse_nodes(prog, opt, " with that mapping");
    return -1;
}

int run_parse_option(int argc, char **argv, int *i, const char *prog)
{
    const char *a = argv[*i];
    int values = 0; /* how many values the option takes */

    if (strcmp(a, "-genv") == 0 || strcmp(a, "-env") == 0)
        values = 2;
    else if (strcmp(a, "-x") == 0 || strcmp(a, "--bind-to") == 0 || strcmp(a, "-bind-to") == 0 ||
             strcmp(a, "--timeout") == 0 || strcmp(a, "-timeout") == 0 || strcmp(a, "-usize") == 0 ||
             IS_ONE_OF(a, host_list) || IS_ONE_OF(a, host_file) || IS_ONE_OF(a, per_node) ||
             IS_ONE_OF(a, map_by))
        values = 1;
    else if (strcmp(a, "-genvall") == 0 || strcmp(a, "--oversubscribe") == 0 ||
             strcmp(a, "-oversubscribe") == 0)
        return 1;
    if (IS_ONE_OF(a, multi_node)) {
        refuse_nodes(prog, a, "");
        return -1;
    }
    if (values == 0)
        return 0;
    if (*i + values >= argc) {
        fprintf(stderr, "%s: option %s needs %s\n", prog, a, values == 2 ? "a name and a value" : "a value");
        return -1;
    }
    const char *v = argv[++*i];
    if (values == 2) {
        const char *value = argv[++*i];
        return set_env(prog, a, v, strlen(v), value) < 0 ? -1 : 1;
    }
    if (strcmp(a, "-x") == 0) { /* NAME=VALUE, or NAME: pass the current value, as every rank inherits it */
        const char *eq = strchr(v, '=');
        return set_env(prog, a, v, eq ? (size_t)(eq - v) : strlen(v), eq ? eq + 1 : NULL) < 0 ? -1 : 1;
    }
    if (strcmp(a, "--timeout") == 0 || strcmp(a, "-timeout") == 0) { /* rdmachrun checks it with the variable */
        setenv("MPIEXEC_TIMEOUT", v, 1);
        return 1;
    }
    if (strcmp(a, "-usize") == 0) { /* rdmachrun checks it with the variable */
        setenv("MPIEXEC_UNIVERSE_SIZE", v, 1);
        return 1;
    }
    if (IS_ONE_OF(a, host_list))
        return check_host_list(prog, a, v) < 0 ? -1 : 1;
    if (IS_ONE_OF(a, host_file))
        return check_host_file(prog, a, v) < 0 ? -1 : 1;
    if (IS_ONE_OF(a, per_node))
        return check_per_node(prog, a, v, v) < 0 ? -1 : 1;
    if (IS_ONE_OF(a, map_by))
        return check_map_by(prog, a, v) < 0 ? -1 : 1;
    const char *bind = bind_value(v);
    if (bind == NULL) {
        fprintf(stderr, "%s: %s '%s': accepted here: core, numa (socket, package), none\n", prog, a, v);
        return -1;
    }
    setenv("RDMACH_BIND", bind, 1);
    return 1;
}
