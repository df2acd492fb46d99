/*
 * rdmachrun's PMI-1 server: answers each rank's requests as Hydra does (the
 * dialect is written down in src/boot/pmi_wire.h). Requests are dispatched
 * through a table indexed by command; a request that is malformed, out of
 * order or not a request at all ends the job with a message naming the rank.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "run.h"

/* ---- KVS ---- */

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static struct run_kv *find_slot(const struct run_kvs *kvs, const char *key)
{
    size_t i = (size_t)hash(key) & (kvs->cap - 1);
    while (kvs->slot[i].key && strcmp(kvs->slot[i].key, key) != 0)
        i = (i + 1) & (kvs->cap - 1);
    return &kvs->slot[i];
}

static int grow(struct run_kvs *kvs)
{
    struct run_kvs bigger = { .cap = kvs->cap ? kvs->cap * 2 : 64 };
    bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot));
    if (bigger.slot == NULL)
        return -1;
    for (size_t i = 0; i < kvs->cap; i++)
        if (kvs->slot[i].key)
            *find_slot(&bigger, kvs->slot[i].key) = kvs->slot[i];
    free(kvs->slot);
    kvs->slot = bigger.slot;
    kvs->cap = bigger.cap;
    return 0;
}

int run_kvs_put(struct run_kvs *kvs, const char *key, const char *value)
{
    if (kvs->npending == kvs->pending_cap) {
        size_t cap = kvs->pending_cap ? kvs->pending_cap * 2 : 64;
        struct run_kv *p = realloc(kvs->pending, cap * sizeof(*p));
        if (p == NULL)
            return -1;
        kvs->pending = p;
        kvs->pending_cap = cap;
    }
    char *k = strdup(key), *v = strdup(value);
    if (k == NULL || v == NULL) {
        free(k);
        free(v);
        return -1;
    }
    kvs->pending[kvs->npending++] = (struct run_kv){ k, v };
    return 0;
}

int run_kvs_commit(struct run_kvs *kvs)
{
    for (size_t i = 0; i < kvs->npending; i++) {
        struct run_kv *p = &kvs->pending[i];
        if ((kvs->count + 1) * 2 > kvs->cap && grow(kvs) < 0)
            return -1;
        struct run_kv *s = find_slot(kvs, p->key);
        if (s->key) {
            free(p->key);
            free(s->value);
            s->value = p->value;
        } else {
            *s = *p;
            kvs->count++;
        }
        p->key = p->value = NULL;
    }
    kvs->npending = 0;
    return 0;
}

const char *run_kvs_get(const struct run_kvs *kvs, const char *key)
{
    if (kvs->cap == 0)
        return NULL;
    const struct run_kv *s = find_slot(kvs, key);
    return s->key ? s->value : NULL;
}

void run_kvs_free(struct run_kvs *kvs)
{
    for (size_t i = 0; i < kvs->cap; i++) {
        free(kvs->slot[i].key);
        free(kvs->slot[i].value);
    }
    for (size_t i = 0; i < kvs->npending; i++) {
        free(kvs->pending[i].key);
        free(kvs->pending[i].value);
    }
    free(kvs->slot);
    free(kvs->pending);
    memset(kvs, 0, sizeof(*kvs));
}

/* ---- replies ---- */

/* A reply that cannot be delivered means the rank is gone; its exit is
 * reported when it is reaped, so the error is dropped here. */
static void send_line(struct run_rank *r, const char *line, size_t len)
{
    if (r->fd >= 0)
        (void)rch_pmi_write(r->fd, line, len);
}

#define REPLY(r, ...)                                                           \
    do {                                                                        \
        char line_[RCH_PMI_LINE_MAX];                                           \
        size_t len_;                                                            \
        if (rch_pmi_format(line_, sizeof(line_), &len_, __VA_ARGS__, NULL) == RDMACH_OK) \
            send_line((r), line_, len_);                                        \
    } while (0)

static void spawn_free(struct run_rank *r);

static void close_rank(struct run_rank *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    spawn_free(r);
}

static void protocol_error(struct run_job *job, struct run_rank *r, const char *what)
{
    run_fail(job, 1, "rank %d (pid %d) sent a bad PMI request: %s", r->rank, (int)r->pid, what);
    close_rank(r);
}

