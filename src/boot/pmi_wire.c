/* PMI-1 wire protocol: parse, format, frame (see pmi_wire.h). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "base/base.h"
#include "boot/pmi_wire.h"

/* How long a write may wait for a peer that does not drain its socket. */
#define RCH_PMI_WRITE_TIMEOUT_MS 10000

static const char *const cmd_names[RCH_PMI_CMD_MAX] = {
    [RCH_PMI_INIT] = "init",
    [RCH_PMI_RESPONSE_TO_INIT] = "response_to_init",
    [RCH_PMI_GET_MAXES] = "get_maxes",
    [RCH_PMI_MAXES] = "maxes",
    [RCH_PMI_GET_APPNUM] = "get_appnum",
    [RCH_PMI_APPNUM] = "appnum",
    [RCH_PMI_GET_UNIVERSE_SIZE] = "get_universe_size",
    [RCH_PMI_UNIVERSE_SIZE] = "universe_size",
    [RCH_PMI_GET_MY_KVSNAME] = "get_my_kvsname",
    [RCH_PMI_MY_KVSNAME] = "my_kvsname",
    [RCH_PMI_PUT] = "put",
    [RCH_PMI_PUT_RESULT] = "put_result",
    [RCH_PMI_BARRIER_IN] = "barrier_in",
    [RCH_PMI_BARRIER_OUT] = "barrier_out",
    [RCH_PMI_GET] = "get",
    [RCH_PMI_GET_RESULT] = "get_result",
    [RCH_PMI_ABORT] = "abort",
    [RCH_PMI_FINALIZE] = "finalize",
    [RCH_PMI_FINALIZE_ACK] = "finalize_ack",
    [RCH_PMI_SPAWN_RESULT] = "spawn_result",
};

const char *rch_pmi_cmd_name(enum rch_pmi_cmd cmd)
{
    return (unsigned)cmd < RCH_PMI_CMD_MAX ? cmd_names[cmd] : NULL;
}

/* Printable, no space: what a PMI token may contain. */
static int token_char(unsigned char c)
{
    return c > 0x20 && c < 0x7f;
}

int rch_pmi_valid_value(const char *s, size_t max)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!token_char((unsigned char)s[n]) || n + 1 >= max)
            return 0;
    return 1;
}

int rch_pmi_valid_key(const char *s, size_t max)
{
    return s[0] != '\0' && strchr(s, '=') == NULL && rch_pmi_valid_value(s, max);
}

/* Quote at most 40 bytes of the offending text, control characters escaped. */
const char *rch_pmi_excerpt(const char *s, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == 40) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
        } else {
            static const char hex[] = "0123456789abcdef";
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return out;
}

rdmach_status_t rch_pmi_parse(const char *line, size_t len, struct rch_pmi_msg *m)
{
    char ex[64];
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len == 0)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: empty line");
    if (len >= RCH_PMI_LINE_MAX)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: line of %zu bytes exceeds the maximum of %d: '%s'",
                            len + 1, RCH_PMI_LINE_MAX, rch_pmi_excerpt(line, len, ex, sizeof(ex)));
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c != ' ' && !token_char(c))
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL,
                                "PMI: control or non-ASCII byte 0x%02x at offset %zu of line '%s'",
                                c, i, rch_pmi_excerpt(line, len, ex, sizeof(ex)));
    }
    memcpy(m->buf, line, len);
    m->buf[len] = '\0';
    m->nfields = 0;

    /* Split into space-separated tokens, each at its first '='. */
    const char *cmdname = NULL;
    char *p = m->buf;
    while (*p) {
        while (*p == ' ')
            *p++ = '\0';
        if (!*p)
            break;
        char *tok = p;
        while (*p && *p != ' ')
            p++;
        char *eq = memchr(tok, '=', (size_t)(p - tok));
        if (eq == NULL)
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: field '%s' has no '='",
                                rch_pmi_excerpt(tok, (size_t)(p - tok), ex, sizeof(ex)));
        if (eq == tok)
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: field '%s' has an empty key",
                                rch_pmi_excerpt(tok, (size_t)(p - tok), ex, sizeof(ex)));
        *eq = '\0';
        if (*p)
            *p++ = '\0';
        const char *key = tok, *val = eq + 1;
        if (cmdname == NULL) {
            if (strcmp(key, "cmd") != 0)
                return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL,
                                    "PMI: line does not start with cmd= (starts with '%s=')",
                                    rch_pmi_excerpt(key, strlen(key), ex, sizeof(ex)));
            cmdname = val;
            continue;
        }
        if (strcmp(key, "cmd") == 0)
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: duplicate field 'cmd' in a %s line", cmdname);
        for (int i = 0; i < m->nfields; i++)
            if (strcmp(m->key[i], key) == 0)
                return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: duplicate field '%s' in a %s line",
                                    rch_pmi_excerpt(key, strlen(key), ex, sizeof(ex)), cmdname);
        if (m->nfields == RCH_PMI_FIELDS_MAX)
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: more than %d fields in a %s line",
                                RCH_PMI_FIELDS_MAX, cmdname);
        m->key[m->nfields] = key;
        m->val[m->nfields] = val;
        m->nfields++;
    }
    if (cmdname == NULL)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: blank line");
    for (int c = 0; c < RCH_PMI_CMD_MAX; c++) {
        if (strcmp(cmd_names[c], cmdname) == 0) {
            m->cmd = (enum rch_pmi_cmd)c;
            return RDMACH_OK;
        }
    }
    return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI: unknown command '%s'",
                        rch_pmi_excerpt(cmdname, strlen(cmdname), ex, sizeof(ex)));
}

