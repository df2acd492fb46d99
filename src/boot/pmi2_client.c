/* PMI-2 client over PMI_FD (see pmi2_client.h and pmi2_wire.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "boot/boot.h"
#include "boot/pmi2_client.h"
#include "boot/pmi_client.h"

#define FRAME_MAX (RCH_PMI2_HEADER + RCH_PMI2_PAYLOAD_MAX + 1)

/* Wait for and parse the next frame; timeout_ms < 0 waits forever. */
static rdmach_status_t recv_msg(struct rch_pmi2_client *c, struct rch_pmi2_msg *m, int timeout_ms)
{
    double deadline = timeout_ms < 0 ? -1 : rch_base_wtime() + timeout_ms / 1000.0;
    for (;;) {
        rdmach_status_t st = rch_pmi2_reader_next(&c->rd, m);
        if (st != RDMACH_AGAIN)
            return st;
        if ((st = rch_pmi_wait_input(c->fd, deadline, "PMI-2")) != RDMACH_OK)
            return st;
        st = rch_pmi2_reader_fill(&c->rd);
        if (st == RDMACH_ERR_PEER_DEAD) {
            st = rch_pmi2_reader_next(&c->rd, m);   /* a partial frame: truncated */
            if (st == RDMACH_OK || st == RDMACH_AGAIN)
                return rch_base_err(RDMACH_ERR_BOOT, "PMI-2: the process manager closed the connection (PMI_FD=%d)",
                                    c->fd);
            return st;
        }
        if (st != RDMACH_OK && st != RDMACH_AGAIN)
            return st;
    }
}

/* Send a formatted frame, receive the reply, which must be `expect` with
 * rc=0 (else `fail`, with the server's errmsg). */
static rdmach_status_t transact(struct rch_pmi2_client *c, const char *frame, size_t len, enum rch_pmi2_cmd expect,
                                struct rch_pmi2_msg *reply, int timeout_ms)
{
    RCH_DEBUG("pmi", "send %s", frame);
    rdmach_status_t st = rch_pmi_write(c->fd, frame, len);
    if (st == RDMACH_OK)
        st = recv_msg(c, reply, timeout_ms);
    /* the answer to a spawn given up on comes when Slurm starts its step */
    while (st == RDMACH_OK && reply->cmd == RCH_PMI2_SPAWN_RESPONSE && expect != RCH_PMI2_SPAWN_RESPONSE &&
           c->late_spawns > 0) {
        c->late_spawns--;
        st = recv_msg(c, reply, timeout_ms);
    }
    if (st != RDMACH_OK)
        return st;
    if (reply->cmd != expect)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: expected a %s reply to '%.60s', got %s",
                            rch_pmi2_cmd_name(expect), frame + RCH_PMI2_HEADER, rch_pmi2_cmd_name(reply->cmd));
    int rc;
    if ((st = rch_pmi2_field_int(reply, "rc", INT_MIN, INT_MAX, &rc)) != RDMACH_OK)
        return st;
    if (rc != 0) {
        const char *msg = rch_pmi2_field(reply, "errmsg");
        return rch_base_err(RDMACH_ERR_BOOT, "PMI-2: '%.60s' failed: rc=%d%s%.200s", frame + RCH_PMI2_HEADER, rc,
                            msg ? " errmsg=" : "", msg ? msg : "");
    }
    return RDMACH_OK;
}