/* ---- handlers, one per request ---- */

typedef void (*handler_fn)(struct run_job *, struct run_rank *, const struct rch_pmi_msg *);

static void on_init(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    int ver, sub;
    if (rch_pmi_field_int(m, "pmi_version", 0, 1000, &ver) != RDMACH_OK ||
        rch_pmi_field_int(m, "pmi_subversion", 0, 1000, &sub) != RDMACH_OK) {
        protocol_error(job, r, rdmach_last_error());
        return;
    }
    if (ver != 1) {
        REPLY(r, RCH_PMI_RESPONSE_TO_INIT, "pmi_version", "1", "pmi_subversion", "1", "rc", "-1");
        char what[96];
        snprintf(what, sizeof(what), "asks for pmi_version=%d; rdmachrun speaks PMI-1 only", ver);
        protocol_error(job, r, what);
        return;
    }
    r->pmi_inited = 1;
    REPLY(r, RCH_PMI_RESPONSE_TO_INIT, "pmi_version", "1", "pmi_subversion", "1", "rc", "0");
}

static void on_get_maxes(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    char kvsname_max[16], keylen_max[16], vallen_max[16];
    snprintf(kvsname_max, sizeof(kvsname_max), "%d", RCH_PMI_KVSNAME_MAX);
    snprintf(keylen_max, sizeof(keylen_max), "%d", RCH_PMI_KEY_MAX);
    snprintf(vallen_max, sizeof(vallen_max), "%d", RCH_PMI_VAL_MAX);
    REPLY(r, RCH_PMI_MAXES, "kvsname_max", kvsname_max, "keylen_max", keylen_max, "vallen_max", vallen_max);
}

static void on_get_appnum(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    char num[16];
    snprintf(num, sizeof(num), "%d", r->app);
    REPLY(r, RCH_PMI_APPNUM, "appnum", num);
}

/* As given (-usize, MPIEXEC_UNIVERSE_SIZE: a spawned job inherits it, so it
 * is the whole universe's), else this machine's processors; at least the
 * job: room for MPI_Comm_spawn. */
static void on_get_universe_size(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    char size[16];
    long u = job->universe > 0 ? job->universe : sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(size, sizeof(size), "%d", u > job->size ? (int)u : job->size);
    REPLY(r, RCH_PMI_UNIVERSE_SIZE, "size", size);
}

static void on_get_my_kvsname(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    REPLY(r, RCH_PMI_MY_KVSNAME, "kvsname", job->kvsname);
}

/* The kvsname of a put/get must be ours (Hydra ends the job otherwise; we
 * answer rc=-1 and let the rank report it). */
static int kvsname_ok(const struct run_job *job, const struct rch_pmi_msg *m)
{
    const char *k = rch_pmi_field(m, "kvsname");
    return k && strcmp(k, job->kvsname) == 0;
}

static void on_put(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    const char *key, *value;
    if (rch_pmi_field_str(m, "key", &key) != RDMACH_OK || rch_pmi_field_str(m, "value", &value) != RDMACH_OK) {
        protocol_error(job, r, rdmach_last_error());
        return;
    }
    if (!kvsname_ok(job, m)) {
        REPLY(r, RCH_PMI_PUT_RESULT, "rc", "-1", "msg", "kvsname_mismatch");
        return;
    }
    if (strlen(key) >= RCH_PMI_KEY_MAX || key[0] == '\0') {
        REPLY(r, RCH_PMI_PUT_RESULT, "rc", "-1", "msg", "invalid_key_length");
        return;
    }
    if (strlen(value) >= RCH_PMI_VAL_MAX) {
        REPLY(r, RCH_PMI_PUT_RESULT, "rc", "-1", "msg", "value_too_long");
        return;
    }
    if (run_kvs_put(&job->kvs, key, value) < 0) {
        run_fail(job, 1, "out of memory storing PMI key %s of rank %d", key, r->rank);
        return;
    }
    REPLY(r, RCH_PMI_PUT_RESULT, "rc", "0", "msg", "success");
}