const char *rch_pmi_lookup(const char *const *keys, const char *const *vals, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], key) == 0)
            return vals[i];
    return NULL;
}

void rch_pmi_errcodes(const char *e, int total, int *errcodes)
{
    for (int i = 0; i < total; i++) {
        errcodes[i] = e && *e ? (int)strtol(e, NULL, 10) : 0;
        e = e ? strchr(e, ',') : NULL;
        e = e ? e + 1 : NULL;
    }
}

rdmach_status_t rch_pmi_require(const char *proto, const char *cmd, const char *key, const char *v, const char **out)
{
    if (v == NULL)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "%s: %s line has no field '%s'", proto, cmd, key);
    *out = v;
    return RDMACH_OK;
}

rdmach_status_t rch_pmi_require_int(const char *proto, const char *cmd, const char *key, const char *v,
                                    long min, long max, int *out)
{
    rdmach_status_t st = rch_pmi_require(proto, cmd, key, v, &v);
    if (st != RDMACH_OK)
        return st;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < min || x > max || x < INT_MIN || x > INT_MAX)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "%s: %s line has %s='%.40s', expected an integer from %ld to %ld",
                            proto, cmd, key, v, min, max);
    *out = (int)x;
    return RDMACH_OK;
}

const char *rch_pmi_field(const struct rch_pmi_msg *m, const char *key)
{
    return rch_pmi_lookup(m->key, m->val, m->nfields, key);
}

rdmach_status_t rch_pmi_field_str(const struct rch_pmi_msg *m, const char *key, const char **out)
{
    return rch_pmi_require("PMI", rch_pmi_cmd_name(m->cmd), key, rch_pmi_field(m, key), out);
}

rdmach_status_t rch_pmi_field_int(const struct rch_pmi_msg *m, const char *key,
                                  long min, long max, int *out)
{
    return rch_pmi_require_int("PMI", rch_pmi_cmd_name(m->cmd), key, rch_pmi_field(m, key), min, max, out);
}

