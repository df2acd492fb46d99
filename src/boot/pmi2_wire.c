/* PMI-2 wire protocol: frames, parsing, formatting (see pmi2_wire.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "boot/pmi2_wire.h"
#include "boot/pmi_wire.h"

static const char *const cmd_names[RCH_PMI2_CMD_MAX] = {
    [RCH_PMI2_FULLINIT] = "fullinit",
    [RCH_PMI2_FULLINIT_RESPONSE] = "fullinit-response",
    [RCH_PMI2_JOB_GETID] = "job-getid",
    [RCH_PMI2_JOB_GETID_RESPONSE] = "job-getid-response",
    [RCH_PMI2_INFO_GETJOBATTR] = "info-getjobattr",
    [RCH_PMI2_INFO_GETJOBATTR_RESPONSE] = "info-getjobattr-response",
    [RCH_PMI2_INFO_GETNODEATTR] = "info-getnodeattr",
    [RCH_PMI2_INFO_GETNODEATTR_RESPONSE] = "info-getnodeattr-response",
    [RCH_PMI2_KVS_PUT] = "kvs-put",
    [RCH_PMI2_KVS_PUT_RESPONSE] = "kvs-put-response",
    [RCH_PMI2_KVS_GET] = "kvs-get",
    [RCH_PMI2_KVS_GET_RESPONSE] = "kvs-get-response",
    [RCH_PMI2_KVS_FENCE] = "kvs-fence",
    [RCH_PMI2_KVS_FENCE_RESPONSE] = "kvs-fence-response",
    [RCH_PMI2_ABORT] = "abort",
    [RCH_PMI2_FINALIZE] = "finalize",
    [RCH_PMI2_FINALIZE_RESPONSE] = "finalize-response",
    [RCH_PMI2_SPAWN] = "spawn",
    [RCH_PMI2_SPAWN_RESPONSE] = "spawn-response",
};

const char *rch_pmi2_cmd_name(enum rch_pmi2_cmd cmd)
{
    return (unsigned)cmd < RCH_PMI2_CMD_MAX ? cmd_names[cmd] : NULL;
}

static int key_char(unsigned char c)
{
    return c > 0x20 && c < 0x7f && c != '=' && c != ';';
}

rdmach_status_t rch_pmi2_parse(const char *payload, size_t len, struct rch_pmi2_msg *m)
{
    char ex[64];
    if (len == 0)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: empty message");
    if (len > RCH_PMI2_PAYLOAD_MAX)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: message of %zu bytes exceeds the maximum of %d: '%s'",
                            len, RCH_PMI2_PAYLOAD_MAX, rch_pmi_excerpt(payload, len, ex, sizeof(ex)));
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)payload[i];
        if (c < 0x20 || c >= 0x7f)
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL,
                                "PMI-2: control or non-ASCII byte 0x%02x at offset %zu of message '%s'",
                                c, i, rch_pmi_excerpt(payload, len, ex, sizeof(ex)));
    }
    m->nfields = 0;
    const char *cmdname = NULL;
    char *o = m->buf;          /* unescaped output, never longer than the input */
    size_t i = 0;
    while (i < len) {
        const char *key = o;
        size_t k0 = i;
        while (i < len && key_char((unsigned char)payload[i]))
            *o++ = payload[i++];
        if (i == k0)
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: a field has an empty key at '%s'",
                                rch_pmi_excerpt(payload + k0, len - k0, ex, sizeof(ex)));
        if (i == len || payload[i] != '=')
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: field '%s' has no '='",
                                rch_pmi_excerpt(payload + k0, len - k0, ex, sizeof(ex)));
        *o++ = '\0';
        i++; /* '=' */
        const char *val = o;
        while (i < len) {
            if (payload[i] == ';') {
                if (i + 1 < len && payload[i + 1] == ';') {   /* escaped ';' */
                    *o++ = ';';
                    i += 2;
                    continue;
                }
                i++;
                break;
            }
            *o++ = payload[i++];
        }
        *o++ = '\0';
        if (cmdname == NULL) {
            if (strcmp(key, "cmd") != 0)
                return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: message does not start with cmd=: '%s'",
                                    rch_pmi_excerpt(payload, len, ex, sizeof(ex)));
            cmdname = val;
            continue;
        }
        for (int f = 0; f < m->nfields; f++)
            if (strcmp(m->key[f], key) == 0)
                return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: duplicate field '%s' in a %s message",
                                    key, cmdname);
        if (m->nfields == RCH_PMI2_FIELDS_MAX)
            return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: more than %d fields in a %s message",
                                RCH_PMI2_FIELDS_MAX, cmdname);
        m->key[m->nfields] = key;
        m->val[m->nfields] = val;
        m->nfields++;
    }
    for (int c = 0; c < RCH_PMI2_CMD_MAX; c++) {
        if (strcmp(cmd_names[c], cmdname) == 0) {
            m->cmd = (enum rch_pmi2_cmd)c;
            return RDMACH_OK;
        }
    }
    return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: unknown command '%s'",
                        rch_pmi_excerpt(cmdname, strlen(cmdname), ex, sizeof(ex)));
}