static void on_get(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    const char *key, *value;
    if (rch_pmi_field_str(m, "key", &key) != RDMACH_OK) {
        protocol_error(job, r, rdmach_last_error());
        return;
    }
    if (!kvsname_ok(job, m)) {
        REPLY(r, RCH_PMI_GET_RESULT, "rc", "-1", "msg", "kvsname_mismatch", "value", "unknown");
        return;
    }
    value = run_kvs_get(&job->kvs, key);
    if (value == NULL) {
        char msg[RCH_PMI_KEY_MAX + 32];
        snprintf(msg, sizeof(msg), "key_%s_not_found", key);
        REPLY(r, RCH_PMI_GET_RESULT, "rc", "-1", "msg", msg, "value", "unknown");
        return;
    }
    REPLY(r, RCH_PMI_GET_RESULT, "rc", "0", "msg", "success", "value", value);
}

/* A barrier that ranks which already finalized (or exited) can never join would hang. */
void run_pmi_check_barrier(struct run_job *job)
{
    if (job->barrier_count == 0)
        return;
    for (int i = 0; i < job->size; i++) {
        const struct run_rank *r = &job->ranks[i];
        if (r->aborted) {
            run_fail(job, job->partial_code ? job->partial_code : 1,
                     "%d rank(s) wait in a PMI barrier that rank %d can never join (it was aborted)",
                     job->barrier_count, i);
            return;
        }
        if (r->unfinalized_pid) {
            run_fail(job, 1,
                     "rank %d (pid %d) exited with code 0 without PMI finalize (after PMI init), and %d rank(s) "
                     "wait in a PMI barrier it can never join",
                     i, (int)r->unfinalized_pid, job->barrier_count);
            return;
        }
        if (r->pmi_finalized) {
            run_fail(job, 1, "%d rank(s) wait in a PMI barrier that rank %d can never join (it called finalize)",
                     job->barrier_count, i);
            return;
        }
    }
}

static void on_barrier_in(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    if (r->in_barrier) {
        protocol_error(job, r, "barrier_in while already in the barrier");
        return;
    }
    r->in_barrier = 1;
    if (++job->barrier_count < job->size) {
        run_pmi_check_barrier(job);
        return;
    }
    if (run_kvs_commit(&job->kvs) < 0) {
        run_fail(job, 1, "out of memory committing the PMI key-value store");
        return;
    }
    job->barrier_count = 0;
    for (int i = 0; i < job->size; i++) {
        job->ranks[i].in_barrier = 0;
        REPLY(&job->ranks[i], RCH_PMI_BARRIER_OUT);
    }
}

/* cmd=abort with ranks=a,b,... (MPI_ERRORS_ABORT on a communicator that is
 * not the whole job): those ranks are killed, the others keep running and
 * the job's exit status becomes the abort's code. 0 if the list is not such
 * a subset (then the whole job ends). */
static int abort_ranks(struct run_job *job, struct run_rank *r, const char *list, int code, const char *msg)
{
    char *mark = calloc((size_t)job->size, 1), *end;
    int n = 0;
    for (const char *p = list; mark && *p; p = *end == ',' ? end + 1 : end) {
        long k = strtol(p, &end, 10);
        if (end == p || k < 0 || k >= job->size || (*end != ',' && *end != '\0')) {
            n = -1;
            break;
        }
        n += !mark[k];
        mark[k] = 1;
    }
    if (!mark || n <= 0 || n >= job->size) {
        free(mark);
        return 0;
    }
    fprintf(stderr, "rdmachrun: rank %d (pid %d) aborted ranks %s with exit code %d%s%s; the others continue\n",
            r->rank, (int)r->pid, list, code, msg ? ": " : "", msg ? msg : "");
    fflush(stderr);
    for (int k = 0; k < job->size; k++) {
        if (!mark[k])
            continue;
        job->ranks[k].aborted = 1;
        if (job->ranks[k].pid > 0)
            kill(job->ranks[k].pid, SIGKILL);
    }
    free(mark);
    if (!job->partial_code)
        job->partial_code = code & 0xff;
    run_pmi_check_barrier(job);
    return 1;
}

