/*
 * The toggle-write-read protocol of a two-state AND/OR hardware barrier,
 * shared by the `hwsim` backend (the hardware modelled in shared memory,
 * barrier_hwsim.c) and the `ppdev` backend (the real thing behind a
 * parallel port, barrier_ppdev.c). One protocol (barrier_twr.c), two wires.
 *
 * The hardware: every processor drives one OUT wire and reads one IN wire.
 * The barrier unit holds one bit of state S, shown on every IN wire:
 *   S becomes 1 when AND(OUT) = 1 (every OUT is 1),
 *   S becomes 0 when OR(OUT)  = 0 (every OUT is 0),
 *   otherwise S holds.
 * The protocol, per barrier, with `out` this rank's last written value
 * (initially 0, as S is):
 *   enter: out = !out; write(out)          (toggle, write)
 *   wait:  read(in) until in == out        (read until IN toggles)
 * S can only become `out` once every rank has written `out`, i.e. entered;
 * it cannot flip back before every rank has entered the next barrier.
 *
 * Cost model (the one the hwsim printout checks): t_b = o_w + o_p(P) + o_r,
 * o_w the time to write the OUT wire, o_p(P) the time for the unit to settle
 * after the last write (the model: its evaluation over P wires), o_r the
 * time of the read that sees IN toggle.
 */
#ifndef RCH_COLL_BARRIER_TWR_H
#define RCH_COLL_BARRIER_TWR_H

#include <stdint.h>
#include "rdmach.h"

/* A wire: how this rank drives OUT and samples IN. Every slot is filled. */
struct rch_coll_twr_wire_ops {
    const char *name;
    rdmach_status_t (*write)(void *wire, unsigned out);
    /* After a write: let the unit settle. The model evaluates AND/OR here
     * (1 if that flipped S); real hardware settles by itself (0). */
    int (*settle)(void *wire);
    rdmach_status_t (*read)(void *wire, unsigned *in);
    /* Between two reads that did not see the toggle (`polls` so far):
     * spin, yield, or sleep until IN may have changed. */
    void (*idle)(void *wire, unsigned want, unsigned polls);
};

struct rch_coll_twr {
    const struct rch_coll_twr_wire_ops *ops;
    void *wire;
    unsigned out;              /* the value this rank wrote last */
    int ranks;                 /* P: processors on the barrier */
};

void rch_coll_twr_init(struct rch_coll_twr *t, const struct rch_coll_twr_wire_ops *ops, void *wire,
                       int ranks);
rdmach_status_t rch_coll_twr_enter(struct rch_coll_twr *t);   /* toggle, write, settle */
rdmach_status_t rch_coll_twr_wait(struct rch_coll_twr *t);    /* read until IN == out */

/* Measurement of the model's parameters in this process (off by default:
 * the timers would slow the barrier they measure). Sums since the last
 * rch_coll_twr_measure(1); `ranks` is P of the latest barrier measured. */
struct rch_coll_twr_stats {
    uint64_t barriers;         /* enter + wait pairs measured */
    uint64_t flips;            /* settles that flipped S (the last writer's) */
    double write_ns;           /* sum over barriers of the write */
    double settle_ns;          /* sum over flipping settles */
    double read_ns;            /* sum over barriers of the read that saw the toggle */
    double barrier_ns;         /* sum over barriers, enter to the end of wait */
    int ranks;
};
void rch_coll_twr_measure(int on);
void rch_coll_twr_get_stats(struct rch_coll_twr_stats *out);

#endif
