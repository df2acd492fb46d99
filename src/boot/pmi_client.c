/* PMI-1 client over PMI_FD (see pmi_client.h and pmi_wire.h for the dialect). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "boot/pmi_client.h"

#define RCH_PMI_SIZE_MAX (1 << 24)

/* A decimal environment integer in [min, max]; *present = 0 if unset. */
static rdmach_status_t env_int(const char *name, long min, long max, int *out, int *present)
{
    const char *v = getenv(name);
    *present = v != NULL;
    if (v == NULL)
        return RDMACH_OK;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < min || x > max)
        return rch_base_err(RDMACH_ERR_BOOT, "%s='%.40s' is not valid: expected an integer from %ld to %ld",
                            name, v, min, max);
    *out = (int)x;
    return RDMACH_OK;
}

rdmach_status_t rch_pmi_client_env(int *fd, int *rank, int *size, int *singleton)
{
    int have_fd, have_rank, have_size;
    rdmach_status_t st;
    *singleton = 0;
    if ((st = env_int("PMI_FD", 0, INT_MAX, fd, &have_fd)) != RDMACH_OK)
        return st;
    if ((st = env_int("PMI_SIZE", 1, RCH_PMI_SIZE_MAX, size, &have_size)) != RDMACH_OK)
        return st;
    if ((st = env_int("PMI_RANK", 0, RCH_PMI_SIZE_MAX - 1, rank, &have_rank)) != RDMACH_OK)
        return st;
    if (!have_fd) {
        if (getenv("PMI_PORT"))
            return rch_base_err(RDMACH_ERR_BOOT,
                                "PMI_PORT is set but PMI_FD is not: PMI over a TCP port is not supported; "
                                "start the job with rdmachrun or mpiexec.mpich (which pass PMI_FD)");
        if (have_rank || have_size)
            return rch_base_err(RDMACH_ERR_BOOT,
                                "PMI_RANK/PMI_SIZE are set but PMI_FD is missing: the launcher gave no PMI connection");
        *singleton = 1;
        *rank = 0;
        *size = 1;
        return RDMACH_OK;
    }
    if (!have_rank)
        return rch_base_err(RDMACH_ERR_BOOT, "PMI_FD is set but PMI_RANK is missing");
    if (!have_size)
        return rch_base_err(RDMACH_ERR_BOOT, "PMI_FD is set but PMI_SIZE is missing");
    if (*rank >= *size)
        return rch_base_err(RDMACH_ERR_BOOT, "PMI_RANK=%d is not below PMI_SIZE=%d", *rank, *size);
    struct stat sb;
    if (fcntl(*fd, F_GETFD) < 0 || fstat(*fd, &sb) < 0)
        return rch_base_err(RDMACH_ERR_BOOT, "PMI_FD=%d is not an open file descriptor: %s",
                            *fd, strerror(errno));
    if (!S_ISSOCK(sb.st_mode))
        return rch_base_err(RDMACH_ERR_BOOT, "PMI_FD=%d is not a socket (a PMI server's connection is)", *fd);
    return RDMACH_OK;
}

/* Wait for and parse the next line; timeout_ms < 0 waits forever. */
static rdmach_status_t recv_msg(struct rch_pmi_client *c, struct rch_pmi_msg *m, int timeout_ms)
{
    double deadline = timeout_ms < 0 ? -1 : rch_base_wtime() + timeout_ms / 1000.0;
    for (;;) {
        rdmach_status_t st = rch_pmi_reader_next(&c->rd, m);
        if (st != RDMACH_AGAIN)
            return st;
        if ((st = rch_pmi_wait_input(c->fd, deadline, "PMI")) != RDMACH_OK)
            return st;
        st = rch_pmi_reader_fill(&c->rd);
        if (st == RDMACH_ERR_PEER_DEAD) {
            /* a partial line left in the buffer is reported as truncated */
            st = rch_pmi_reader_next(&c->rd, m);
            if (st == RDMACH_OK || st == RDMACH_AGAIN)
                return rch_base_err(RDMACH_ERR_BOOT, "PMI: the process manager closed the connection (PMI_FD=%d)",
                                    c->fd);
            return st;
        }
        if (st != RDMACH_OK && st != RDMACH_AGAIN)
            return st;
    }
}