/* The version handshake, in PMI-1 lines. */
static rdmach_status_t handshake(int fd)
{
    char line[RCH_PMI_LINE_MAX];
    size_t len;
    struct rch_pmi_reader *rd = malloc(sizeof(*rd));
    struct rch_pmi_msg *m = malloc(sizeof(*m));
    rdmach_status_t st = RDMACH_OK;
    int ver = 0, rc = 0;
    if (rd == NULL || m == NULL) {
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "PMI-2: out of memory");
        goto out;
    }
    rch_pmi_reader_init(rd, fd);
    st = rch_pmi_format(line, sizeof(line), &len, RCH_PMI_INIT, "pmi_version", "2", "pmi_subversion", "0", NULL);
    if (st == RDMACH_OK)
        st = rch_pmi_write(fd, line, len);
    double deadline = rch_base_wtime() + RCH_PMI_REPLY_TIMEOUT_MS / 1000.0;
    while (st == RDMACH_OK) {
        if ((st = rch_pmi_reader_next(rd, m)) != RDMACH_AGAIN)
            break;
        if ((st = rch_pmi_wait_input(fd, deadline, "PMI-2")) != RDMACH_OK)
            break;
        st = rch_pmi_reader_fill(rd);
        if (st == RDMACH_ERR_PEER_DEAD && (st = rch_pmi_reader_next(rd, m)) == RDMACH_AGAIN)
            st = rch_base_err(RDMACH_ERR_BOOT, "PMI-2: the process manager closed the connection (PMI_FD=%d) "
                              "instead of answering init", fd);
        else if (st == RDMACH_AGAIN)
            st = RDMACH_OK;
    }
    if (st != RDMACH_OK)
        goto out;
    if (m->cmd != RCH_PMI_RESPONSE_TO_INIT)
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: expected response_to_init, got %s",
                          rch_pmi_cmd_name(m->cmd));
    if (st == RDMACH_OK)
        st = rch_pmi_field_int(m, "rc", INT_MIN, INT_MAX, &rc);
    if (st == RDMACH_OK)
        st = rch_pmi_field_int(m, "pmi_version", 0, INT_MAX, &ver);
    if (st == RDMACH_OK && (rc != 0 || ver != 2))
        st = rch_base_err(RDMACH_ERR_BOOT, "PMI-2: the process manager on PMI_FD=%d does not speak PMI-2 "
                          "(response_to_init rc=%d pmi_version=%d); set RDMACH_PMI=pmi1", fd, rc, ver);
    if (st == RDMACH_OK && rd->len != 0)
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: %zu unexpected bytes after response_to_init", rd->len);
out:
    free(rd);
    free(m);
    return st;
}

rdmach_status_t rch_pmi2_client_init(struct rch_pmi2_client *c, int fd, int rank, int size, const char *env_jobid)
{
    char frame[FRAME_MAX], num[16];
    size_t len;
    int r, n;
    const char *s;
    struct rch_pmi2_msg *m = malloc(sizeof(*m));
    if (m == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "PMI-2: out of memory");
    memset(c, 0, sizeof(*c));
    c->fd = fd;
    c->rank = rank;
    c->size = size;
    rch_pmi2_reader_init(&c->rd, fd);

    rdmach_status_t st = handshake(fd);
    snprintf(num, sizeof(num), "%d", rank);
    if (st == RDMACH_OK)
        st = env_jobid ? rch_pmi2_format(frame, sizeof(frame), &len, RCH_PMI2_FULLINIT, "pmijobid", env_jobid,
                                         "pmirank", num, "threaded", "FALSE", NULL)
                       : rch_pmi2_format(frame, sizeof(frame), &len, RCH_PMI2_FULLINIT, "pmirank", num,
                                         "threaded", "FALSE", NULL);
    if (st == RDMACH_OK)
        st = transact(c, frame, len, RCH_PMI2_FULLINIT_RESPONSE, m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK)
        st = rch_pmi2_field_int(m, "rank", 0, INT_MAX, &r);
    if (st == RDMACH_OK)
        st = rch_pmi2_field_int(m, "size", 1, INT_MAX, &n);
    if (st == RDMACH_OK && (r != rank || n != size))
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: fullinit-response says rank %d of %d, "
                          "the environment PMI_RANK=%d PMI_SIZE=%d", r, n, rank, size);
    /* Slurm sends appnum=-1 when it has no notion of it */
    if (st == RDMACH_OK && rch_pmi2_field(m, "appnum"))
        st = rch_pmi2_field_int(m, "appnum", -1, INT_MAX, &c->appnum);
    /* how MPICH's PMI-2 client knows it was spawned (Slurm sets no PMI_SPAWNED) */
    c->spawned = st == RDMACH_OK && rch_pmi2_field(m, "spawner-jobid") != NULL;
    if (st == RDMACH_OK)
        st = rch_pmi2_format(frame, sizeof(frame), &len, RCH_PMI2_JOB_GETID, NULL);
    if (st == RDMACH_OK)
        st = transact(c, frame, len, RCH_PMI2_JOB_GETID_RESPONSE, m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK)
        st = rch_pmi2_field_str(m, "jobid", &s);
    if (st == RDMACH_OK && (s[0] == '\0' || strlen(s) >= sizeof(c->jobid)))
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: jobid '%.40s' is empty or longer than %zu bytes",
                          s, sizeof(c->jobid) - 1);
    if (st == RDMACH_OK)
        strcpy(c->jobid, s);
    free(m);
    return st;
}