static void on_abort(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    int code = 1;
    const char *msg = rch_pmi_field(m, "error_msg");
    if (rch_pmi_field(m, "exitcode") && rch_pmi_field_int(m, "exitcode", -1000000, 1000000, &code) != RDMACH_OK)
        code = 1;
    const char *ranks = rch_pmi_field(m, "ranks");
    if (ranks && abort_ranks(job, r, ranks, code, msg))
        return;
    r->aborted = 1;
    if (msg && strcmp(msg, RCH_PMI_ABORT_EXIT) == 0) {
        run_fail(job, code & 0xff ? code & 0xff : 1, "rank %d (pid %d) exited with code %d before MPI_Finalize",
                 r->rank, (int)r->pid, code);
        return;
    }
    /* The job ends, and exits with the code MPI_Abort named, 0 included (as
     * Hydra and Open MPI's mpirun do: programs end a usage message or an
     * early finish with MPI_Abort(MPI_COMM_WORLD, 0), and their scripts
     * read 0 as success). */
    run_fail(job, code & 0xff, "rank %d (pid %d) called abort with exit code %d%s%s",
             r->rank, (int)r->pid, code, msg ? ": " : "", msg ? msg : "");
}

static void on_finalize(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    if (r->in_barrier) {
        protocol_error(job, r, "finalize while in a barrier");
        return;
    }
    r->pmi_finalized = 1;
    REPLY(r, RCH_PMI_FINALIZE_ACK);
    run_pmi_check_barrier(job);
}

/* Requests only; a NULL slot (a reply, or a command we do not serve) is a
 * protocol error. */
static const handler_fn handlers[RCH_PMI_CMD_MAX] = {
    [RCH_PMI_INIT] = on_init,
    [RCH_PMI_GET_MAXES] = on_get_maxes,
    [RCH_PMI_GET_APPNUM] = on_get_appnum,
    [RCH_PMI_GET_UNIVERSE_SIZE] = on_get_universe_size,
    [RCH_PMI_GET_MY_KVSNAME] = on_get_my_kvsname,
    [RCH_PMI_PUT] = on_put,
    [RCH_PMI_BARRIER_IN] = on_barrier_in,
    [RCH_PMI_GET] = on_get,
    [RCH_PMI_ABORT] = on_abort,
    [RCH_PMI_FINALIZE] = on_finalize,
};

static void dispatch(struct run_job *job, struct run_rank *r, const struct rch_pmi_msg *m)
{
    char what[96];
    if ((unsigned)m->cmd >= RCH_PMI_CMD_MAX || handlers[m->cmd] == NULL) {
        snprintf(what, sizeof(what), "'%s' is not a request", rch_pmi_cmd_name(m->cmd));
        protocol_error(job, r, what);
        return;
    }
    if (!r->pmi_inited && m->cmd != RCH_PMI_INIT) {
        snprintf(what, sizeof(what), "'%s' before init", rch_pmi_cmd_name(m->cmd));
        protocol_error(job, r, what);
        return;
    }
    if (r->pmi_finalized) {
        snprintf(what, sizeof(what), "'%s' after finalize", rch_pmi_cmd_name(m->cmd));
        protocol_error(job, r, what);
        return;
    }
    handlers[m->cmd](job, r, m);
}

/* ---- spawn: mcmd=spawn blocks, one per command ----
 *   mcmd=spawn / nprocs= / execname= / totspawns= / spawnssofar= / argcnt= /
 *   arg1=.. / preput_num= / preput_key_0= / preput_val_0= / info_num= /
 *   info_key_i= / info_val_i= / endcmd
 * a line each, a value up to its newline (it may hold spaces); after the
 * last block the reply is cmd=spawn_result rc=0 (or rc=-1 msg=...). */

static void spawn_free(struct run_rank *r)
{
    struct run_spawn *sp = r->spawn;
    if (!sp)
        return;
    for (int k = 0; k < RUN_SPAWN_CMDS_MAX; k++) {
        struct run_spawn_cmd *c = &sp->cmd[k];
        free(c->exec);
        free(c->wdir);
        for (int i = 0; i < c->argc; i++)
            free(c->argv[i]);
        free(c->argv);
    }
    free(sp->preput_key);
    free(sp->preput_val);
    free(sp);
    r->spawn = NULL;
}