/* Send a formatted request and receive the reply, which must be `expect`. */
static rdmach_status_t transact(struct rch_pmi_client *c, const char *line, size_t len,
                                enum rch_pmi_cmd expect, struct rch_pmi_msg *reply, int timeout_ms)
{
    RCH_DEBUG("pmi", "send %.*s", (int)(len - 1), line);
    rdmach_status_t st = rch_pmi_write(c->fd, line, len);
    if (st != RDMACH_OK)
        return st;
    st = recv_msg(c, reply, timeout_ms);
    if (st != RDMACH_OK)
        return st;
    if (reply->cmd != expect)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: expected a %s reply, got %s",
                            rch_pmi_cmd_name(expect), rch_pmi_cmd_name(reply->cmd));
    return RDMACH_OK;
}

/* rc=0 or an error naming the request and the server's msg. */
static rdmach_status_t check_rc(const struct rch_pmi_msg *m, const char *what, rdmach_status_t fail)
{
    int rc;
    rdmach_status_t st = rch_pmi_field_int(m, "rc", INT_MIN, INT_MAX, &rc);
    if (st != RDMACH_OK)
        return st;
    if (rc != 0) {
        const char *msg = rch_pmi_field(m, "msg");
        return rch_base_err(fail, "PMI: %s failed: rc=%d%s%s", what, rc, msg ? " msg=" : "", msg ? msg : "");
    }
    return RDMACH_OK;
}

rdmach_status_t rch_pmi_client_init(struct rch_pmi_client *c, int fd, int rank, int size)
{
    char line[RCH_PMI_LINE_MAX];
    size_t len;
    struct rch_pmi_msg *m = malloc(sizeof(*m));
    rdmach_status_t st;
    const char *s;
    int ver;
    if (m == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "PMI: out of memory");
    memset(c, 0, sizeof(*c));
    c->fd = fd;
    c->rank = rank;
    c->size = size;
    rch_pmi_reader_init(&c->rd, fd);

    st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_INIT, "pmi_version", "1", "pmi_subversion", "1", NULL);
    if (st == RDMACH_OK)
        st = transact(c, line, len, RCH_PMI_RESPONSE_TO_INIT, m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK)
        st = check_rc(m, "init", RDMACH_ERR_BOOT);
    if (st == RDMACH_OK)
        st = rch_pmi_field_int(m, "pmi_version", 0, INT_MAX, &ver);
    if (st == RDMACH_OK && ver != 1)
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: the server speaks pmi_version=%d, not 1", ver);
    if (st != RDMACH_OK)
        goto out;

    st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_GET_MAXES, NULL);
    if (st == RDMACH_OK)
        st = transact(c, line, len, RCH_PMI_MAXES, m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK)
        st = rch_pmi_field_int(m, "kvsname_max", 2, 1 << 20, &c->kvsname_max);
    if (st == RDMACH_OK)
        st = rch_pmi_field_int(m, "keylen_max", 2, 1 << 20, &c->keylen_max);
    if (st == RDMACH_OK)
        st = rch_pmi_field_int(m, "vallen_max", 2, 1 << 20, &c->vallen_max);
    if (st != RDMACH_OK)
        goto out;
    /* our wire buffers bound what we send and accept */
    if (c->keylen_max > RCH_PMI_KEY_MAX)
        c->keylen_max = RCH_PMI_KEY_MAX;
    if (c->vallen_max > RCH_PMI_VAL_MAX)
        c->vallen_max = RCH_PMI_VAL_MAX;
    if (c->kvsname_max > RCH_PMI_KVSNAME_MAX)
        c->kvsname_max = RCH_PMI_KVSNAME_MAX;

    st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_GET_APPNUM, NULL);
    if (st == RDMACH_OK)
        st = transact(c, line, len, RCH_PMI_APPNUM, m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK)
        st = rch_pmi_field_int(m, "appnum", -1, INT_MAX, &c->appnum);
    if (st != RDMACH_OK)
        goto out;

    st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_GET_MY_KVSNAME, NULL);
    if (st == RDMACH_OK)
        st = transact(c, line, len, RCH_PMI_MY_KVSNAME, m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK)
        st = rch_pmi_field_str(m, "kvsname", &s);
    if (st == RDMACH_OK && (s[0] == '\0' || strlen(s) >= (size_t)c->kvsname_max))
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: kvsname '%.40s' is empty or longer than %d bytes",
                          s, c->kvsname_max - 1);
    if (st == RDMACH_OK)
        strcpy(c->kvsname, s);