const char *rch_pmi2_field(const struct rch_pmi2_msg *m, const char *key)
{
    return rch_pmi_lookup(m->key, m->val, m->nfields, key);
}

rdmach_status_t rch_pmi2_field_str(const struct rch_pmi2_msg *m, const char *key, const char **out)
{
    return rch_pmi_require("PMI-2", rch_pmi2_cmd_name(m->cmd), key, rch_pmi2_field(m, key), out);
}

rdmach_status_t rch_pmi2_field_int(const struct rch_pmi2_msg *m, const char *key, long min, long max, int *out)
{
    return rch_pmi_require_int("PMI-2", rch_pmi2_cmd_name(m->cmd), key, rch_pmi2_field(m, key), min, max, out);
}

rdmach_status_t rch_pmi2_field_bool(const struct rch_pmi2_msg *m, const char *key, int *out)
{
    const char *v = NULL;
    rdmach_status_t st = rch_pmi2_field_str(m, key, &v);
    if (st != RDMACH_OK)
        return st;
    if (strcmp(v, "TRUE") != 0 && strcmp(v, "FALSE") != 0)
        return rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: %s line has %s='%.40s', expected TRUE or FALSE",
                            rch_pmi2_cmd_name(m->cmd), key, v);
    *out = v[0] == 'T';
    return RDMACH_OK;
}

/* Append s to out[*n..cap), doubling ';' if `escape`; 0 if it does not fit. */
static int append(char *out, size_t cap, size_t *n, const char *s, int escape)
{
    for (; *s; s++) {
        size_t need = escape && *s == ';' ? 2 : 1;
        if (*n + need >= cap)
            return 0;
        out[(*n)++] = *s;
        if (need == 2)
            out[(*n)++] = ';';
    }
    return 1;
}

rdmach_status_t rch_pmi2_format_kv(char *out, size_t cap, size_t *len, enum rch_pmi2_cmd cmd, int nkv,
                                   const char *const *kv)
{
    const char *name = rch_pmi2_cmd_name(cmd);
    if (name == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI-2: command %d out of range", (int)cmd);
    if (cap > RCH_PMI2_HEADER + RCH_PMI2_PAYLOAD_MAX + 1)
        cap = RCH_PMI2_HEADER + RCH_PMI2_PAYLOAD_MAX + 1;
    if (cap <= RCH_PMI2_HEADER)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI-2: %s message does not fit in %zu bytes", name, cap);
    size_t n = RCH_PMI2_HEADER;
    int fits = append(out, cap, &n, "cmd=", 0) && append(out, cap, &n, name, 0) && append(out, cap, &n, ";", 0);
    for (int i = 0; i < nkv; i++) {
        const char *k = kv[2 * i], *v = kv[2 * i + 1];
        int ok = k != NULL && v != NULL && k[0] != '\0';
        for (const char *p = k; ok && *p; p++)
            ok = key_char((unsigned char)*p);
        for (const char *p = v; ok && *p; p++)
            ok = (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f;
        if (!ok)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI-2: %s message: field '%.40s' has an invalid name "
                                "or a missing value or one with a control byte", name, k ? k : "(null)");
        fits = fits && append(out, cap, &n, k, 0) && append(out, cap, &n, "=", 0) && append(out, cap, &n, v, 1) &&
               append(out, cap, &n, ";", 0);
    }
    if (!fits)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI-2: %s message does not fit in %zu bytes", name, cap);
    /* MPICH's client writes the length left-justified */
    char head[RCH_PMI2_HEADER + 1];
    snprintf(head, sizeof(head), "%-6d", (int)(n - RCH_PMI2_HEADER));
    memcpy(out, head, RCH_PMI2_HEADER);
    out[n] = '\0';
    *len = n;
    return RDMACH_OK;
}

/* The variadic form's callers pass a few fixed fields. */
#define FORMAT_VA_MAX 8

rdmach_status_t rch_pmi2_format(char *out, size_t cap, size_t *len, enum rch_pmi2_cmd cmd, ...)
{
    const char *kv[2 * FORMAT_VA_MAX];
    int n = 0;
    va_list ap;
    va_start(ap, cmd);
    for (const char *k; (k = va_arg(ap, const char *)) != NULL; n++) {
        if (n == FORMAT_VA_MAX) {
            va_end(ap);
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "PMI-2: more than %d fields in a %s message",
                                FORMAT_VA_MAX, rch_pmi2_cmd_name(cmd) ? rch_pmi2_cmd_name(cmd) : "?");
        }
        kv[2 * n] = k;
        kv[2 * n + 1] = va_arg(ap, const char *);
    }
    va_end(ap);
    return rch_pmi2_format_kv(out, cap, len, cmd, n, kv);
}