static int spawn_int(const char *v, int min, int max, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < min || x > max)
        return -1;
    *out = (int)x;
    return 0;
}

/* One key=value line of the current block: 0, or -1 (malformed). The
 * info keys honoured are wdir (the rest is the library's: it resolves the
 * command and checks host before asking). */
static int spawn_field(struct run_spawn *sp, const char *key, const char *val)
{
    struct run_spawn_cmd *c = &sp->cmd[sp->done];
    static char info_key[64];
    int n;
    if (strcmp(key, "nprocs") == 0)
        return spawn_int(val, 1, RUN_NP_MAX, &c->nprocs);
    if (strcmp(key, "execname") == 0)
        return (c->exec = strdup(val)) ? 0 : -1;
    if (strcmp(key, "totspawns") == 0)
        return spawn_int(val, 1, RUN_SPAWN_CMDS_MAX, &sp->total);
    if (strcmp(key, "preput_key_0") == 0 && !sp->preput_key)
        return (sp->preput_key = strdup(val)) ? 0 : -1;
    if (strcmp(key, "preput_val_0") == 0 && !sp->preput_val)
        return (sp->preput_val = strdup(val)) ? 0 : -1;
    if (strncmp(key, "arg", 3) == 0 && strcmp(key, "argcnt") != 0) {   /* arg1, arg2, ... in order */
        if (spawn_int(key + 3, 1, RUN_SPAWN_ARGS_MAX, &n) != 0 || n != c->argc + 1)
            return -1;
        if (c->argc == c->cap) {
            int cap = c->cap ? 2 * c->cap : 16;
            char **a = realloc(c->argv, (size_t)cap * sizeof(*a));
            if (!a)
                return -1;
            c->argv = a;
            c->cap = cap;
        }
        return (c->argv[c->argc++] = strdup(val)) ? 0 : -1;
    }
    if (strncmp(key, "info_key_", 9) == 0) {
        snprintf(info_key, sizeof(info_key), "%s", val);
        return 0;
    }
    if (strncmp(key, "info_val_", 9) == 0 && strcmp(info_key, "wdir") == 0)
        return (c->wdir = strdup(val)) ? 0 : -1;
    return 0;   /* spawnssofar, argcnt, preput_num, info_num, other info: known from the rest */
}

static void spawn_reply(struct run_job *job, struct run_rank *r)
{
    char why[200];
    int rc = run_spawn_launch(r->spawn, r->pid, why, sizeof(why));
    spawn_free(r);
    if (rc == 0) {
        REPLY(r, RCH_PMI_SPAWN_RESULT, "rc", "0");
        return;
    }
    for (char *p = why; *p; p++)   /* a PMI value has no spaces */
        if (*p == ' ')
            *p = '_';
    REPLY(r, RCH_PMI_SPAWN_RESULT, "rc", "-1", "msg", why);
}

/* A line of a spawn request: 0, or -1 after a protocol error. */
static int spawn_line(struct run_job *job, struct run_rank *r, char *line)
{
    struct run_spawn *sp = r->spawn;
    if (strcmp(line, "mcmd=spawn") == 0) {
        if (!sp && !(sp = r->spawn = calloc(1, sizeof(*sp))))
            return protocol_error(job, r, "out of memory for a spawn"), -1;
        if (sp->in_block || sp->done >= RUN_SPAWN_CMDS_MAX)
            return protocol_error(job, r, "mcmd=spawn inside a spawn block, or too many commands"), -1;
        sp->in_block = 1;
        return 0;
    }
    if (!sp || !sp->in_block)
        return protocol_error(job, r, "a spawn line outside an mcmd=spawn block"), -1;
    if (strcmp(line, "endcmd") == 0) {
        sp->in_block = 0;
        if (!sp->cmd[sp->done].exec || sp->cmd[sp->done].nprocs < 1 || sp->total < 1)
            return protocol_error(job, r, "a spawn block without nprocs, execname or totspawns"), -1;
        if (++sp->done == sp->total)
            spawn_reply(job, r);
        return 0;
    }
    char *eq = strchr(line, '=');
    if (!eq || eq == line)
        return protocol_error(job, r, "a spawn line that is not key=value"), -1;
    *eq = '\0';
    if (spawn_field(sp, line, eq + 1) != 0) {
        char what[160];
        snprintf(what, sizeof(what), "spawn field %.40s=%.80s is malformed", line, eq + 1);
        return protocol_error(job, r, what), -1;
    }
    return 0;
}

