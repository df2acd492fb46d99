/*
 * A mock channel for the device's unit tests: the test plays the remote
 * peer(s). What the device sends lands in an outbox the test pops; what the
 * test injects is delivered to the device from the next progress() call, as a
 * real channel would. The outbox has a capacity (send() answers AGAIN when it
 * is full, like a full ring), and the mock checks credits exactly: for every
 * credited packet it counts sent minus returned (from the credits fields of
 * injected packets) and records the maximum.
 */
#ifndef TEST_DEVICE_MOCK_CHAN_H
#define TEST_DEVICE_MOCK_CHAN_H

#include <stddef.h>
#include <stdint.h>
#include "rdma/channel.h"

#define MOCK_PKT_MAX 4096
#define MOCK_QUEUE 4096
#define MOCK_PEERS 8

struct mock_pkt {
    int peer;
    size_t len;
    _Alignas(16) unsigned char data[MOCK_PKT_MAX];
};

struct mock_cfg {
    size_t max_msg;
    int needs_credits;
    int rma;
    int rma_async;            /* put/get answer INPROGRESS; rma_done at the next progress */
    int out_capacity;         /* outbox packets before send() answers AGAIN */
};

extern struct mock_cfg mock_cfg;
extern const struct rch_rdma_ops mock_ops;

/* Reset everything (before rch_dev_init). */
void mock_reset(void);
int mock_out_count(void);
/* Pop the oldest packet the device sent; 0 if none. */
int mock_out_pop(struct mock_pkt *p);
/* Deliver a packet from `peer` at the next progress. */
void mock_inject(int peer, const void *pkt, size_t len);
/* Report peer as failed at the next progress. */
void mock_fail_peer(int peer);
/* peer_gone(peer) answers yes from its n-th question on (0: never); the
 * questions asked so far. The device hears nothing of it. */
void mock_gone_after(int peer, int n);
int mock_gone_asked(int peer);
/* Credit bookkeeping per peer (credited packets the device sent, credits returned to it). */
long mock_sent_credited(int peer);
long mock_returned(int peer);
long mock_max_inflight(int peer);
long mock_again_count(void);

/* The mock selector for rch_dev_init_with: every other rank through the mock. */
const struct rch_rdma_ops *mock_select(const struct rch_boot_info *boot, int peer);
/* Only even ranks are reached; odd ones are unreachable. */
const struct rch_rdma_ops *mock_select_even(const struct rch_boot_info *boot, int peer);

/* Bring base + boot (singleton) up and pretend the job has `size` ranks with
 * this process as rank 0, all on one node; and take it down again. */
void mock_job_up(int size);
void mock_job_down(void);

#endif