/* A reply with found=TRUE|FALSE and a value when found. */
static rdmach_status_t lookup(struct rch_pmi2_client *c, const char *frame, size_t flen, enum rch_pmi2_cmd expect,
                              const char *key, char *value, size_t len)
{
    struct rch_pmi2_msg *m = malloc(sizeof(*m));
    const char *v;
    int found;
    if (m == NULL)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "PMI-2: out of memory");
    rdmach_status_t st = transact(c, frame, flen, expect, m, RCH_PMI_REPLY_TIMEOUT_MS);
    if (st == RDMACH_OK)
        st = rch_pmi2_field_bool(m, "found", &found);
    if (st == RDMACH_OK && !found)
        st = rch_base_err(RDMACH_ERR_NOT_FOUND, "PMI-2: %s: no key '%s'", rch_pmi2_cmd_name(expect), key);
    if (st == RDMACH_OK)
        st = rch_pmi2_field_str(m, "value", &v);
    if (st == RDMACH_OK && strlen(v) >= len)
        st = rch_base_err(RDMACH_ERR_TRUNCATE, "PMI-2: value of %s (%zu bytes) does not fit in %zu",
                          key, strlen(v), len);
    if (st == RDMACH_OK)
        strcpy(value, v);
    free(m);
    return st;
}

rdmach_status_t rch_pmi2_client_job_attr(struct rch_pmi2_client *c, const char *key, char *value, size_t len)
{
    char frame[FRAME_MAX];
    size_t flen;
    rdmach_status_t st = rch_pmi2_format(frame, sizeof(frame), &flen, RCH_PMI2_INFO_GETJOBATTR, "key", key, NULL);
    return st == RDMACH_OK ? lookup(c, frame, flen, RCH_PMI2_INFO_GETJOBATTR_RESPONSE, key, value, len) : st;
}

rdmach_status_t rch_pmi2_client_node_attr(struct rch_pmi2_client *c, const char *key, char *value, size_t len)
{
    char frame[FRAME_MAX];
    size_t flen;
    rdmach_status_t st = rch_pmi2_format(frame, sizeof(frame), &flen, RCH_PMI2_INFO_GETNODEATTR, "key", key,
                                         "wait", "FALSE", NULL);
    return st == RDMACH_OK ? lookup(c, frame, flen, RCH_PMI2_INFO_GETNODEATTR_RESPONSE, key, value, len) : st;
}

rdmach_status_t rch_pmi2_client_get(struct rch_pmi2_client *c, const char *key, char *value, size_t len)
{
    char frame[FRAME_MAX];
    size_t flen;
    rdmach_status_t st = rch_pmi2_format(frame, sizeof(frame), &flen, RCH_PMI2_KVS_GET, "jobid", c->jobid,
                                         "srcid", "-1", "key", key, NULL);
    return st == RDMACH_OK ? lookup(c, frame, flen, RCH_PMI2_KVS_GET_RESPONSE, key, value, len) : st;
}

rdmach_status_t rch_pmi2_client_put(struct rch_pmi2_client *c, const char *key, const char *value)
{
    char frame[FRAME_MAX];
    size_t flen;
    struct rch_pmi2_msg m;
    if (strlen(key) >= RCH_PMI2_KEY_MAX || strlen(value) >= RCH_PMI2_VAL_MAX || strchr(value, ';'))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI-2 put %.64s: key longer than %d bytes, or value longer "
                            "than %d bytes or containing ';'", key, RCH_PMI2_KEY_MAX - 1, RCH_PMI2_VAL_MAX - 1);
    rdmach_status_t st = rch_pmi2_format(frame, sizeof(frame), &flen, RCH_PMI2_KVS_PUT, "key", key,
                                         "value", value, NULL);
    return st == RDMACH_OK ? transact(c, frame, flen, RCH_PMI2_KVS_PUT_RESPONSE, &m, RCH_PMI_REPLY_TIMEOUT_MS) : st;
}

rdmach_status_t rch_pmi2_client_fence(struct rch_pmi2_client *c)
{
    char frame[FRAME_MAX];
    size_t flen;
    struct rch_pmi2_msg m;
    rdmach_status_t st = rch_pmi2_format(frame, sizeof(frame), &flen, RCH_PMI2_KVS_FENCE, NULL);
    /* a fence waits for the slowest rank: no timeout */
    return st == RDMACH_OK ? transact(c, frame, flen, RCH_PMI2_KVS_FENCE_RESPONSE, &m, -1) : st;
}

rdmach_status_t rch_pmi2_client_abort(struct rch_pmi2_client *c, const char *why)
{
    char frame[FRAME_MAX];
    size_t flen;
    rdmach_status_t st = rch_pmi2_format(frame, sizeof(frame), &flen, RCH_PMI2_ABORT, "isworld", "TRUE",
                                         "msg", why ? why : "aborted", NULL);
    return st == RDMACH_OK ? rch_pmi_write(c->fd, frame, flen) : st;
}