/* Is the next line of r part of a spawn request? Then take it: 1 (taken),
 * 0 (not one), -1 (incomplete: wait; or the connection was closed). */
static int take_spawn_line(struct run_job *job, struct run_rank *r)
{
    struct rch_pmi_reader *rd = &r->rd;
    if (!r->spawn && !(rd->len >= 5 && memcmp(rd->buf, "mcmd=", 5) == 0))
        return 0;
    char *nl = memchr(rd->buf, '\n', rd->len);
    if (!nl) {
        if (rd->len == sizeof(rd->buf))
            protocol_error(job, r, "an oversized spawn line");
        return -1;
    }
    char line[RCH_PMI_LINE_MAX];
    size_t n = (size_t)(nl - rd->buf);
    memcpy(line, rd->buf, n);
    line[n] = '\0';
    memmove(rd->buf, nl + 1, rd->len - n - 1);
    rd->len -= n + 1;
    return spawn_line(job, r, line) == 0 ? 1 : -1;
}

/* Answer every complete line in the buffer; returns -1 once the rank's
 * connection was closed (EOF or a protocol error). */
static int process_lines(struct run_job *job, struct run_rank *r, struct rch_pmi_msg *m)
{
    for (;;) {
        if (r->fd < 0)
            return -1;
        int sp = take_spawn_line(job, r);
        if (sp != 0) {
            if (sp < 0)
                return r->fd < 0 ? -1 : 0;
            continue;
        }
        rdmach_status_t st = rch_pmi_reader_next(&r->rd, m);
        if (st == RDMACH_AGAIN)
            return 0;
        if (st != RDMACH_OK) {
            protocol_error(job, r, rdmach_last_error());
            return -1;
        }
        dispatch(job, r, m);
    }
}

/* End of stream means the rank is exiting: what it did not finish writing
 * is dropped, and its exit status (reaped separately) says what happened. */
void run_pmi_input(struct run_job *job, struct run_rank *r)
{
    static struct rch_pmi_msg m; /* single-threaded; too big for a small stack frame */
    if (r->fd < 0)
        return;
    rdmach_status_t st = rch_pmi_reader_fill(&r->rd);
    if (st == RDMACH_AGAIN)
        return;
    if (st != RDMACH_OK) {
        close_rank(r);
        return;
    }
    process_lines(job, r, &m);
}

void run_pmi_drain(struct run_job *job, struct run_rank *r)
{
    static struct rch_pmi_msg m;
    /* a dead rank's socket holds at most what it wrote: the loop ends at EOF */
    while (r->fd >= 0) {
        rdmach_status_t st = rch_pmi_reader_fill(&r->rd);
        if (st != RDMACH_OK || process_lines(job, r, &m) < 0)
            break;
    }
    close_rank(r);
}

int run_pmi_init(struct run_job *job, const char *preput)
{
    char mapping[64];
    snprintf(mapping, sizeof(mapping), "(vector,(0,1,%d))", job->size);
    memset(&job->kvs, 0, sizeof(job->kvs));
    /* the launcher's own keys are visible from the start */
    if (run_kvs_put(&job->kvs, "PMI_process_mapping", mapping) < 0)
        return -1;
    if (preput) {
        char key[RCH_PMI_KEY_MAX];
        const char *eq = strchr(preput, '=');
        size_t kl = eq ? (size_t)(eq - preput) : strlen(preput);
        snprintf(key, sizeof(key), "%.*s", (int)(kl < sizeof(key) ? kl : sizeof(key) - 1), preput);
        if (run_kvs_put(&job->kvs, key, eq ? eq + 1 : "") < 0)
            return -1;
    }
    if (run_kvs_commit(&job->kvs) < 0)
        return -1;
    for (int i = 0; i < job->size; i++)
        rch_pmi_reader_init(&job->ranks[i].rd, job->ranks[i].fd);
    return 0;
}

void run_pmi_fini(struct run_job *job)
{
    run_kvs_free(&job->kvs);
}
