/*
 * The native PUT/GET's data formats (native_rma.c): the exported key, which
 * travels between processes as opaque bytes (rdmach_key_t), and the layout
 * of the caller-owned operation (rdmach_op_t).
 *
 * Key version history
 *   1  magic, version, nchans, access, owner, job size, base, len, and up to
 *      RCH_NATIVE_KEY_CHANS (channel name, remote key) entries.
 *
 * Every field of a received key is checked before it is trusted: magic and
 * version, nchans <= RCH_NATIVE_KEY_CHANS, each entry's len <=
 * RCH_RDMA_RKEY_MAX, the owner against the rank named in the call, the job
 * size against ours, base + len without overflow. The channel checks its own
 * remote key bytes again (shm: the owner's pid and range; net: its magic).
 */
#ifndef RCH_DEVICE_NATIVE_RMA_H
#define RCH_DEVICE_NATIVE_RMA_H

#include <stdint.h>
#include "rdmach.h"
#include "rdma/channel.h"

#define RCH_NATIVE_KEY_MAGIC   0x4b4d4452u   /* "RDMK" in memory order */
#define RCH_NATIVE_KEY_VERSION 1u
#define RCH_NATIVE_KEY_CHANS   4
#define RCH_NATIVE_CHAN_NAME   8             /* "shm", "ofi", "verbs" + NUL */

struct rch_native_key_chan {
    char chan[RCH_NATIVE_CHAN_NAME];   /* the channel's ops name, NUL-padded */
    uint32_t len;                      /* bytes of rkey in use */
    uint32_t rsvd;
    uint8_t rkey[RCH_RDMA_RKEY_MAX];
};
_Static_assert(sizeof(struct rch_native_key_chan) == 56, "key channel entry is 56 bytes");

struct rch_native_key {
    uint32_t magic;
    uint16_t version;
    uint8_t nchans;
    uint8_t access;                    /* RDMACH_MEM_REMOTE_* */
    int32_t owner;                     /* world rank of the registering process */
    uint32_t job_size;                 /* world size of its job */
    uint64_t base;                     /* the registration, in the owner's address space */
    uint64_t len;
    struct rch_native_key_chan chans[RCH_NATIVE_KEY_CHANS];
};
_Static_assert(sizeof(struct rch_native_key) == RDMACH_KEY_SIZE, "the key fills rdmach_key_t exactly");

enum rch_native_kind { RCH_NATIVE_PUT = 1, RCH_NATIVE_GET };
enum rch_native_op_state { RCH_NATIVE_OP_INFLIGHT = 1, RCH_NATIVE_OP_DONE };

#define RCH_NATIVE_OP_MAGIC 0x504f4e52u      /* "RNOP" */

/* What rdmach_op_t holds. `magic` marks storage that holds an operation
 * (started at least once); an operation in flight is also named by its
 * device request (`id`), whose `buf` points back here, so garbage in a fresh
 * rdmach_op_t can never pass for a live operation. `done` is written last
 * (release) by the completion. */
struct rch_native_op {
    uint32_t magic;
    uint8_t kind;                      /* enum rch_native_kind */
    uint8_t state;                     /* enum rch_native_op_state */
    uint16_t rsvd;
    int32_t rank;
    int32_t status;                    /* rdmach_status_t once done */
    volatile int32_t done;
    uint32_t rsvd2;
    uint64_t id;                       /* the device request while in flight */
    uint64_t len;
};
_Static_assert(sizeof(struct rch_native_op) <= RDMACH_OP_SIZE, "the operation fits rdmach_op_t");
_Static_assert(_Alignof(struct rch_native_op) <= _Alignof(rdmach_op_t), "rdmach_op_t is aligned enough");

#endif
