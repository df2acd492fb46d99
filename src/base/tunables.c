/* The tunables table and its parser. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"

struct rch_tunables rch_tun;

#define OFF(f) offsetof(struct rch_tunables, f)
#define KiB 1024LL
#define MiB (1024LL * 1024)
#define GiB (1024LL * 1024 * 1024)

static const struct rch_tun_row rows[] = {
    { "LOG", RCH_TUN_ENUM, OFF(log), "warn", 0, 0, "error|warn|info|debug|trace",
      "Log level; every line names the rank and the subsystem" },
    { "BIND", RCH_TUN_ENUM, OFF(bind), "core", 0, 0, "none|core|numa",
      "Bind each rank round-robin to a core, to a NUMA node, or not at all" },
    { "VNODE_SIZE", RCH_TUN_INT, OFF(vnode_size), "0", 0, 1 << 20, NULL,
      "Group consecutive ranks into pretend nodes of this many ranks (0: real nodes); "
      "ranks of different pretend nodes never share memory" },
    { "SHM", RCH_TUN_BOOL, OFF(shm), "on", 0, 0, "on|off",
      "Use the shared-memory channel between ranks of one node" },
    { "SHM_RING_SIZE", RCH_TUN_SIZE, OFF(shm_ring_size), "64k", 4 * KiB, 64 * MiB, NULL,
      "Bytes of each per-pair shared-memory eager ring" },
    { "SHM_EAGER_MAX", RCH_TUN_SIZE, OFF(shm_eager_max), "16k", 64, 16 * MiB, NULL,
      "Largest message sent eagerly through a shared-memory ring" },
    { "CMA", RCH_TUN_ENUM, OFF(cma), "auto", 0, 0, "auto|on|off",
      "Single-copy transfers with process_vm_readv/writev (auto: use if permitted)" },
    { "SHM_PIPE_CHUNK", RCH_TUN_SIZE, OFF(shm_pipe_chunk), "32k", 4 * KiB, 16 * MiB, NULL,
      "Chunk size of the two-copy pipeline used when single-copy is not permitted" },
    { "RNDV_THRESHOLD", RCH_TUN_SIZE, OFF(rndv_threshold), "0", 0, 1 * GiB, NULL,
      "Messages of at least this size use rendezvous (0: the channel's eager maximum)" },
    { "RNDV_MODE", RCH_TUN_ENUM, OFF(rndv_mode), "auto", 0, 0, "auto|put|get",
      "Rendezvous data transfer: receiver-driven GET, sender-driven PUT, or automatic" },
    { "EAGER_CREDITS", RCH_TUN_INT, OFF(eager_credits), "64", 2, 1 << 16, NULL,
      "Eager packets a sender may have in flight to one peer before waiting for credits (CRDT)" },
    { "SPIN_COUNT", RCH_TUN_INT, OFF(spin_count), "2000", 0, INT_MAX, NULL,
      "Empty progress polls before a waiting rank starts yielding the core" },
    { "SPIN_COUNT_OVERSUB", RCH_TUN_INT, OFF(spin_count_oversub), "0", 0, INT_MAX, NULL,
      "Empty progress polls before yielding when this node runs more ranks than it has cores "
      "(spinning there only delays the rank being waited for)" },
    { "YIELD_COUNT", RCH_TUN_INT, OFF(yield_count), "200", 0, INT_MAX, NULL,
      "sched_yield calls before a waiting rank blocks on the channel's wait primitive" },
    { "NET", RCH_TUN_ENUM, OFF(net), "auto", 0, 0, "auto|verbs|ofi",
      "Network channel between nodes (auto: verbs if an RDMA device is active, else libfabric)" },
    { "OFI_PROVIDER", RCH_TUN_STRING, OFF(ofi_provider), "", 0, 0, NULL,
      "libfabric provider to use (empty: the first MSG provider with FI_RMA)" },
    { "CONNECT", RCH_TUN_ENUM, OFF(connect), "lazy", 0, 0, "lazy|eager",
      "Network connections on first message to a peer, or all at init" },
};

size_t rch_base_tun_count(void)
{
    return RCH_ARRAY_SIZE(rows);
}

const struct rch_tun_row *rch_base_tun_row(size_t i)
{
    return i < RCH_ARRAY_SIZE(rows) ? &rows[i] : NULL;
}

const struct rch_tun_row *rch_base_tun_find(const char *name)
{
    for (size_t i = 0; i < RCH_ARRAY_SIZE(rows); i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

/* Index of `text` in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *text)
{
    size_t tl = strlen(text);
    int idx = 0;
    for (const char *p = choices; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t l = bar ? (size_t)(bar - p) : strlen(p);
        if (l == tl && strncasecmp(p, text, l) == 0)
            return idx;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

static rdmach_status_t bad(const struct rch_tun_row *row, const char *text, const char *accepts)
{
    return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_%s: '%s' is not valid; accepted: %s",
                        row->name, text, accepts);
}

rdmach_status_t rch_base_tun_parse(const struct rch_tun_row *row, const char *text, void *dst)
{
    char accepts[160];
    switch (row->type) {
    case RCH_TUN_ENUM:
    case RCH_TUN_BOOL: {
        int idx = choice_index(row->choices, text);
        if (row->type == RCH_TUN_BOOL && idx < 0) {
            if (!strcmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "true")) idx = 0;
            if (!strcmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "false")) idx = 1;
        }
        if (idx < 0)
            return bad(row, text, row->choices);
        /* BOOL rows list "on|off": on (index 0) is true */
        *(int *)dst = row->type == RCH_TUN_BOOL ? (idx == 0) : idx;
        return RDMACH_OK;
    }
    case RCH_TUN_INT:
    case RCH_TUN_SIZE: {
        if (row->type == RCH_TUN_SIZE)
            snprintf(accepts, sizeof(accepts), "a size from %lld to %lld bytes (suffix k, m or g allowed)",
                     row->min, row->max);
        else
            snprintf(accepts, sizeof(accepts), "an integer from %lld to %lld", row->min, row->max);
        const char *p = text;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '-' || *p == '\0')
            return bad(row, text, accepts);
        errno = 0;
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || end == p)
            return bad(row, text, accepts);
        unsigned long long mul = 1;
        if (row->type == RCH_TUN_SIZE && *end) {
            switch (tolower((unsigned char)*end)) {
            case 'k': mul = KiB; break;
            case 'm': mul = MiB; break;
            case 'g': mul = GiB; break;
            default: return bad(row, text, accepts);
            }
            end++;
            if (*end == 'b' || *end == 'B') end++;
        }
        while (isspace((unsigned char)*end)) end++;
        if (*end)
            return bad(row, text, accepts);
        if (v > (unsigned long long)LLONG_MAX / mul)
            return bad(row, text, accepts);
        long long val = (long long)(v * mul);
        if (val < row->min || val > row->max)
            return bad(row, text, accepts);
        if (row->type == RCH_TUN_INT)
            *(int *)dst = (int)val;
        else
            *(size_t *)dst = (size_t)val;
        return RDMACH_OK;
    }
    case RCH_TUN_STRING: {
        size_t cap = 64; /* every STRING field is char[64] */
        if (strlen(text) >= cap)
            return rch_base_err(RDMACH_ERR_CONFIG, "RDMACH_%s: value longer than %zu characters",
                                row->name, cap - 1);
        strcpy((char *)dst, text);
        return RDMACH_OK;
    }
    }
    return rch_base_err(RDMACH_ERR_OTHER, "RDMACH_%s: unknown tunable type", row->name);
}