rdmach_status_t rch_pmi_format(char *out, size_t cap, size_t *len, enum rch_pmi_cmd cmd, ...)
{
    const char *name = rch_pmi_cmd_name(cmd);
    if (name == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI: command %d out of range", (int)cmd);
    if (cap > RCH_PMI_LINE_MAX)
        cap = RCH_PMI_LINE_MAX;
    size_t n = 0;
    int w = snprintf(out, cap, "cmd=%s", name);
    if (w < 0 || (size_t)w >= cap)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI: %s line does not fit in %zu bytes", name, cap);
    n = (size_t)w;
    rdmach_status_t st = RDMACH_OK;
    va_list ap;
    va_start(ap, cmd);
    for (;;) {
        const char *k = va_arg(ap, const char *);
        if (k == NULL)
            break;
        const char *v = va_arg(ap, const char *);
        if (v == NULL) {
            st = rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI: %s line: field '%s' has no value", name, k);
            break;
        }
        if (!rch_pmi_valid_key(k, RCH_PMI_KEY_MAX)) {
            st = rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI: %s line: invalid field name '%.40s'", name, k);
            break;
        }
        if (!rch_pmi_valid_value(v, RCH_PMI_VAL_MAX)) {
            st = rch_base_err(RDMACH_ERR_INVALID_ARG,
                              "PMI: %s line: value of '%s' is longer than %d bytes or contains a space or control character",
                              name, k, RCH_PMI_VAL_MAX - 1);
            break;
        }
        w = snprintf(out + n, cap - n, " %s=%s", k, v);
        if (w < 0 || (size_t)w >= cap - n) {
            st = rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI: %s line does not fit in %zu bytes", name, cap);
            break;
        }
        n += (size_t)w;
    }
    va_end(ap);
    if (st != RDMACH_OK)
        return st;
    if (n + 2 > cap)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI: %s line does not fit in %zu bytes", name, cap);
    out[n++] = '\n';
    out[n] = '\0';
    *len = n;
    return RDMACH_OK;
}

void rch_pmi_reader_init(struct rch_pmi_reader *r, int fd)
{
    r->fd = fd;
    r->eof = 0;
    r->len = 0;
}

rdmach_status_t rch_pmi_read_some(int fd, char *buf, size_t *len, size_t cap, int *eof)
{
    if (*eof)
        return RDMACH_ERR_PEER_DEAD;
    if (*len == cap)
        return RDMACH_OK; /* full: the framing reports the oversized message */
    for (;;) {
        ssize_t n = read(fd, buf + *len, cap - *len);
        if (n > 0) {
            *len += (size_t)n;
            return RDMACH_OK;
        }
        if (n == 0) {
            *eof = 1;
            return rch_base_err(RDMACH_ERR_PEER_DEAD, "PMI: connection closed by the peer");
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return RDMACH_AGAIN;
        return rch_base_errno(errno, "PMI: read from fd %d", fd);
    }
}

rdmach_status_t rch_pmi_reader_fill(struct rch_pmi_reader *r)
{
    return rch_pmi_read_some(r->fd, r->buf, &r->len, sizeof(r->buf), &r->eof);
}

rdmach_status_t rch_pmi_wait_input(int fd, double deadline, const char *proto)
{
    for (;;) {
        int wait = -1;
        if (deadline >= 0) {
            double left = deadline - rch_base_wtime();
            if (left <= 0)
                return rch_base_err(RDMACH_ERR_TIMEOUT, "%s: no reply from the process manager on fd %d in time",
                                    proto, fd);
            wait = (int)(left * 1000) + 1;
        }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int pr = poll(&p, 1, wait);
        if (pr < 0 && errno != EINTR)
            return rch_base_errno(errno, "%s: poll fd %d", proto, fd);
        if (pr > 0)
            return RDMACH_OK;
    }
}

rdmach_status_t rch_pmi_reader_next(struct rch_pmi_reader *r, struct rch_pmi_msg *m)
{
    char ex[64];
    char *nl = memchr(r->buf, '\n', r->len);
    if (nl == NULL) {
        if (r->len == sizeof(r->buf)) {
            rdmach_status_t st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL,
                                              "PMI: oversized line (no newline within %d bytes): '%s'",
                                              RCH_PMI_LINE_MAX, rch_pmi_excerpt(r->buf, r->len, ex, sizeof(ex)));
            r->len = 0; /* the rest of the stream cannot be framed reliably */
            r->eof = 1;
            return st;
        }
        if (r->eof && r->len > 0) {
            rdmach_status_t st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL,
                                              "PMI: truncated line (stream ended after '%s' without a newline)",
                                              rch_pmi_excerpt(r->buf, r->len, ex, sizeof(ex)));
            r->len = 0;
            return st;
        }
        return RDMACH_AGAIN;
    }
    size_t llen = (size_t)(nl - r->buf) + 1;
    rdmach_status_t st = rch_pmi_parse(r->buf, llen, m);
    memmove(r->buf, r->buf + llen, r->len - llen);
    r->len -= llen;
    return st;
}

rdmach_status_t rch_pmi_write(int fd, const char *line, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(fd, line + off, len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            int pr = poll(&p, 1, RCH_PMI_WRITE_TIMEOUT_MS);
            if (pr == 0)
                return rch_base_err(RDMACH_ERR_TIMEOUT, "PMI: peer on fd %d has not read for %d ms",
                                    fd, RCH_PMI_WRITE_TIMEOUT_MS);
            if (pr < 0 && errno != EINTR)
                return rch_base_errno(errno, "PMI: poll fd %d", fd);
            continue;
        }
        if (n < 0 && errno == ENOTSOCK) {
            /* not a socket (a pipe in a test): plain write */
            n = write(fd, line + off, len - off);
            if (n > 0) {
                off += (size_t)n;
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
        }
        return rch_base_errno(n < 0 ? errno : EIO, "PMI: write to fd %d", fd);
    }
    return RDMACH_OK;
}
