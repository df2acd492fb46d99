/*
 * The one table of tunables. Every knob of every layer is a row here:
 * {name, type, where it is stored, default, range or choices, help}; its value
 * comes from the environment variable RDMACH_<name>. rch_base_tun_load() reads
 * them all at init; a malformed or out-of-range value is an error naming the
 * variable and what it accepts. rdmach-info prints every row with its value.
 *
 * Layers read the parsed values from the global `rch_tun` (plain fields, no
 * lookups on any hot path).
 */
#ifndef RCH_BASE_TUNABLES_H
#define RCH_BASE_TUNABLES_H

#include <stddef.h>
#include "rdmach.h"

enum rch_tun_type { RCH_TUN_INT, RCH_TUN_SIZE, RCH_TUN_ENUM, RCH_TUN_BOOL, RCH_TUN_STRING };

/* Choices of the enum tunables, in the order of their `choices` strings. */
enum { RCH_BIND_NONE, RCH_BIND_CORE, RCH_BIND_NUMA };
enum { RCH_CMA_AUTO, RCH_CMA_ON, RCH_CMA_OFF };
enum { RCH_RNDV_AUTO, RCH_RNDV_PUT, RCH_RNDV_GET };
enum { RCH_NET_AUTO, RCH_NET_VERBS, RCH_NET_OFI };
enum { RCH_CONNECT_LAZY, RCH_CONNECT_EAGER };

struct rch_tunables {
    int    log;              /* enum rch_log_level */
    int    bind;             /* RCH_BIND_* */
    int    vnode_size;       /* 0: real nodes */
    int    shm;              /* bool: use shared memory within a node */
    size_t shm_ring_size;    /* bytes of each per-pair eager ring */
    size_t shm_eager_max;    /* largest message sent through the ring */
    int    cma;              /* RCH_CMA_*: single-copy through process_vm_readv/writev */
    size_t shm_pipe_chunk;   /* chunk of the two-copy pipeline (no CMA) */
    size_t rndv_threshold;   /* 0: use the channel's eager maximum */
    int    rndv_mode;        /* RCH_RNDV_* */
    int    eager_credits;    /* eager packets in flight per peer (CRDT) */
    int    spin_count;       /* empty progress polls before yielding */
    int    spin_count_oversub; /* the same when the node has more ranks than cores */
    int    yield_count;      /* yields before blocking on the channel's wait primitive */
    int    net;              /* RCH_NET_* */
    char   ofi_provider[64];
    int    connect;          /* RCH_CONNECT_* */
};

extern struct rch_tunables rch_tun;

struct rch_tun_row {
    const char *name;        /* without the RDMACH_ prefix */
    enum rch_tun_type type;
    size_t offset;           /* into struct rch_tunables */
    const char *def;         /* default, as it would be written in the environment */
    long long min, max;      /* INT and SIZE */
    const char *choices;     /* ENUM: "a|b|c"; BOOL: "on|off" */
    const char *help;
};

/* Parse all RDMACH_* variables (defaults first). RDMACH_ERR_CONFIG with a
 * message naming the variable and the accepted values if one is malformed. */
rdmach_status_t rch_base_tun_load(void);
/* Parse one value for a row into `dst` (used by load and by the unit tests). */
rdmach_status_t rch_base_tun_parse(const struct rch_tun_row *row, const char *text, void *dst);
size_t rch_base_tun_count(void);
const struct rch_tun_row *rch_base_tun_row(size_t i);
const struct rch_tun_row *rch_base_tun_find(const char *name);
/* The current value of a row as text (for rdmach-info). */
void rch_base_tun_format(const struct rch_tun_row *row, char *buf, size_t len);

#endif