rdmach_status_t rch_pmi2_client_finalize(struct rch_pmi2_client *c)
{
    char frame[FRAME_MAX];
    size_t flen;
    struct rch_pmi2_msg m;
    rdmach_status_t st = rch_pmi2_format(frame, sizeof(frame), &flen, RCH_PMI2_FINALIZE, NULL);
    if (st == RDMACH_OK)
        st = transact(c, frame, flen, RCH_PMI2_FINALIZE_RESPONSE, &m, RCH_PMI_REPLY_TIMEOUT_MS);
    close(c->fd);
    c->fd = -1;
    return st;
}

/* The spawn's fields, in the order Slurm's plugin reads them (pmi2_wire.h).
 * Field i's numbered key and decimal value, where it has them, are written
 * in text[2i] and text[2i+1]. */
struct spawn_fields {
    const char **kv;
    char (*text)[RCH_PMI2_KEY_MAX];
    int n, cap;
};

static void field(struct spawn_fields *f, const char *key, int idx, const char *val)
{
    if (f->n == f->cap)
        return;
    if (idx >= 0) {
        snprintf(f->text[2 * f->n], RCH_PMI2_KEY_MAX, "%s%d", key, idx);
        key = f->text[2 * f->n];
    }
    f->kv[2 * f->n] = key;
    f->kv[2 * f->n + 1] = val;
    f->n++;
}

static void field_int(struct spawn_fields *f, const char *key, int v)
{
    if (f->n == f->cap)
        return;
    snprintf(f->text[2 * f->n + 1], RCH_PMI2_KEY_MAX, "%d", v);
    field(f, key, -1, f->text[2 * f->n + 1]);
}

static rdmach_status_t spawn_frame(int count, const struct rch_boot_spawn *cmds, const char *pk, const char *pv,
                                   char *frame, size_t cap, size_t *flen)
{
    struct spawn_fields f = { 0 };
    f.cap = 4;
    for (int k = 0; k < count; k++) {
        f.cap += 4 + 2 * cmds[k].ninfo;
        for (int a = 0; cmds[k].argv && cmds[k].argv[a]; a++)
            f.cap++;
    }
    f.kv = calloc((size_t)f.cap * 2, sizeof(*f.kv));
    f.text = calloc((size_t)f.cap * 2, sizeof(*f.text));
    if (!f.kv || !f.text) {
        free(f.kv);
        free(f.text);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "PMI-2 spawn: out of memory");
    }
    field_int(&f, "ncmds", count);
    field_int(&f, "preputcount", pk ? 1 : 0);
    if (pk) {
        field(&f, "ppkey", 0, pk);
        field(&f, "ppval", 0, pv);
    }
    for (int k = 0; k < count; k++) {
        const struct rch_boot_spawn *s = &cmds[k];
        int argc = 0;
        while (s->argv && s->argv[argc])
            argc++;
        field(&f, "subcmd", -1, s->exec);
        field_int(&f, "maxprocs", s->nprocs);
        field_int(&f, "argc", argc);
        for (int a = 0; a < argc; a++)
            field(&f, "argv", a, s->argv[a]);
        field_int(&f, "infokeycount", s->ninfo);
        for (int i = 0; i < s->ninfo; i++) {
            field(&f, "infokey", i, s->info_key[i]);
            field(&f, "infoval", i, s->info_val[i]);
        }
    }
    rdmach_status_t st = rch_pmi2_format_kv(frame, cap, flen, RCH_PMI2_SPAWN, f.n, f.kv);
    free(f.kv);
    free(f.text);
    return st;
}

rdmach_status_t rch_pmi2_client_spawn(struct rch_pmi2_client *c, int count, const struct rch_boot_spawn *cmds,
                                      const char *preput_key, const char *preput_val, int *errcodes,
                                      int timeout_ms)
{
    char frame[FRAME_MAX];
    size_t flen;
    int total = 0;
    for (int k = 0; k < count; k++)
        total += cmds[k].nprocs;
    rdmach_status_t st = spawn_frame(count, cmds, preput_key, preput_val, frame, sizeof(frame), &flen);
    struct rch_pmi2_msg *m = st == RDMACH_OK ? malloc(sizeof(*m)) : NULL;
    if (st == RDMACH_OK && m == NULL)
        st = rch_base_err(RDMACH_ERR_NO_MEMORY, "PMI-2: out of memory");
    if (st == RDMACH_OK) {
        RCH_DEBUG("pmi", "spawn of %d command(s), %d process(es)", count, total);
        st = transact(c, frame, flen, RCH_PMI2_SPAWN_RESPONSE, m, timeout_ms);
        if (st == RDMACH_ERR_TIMEOUT)
            c->late_spawns++;
    }
    if (st == RDMACH_OK) {
        rch_pmi_errcodes(rch_pmi2_field(m, "errcodes"), total, errcodes);
    }
    free(m);
    return st;
}