out:
    free(m);
    return st;
}

rdmach_status_t rch_pmi_client_put(struct rch_pmi_client *c, const char *key, const char *value)
{
    char line[RCH_PMI_LINE_MAX];
    size_t len;
    struct rch_pmi_msg m;
    if (!rch_pmi_valid_key(key, (size_t)c->keylen_max))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI put: key '%.64s' is empty, longer than %d bytes, "
                            "or contains '=', a space or a control character", key, c->keylen_max - 1);
    if (!rch_pmi_valid_value(value, (size_t)c->vallen_max))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI put %s: value is longer than %d bytes "
                            "or contains a space or control character", key, c->vallen_max - 1);
    rdmach_status_t st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_PUT, "kvsname", c->kvsname,
                                        "key", key, "value", value, NULL);
    if (st == RDMACH_OK)
        st = transact(c, line, len, RCH_PMI_PUT_RESULT, &m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK)
        st = check_rc(&m, "put", RDMACH_ERR_BOOT);
    return st;
}

rdmach_status_t rch_pmi_client_get(struct rch_pmi_client *c, const char *key, char *value, size_t vlen)
{
    char line[RCH_PMI_LINE_MAX];
    size_t len;
    struct rch_pmi_msg m;
    const char *v;
    if (!rch_pmi_valid_key(key, (size_t)c->keylen_max))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI get: key '%.64s' is empty, longer than %d bytes, "
                            "or contains '=', a space or a control character", key, c->keylen_max - 1);
    rdmach_status_t st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_GET, "kvsname", c->kvsname,
                                        "key", key, NULL);
    if (st == RDMACH_OK)
        st = transact(c, line, len, RCH_PMI_GET_RESULT, &m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st != RDMACH_OK)
        return st;
    char what[96];
    snprintf(what, sizeof(what), "get %s", key);
    st = check_rc(&m, what, RDMACH_ERR_NOT_FOUND);
    if (st != RDMACH_OK)
        return st;
    if ((st = rch_pmi_field_str(&m, "value", &v)) != RDMACH_OK)
        return st;
    if (strlen(v) >= vlen)
        return rch_base_err(RDMACH_ERR_TRUNCATE, "PMI get %s: value of %zu bytes does not fit in %zu",
                            key, strlen(v), vlen);
    strcpy(value, v);
    return RDMACH_OK;
}

rdmach_status_t rch_pmi_client_barrier(struct rch_pmi_client *c)
{
    char line[RCH_PMI_LINE_MAX];
    size_t len;
    struct rch_pmi_msg m;
    rdmach_status_t st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_BARRIER_IN, NULL);
    if (st == RDMACH_OK) /* a barrier waits for the slowest rank: no timeout */
        st = transact(c, line, len, RCH_PMI_BARRIER_OUT, &m, -1);
    return st;
}

rdmach_status_t rch_pmi_client_abort(struct rch_pmi_client *c, int code, const char *why)
{
    char line[RCH_PMI_LINE_MAX], num[16];
    size_t len;
    snprintf(num, sizeof(num), "%d", code);
    rdmach_status_t st = why ? rch_pmi_format(line, sizeof(line), &len, RCH_PMI_ABORT, "exitcode", num,
                                              "error_msg", why, NULL)
                             : rch_pmi_format(line, sizeof(line), &len, RCH_PMI_ABORT, "exitcode", num, NULL);
    if (st == RDMACH_OK)
        st = rch_pmi_write(c->fd, line, len);
    return st;
}

rdmach_status_t rch_pmi_client_abort_ranks(struct rch_pmi_client *c, int code, const char *why, const char *ranks)
{
    char line[RCH_PMI_LINE_MAX], num[16];
    size_t len;
    snprintf(num, sizeof(num), "%d", code);
    rdmach_status_t st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_ABORT, "exitcode", num, "ranks", ranks,
                                        why ? "error_msg" : NULL, why, NULL);
    if (st == RDMACH_OK)
        st = rch_pmi_write(c->fd, line, len);
    return st;
}