rdmach_status_t rch_base_tun_load(void)
{
    extern char **environ;
    for (size_t i = 0; i < RCH_ARRAY_SIZE(rows); i++) {
        rdmach_status_t st = rch_base_tun_parse(&rows[i], rows[i].def, (char *)&rch_tun + rows[i].offset);
        if (st != RDMACH_OK)
            return st;
    }
    for (size_t i = 0; i < RCH_ARRAY_SIZE(rows); i++) {
        char var[96];
        snprintf(var, sizeof(var), "RDMACH_%s", rows[i].name);
        const char *v = getenv(var);
        if (!v)
            continue;
        rdmach_status_t st = rch_base_tun_parse(&rows[i], v, (char *)&rch_tun + rows[i].offset);
        if (st != RDMACH_OK)
            return st;
    }
    rch_log_level = rch_tun.log;
    /* A misspelt variable would otherwise be silently ignored. */
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "RDMACH_", 7) != 0)
            continue;
        const char *name = *e + 7, *eq = strchr(name, '=');
        char buf[96];
        size_t l = eq ? (size_t)(eq - name) : strlen(name);
        if (l >= sizeof(buf))
            l = sizeof(buf) - 1;
        memcpy(buf, name, l);
        buf[l] = '\0';
        if (!rch_base_tun_find(buf))
            RCH_WARN("config", "RDMACH_%s is not a tunable of this rdmach (see rdmach-info)", buf);
    }
    return RDMACH_OK;
}

void rch_base_tun_format(const struct rch_tun_row *row, char *buf, size_t len)
{
    const char *field = (const char *)&rch_tun + row->offset;
    switch (row->type) {
    case RCH_TUN_INT:
        snprintf(buf, len, "%d", *(const int *)field);
        break;
    case RCH_TUN_SIZE:
        snprintf(buf, len, "%zu", *(const size_t *)field);
        break;
    case RCH_TUN_BOOL:
        snprintf(buf, len, "%s", *(const int *)field ? "on" : "off");
        break;
    case RCH_TUN_STRING:
        snprintf(buf, len, "%s", field);
        break;
    case RCH_TUN_ENUM: {
        int idx = *(const int *)field, k = 0;
        const char *p = row->choices;
        while (k < idx && (p = strchr(p, '|')) != NULL) { p++; k++; }
        const char *bar = p ? strchr(p, '|') : NULL;
        snprintf(buf, len, "%.*s", p ? (int)(bar ? bar - p : (long)strlen(p)) : 0, p ? p : "");
        break;
    }
    }
}