void rch_pmi2_reader_init(struct rch_pmi2_reader *r, int fd)
{
    r->fd = fd;
    r->eof = 0;
    r->len = 0;
}

rdmach_status_t rch_pmi2_reader_fill(struct rch_pmi2_reader *r)
{
    return rch_pmi_read_some(r->fd, r->buf, &r->len, sizeof(r->buf), &r->eof);
}

/* The length in a 6-byte header: digits with spaces only before or after. */
static long header_length(const char *h)
{
    int i = 0;
    long n = 0;
    while (i < RCH_PMI2_HEADER && h[i] == ' ')
        i++;
    if (i == RCH_PMI2_HEADER || h[i] < '0' || h[i] > '9')
        return -1;
    while (i < RCH_PMI2_HEADER && h[i] >= '0' && h[i] <= '9')
        n = n * 10 + (h[i++] - '0');
    while (i < RCH_PMI2_HEADER && h[i] == ' ')
        i++;
    return i == RCH_PMI2_HEADER ? n : -1;
}

rdmach_status_t rch_pmi2_reader_next(struct rch_pmi2_reader *r, struct rch_pmi2_msg *m)
{
    char ex[64];
    rdmach_status_t st;
    if (r->len < RCH_PMI2_HEADER) {
        if (r->eof && r->len > 0) {
            st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: truncated message (stream ended after '%s')",
                              rch_pmi_excerpt(r->buf, r->len, ex, sizeof(ex)));
            r->len = 0;
            return st;
        }
        return RDMACH_AGAIN;
    }
    long n = header_length(r->buf);
    if (n <= 0 || n > RCH_PMI2_PAYLOAD_MAX) {
        st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL,
                          "PMI-2: bad length header '%.6s' (expected 1 to %d as 6 decimal characters) in '%s'",
                          r->buf, RCH_PMI2_PAYLOAD_MAX, rch_pmi_excerpt(r->buf, r->len, ex, sizeof(ex)));
        r->len = 0; /* the rest of the stream cannot be framed */
        r->eof = 1;
        return st;
    }
    size_t total = RCH_PMI2_HEADER + (size_t)n;
    if (r->len < total) {
        if (r->eof) {
            st = rch_base_err(RDMACH_ERR_BOOT_PROTOCOL,
                              "PMI-2: truncated message (stream ended after %zu of %zu bytes: '%s')",
                              r->len, total, rch_pmi_excerpt(r->buf, r->len, ex, sizeof(ex)));
            r->len = 0;
            return st;
        }
        return RDMACH_AGAIN;
    }
    st = rch_pmi2_parse(r->buf + RCH_PMI2_HEADER, (size_t)n, m);
    memmove(r->buf, r->buf + total, r->len - total);
    r->len -= total;
    return st;
}