rdmach_status_t rch_pmi_client_finalize(struct rch_pmi_client *c)
{
    char line[RCH_PMI_LINE_MAX];
    size_t len;
    struct rch_pmi_msg m;
    rdmach_status_t st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_FINALIZE, NULL);
    if (st == RDMACH_OK)
        st = transact(c, line, len, RCH_PMI_FINALIZE_ACK, &m, RCH_PMI_REPLY_TIMEOUT_MS);
    close(c->fd);
    c->fd = -1;
    return st;
}

/* One "key=value\n" line of an mcmd block; the value must not hold a newline. */
static rdmach_status_t mline(FILE *f, const char *key, int idx, const char *val)
{
    if (strchr(val, '\n'))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI spawn: %s holds a newline", key);
    if (idx >= 0)
        fprintf(f, "%s%d=%s\n", key, idx, val);
    else
        fprintf(f, "%s=%s\n", key, val);
    return RDMACH_OK;
}

/* One mcmd=spawn block (MPICH's simple PMI-1 form, which Hydra parses):
 * nprocs, execname, totspawns, spawnssofar, argcnt and arg1.., preput_num
 * and preput_key_i/preput_val_i, info_num and info_key_i/info_val_i, endcmd. */
static rdmach_status_t spawn_block(FILE *f, int count, int k, const struct rch_boot_spawn *s, const char *pk,
                                   const char *pv)
{
    fprintf(f, "mcmd=spawn\nnprocs=%d\n", s->nprocs);
    rdmach_status_t st = mline(f, "execname", -1, s->exec);
    fprintf(f, "totspawns=%d\nspawnssofar=%d\n", count, k + 1);
    int argc = 0;
    while (s->argv && s->argv[argc])
        argc++;
    fprintf(f, "argcnt=%d\n", argc);
    for (int i = 0; st == RDMACH_OK && i < argc; i++)
        st = mline(f, "arg", i + 1, s->argv[i]);
    fprintf(f, "preput_num=%d\n", pk ? 1 : 0);
    if (pk && st == RDMACH_OK)
        st = mline(f, "preput_key_", 0, pk);
    if (pk && st == RDMACH_OK)
        st = mline(f, "preput_val_", 0, pv);
    fprintf(f, "info_num=%d\n", s->ninfo);
    for (int i = 0; st == RDMACH_OK && i < s->ninfo; i++) {
        st = mline(f, "info_key_", i, s->info_key[i]);
        if (st == RDMACH_OK)
            st = mline(f, "info_val_", i, s->info_val[i]);
    }
    fprintf(f, "endcmd\n");
    return st;
}

rdmach_status_t rch_pmi_client_spawn(struct rch_pmi_client *c, int count, const struct rch_boot_spawn *cmds,
                                     const char *preput_key, const char *preput_val, int *errcodes)
{
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    if (!f)
        return rch_base_errno(errno, "PMI spawn: open_memstream");
    rdmach_status_t st = RDMACH_OK;
    int total = 0;
    for (int k = 0; k < count && st == RDMACH_OK; k++) {
        st = spawn_block(f, count, k, &cmds[k], preput_key, preput_val);
        total += cmds[k].nprocs;
    }
    fclose(f);
    RCH_DEBUG("pmi", "send spawn of %d command(s), %d process(es)", count, total);
    if (st == RDMACH_OK)
        st = rch_pmi_write(c->fd, text, tlen);
    free(text);
    struct rch_pmi_msg m;
    if (st == RDMACH_OK)
        st = recv_msg(c, &m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK && m.cmd != RCH_PMI_SPAWN_RESULT)
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: expected a spawn_result reply, got %s",
                          rch_pmi_cmd_name(m.cmd));
    if (st == RDMACH_OK)
        st = check_rc(&m, "spawn", RDMACH_ERR_BOOT);
    if (st != RDMACH_OK)
        return st;
    rch_pmi_errcodes(rch_pmi_field(&m, "errcodes"), total, errcodes);
    return RDMACH_OK;
}

rdmach_status_t rch_pmi_client_universe(struct rch_pmi_client *c, int *size)
{
    char line[RCH_PMI_LINE_MAX];
    size_t len;
    struct rch_pmi_msg m;
    rdmach_status_t st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_GET_UNIVERSE_SIZE, NULL);
    if (st == RDMACH_OK)
        st = transact(c, line, len, RCH_PMI_UNIVERSE_SIZE, &m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK)
        st = rch_pmi_field_int(&m, "size", 1, INT_MAX, size);
    return st;
}
