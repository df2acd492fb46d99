/*
 * The noise injector (RDMACH_NOISE=period,duration[,sync|unsync][,ranks]):
 * interrupts the rank's own thread every `period` with a detour of
 * `duration` of busy CPU, to study operating-system noise on a quiet machine
 * (rdmach-noise measures it; docs/SCALE.md).
 *
 * A POSIX timer per process delivers RCH_DEV_NOISE_SIGNAL to the thread that
 * called rdmach_init (SIGEV_THREAD_ID), whose handler spins on the vDSO clock
 * for `duration`: no system call on the rank's path. `sync` puts every rank's
 * detours at the same instants, multiples of the period on CLOCK_REALTIME
 * (coscheduled noise); `unsync` gives each rank a random phase. `ranks`
 * ("0-3,7") limits the noise to those ranks.
 */
#ifndef RCH_DEVICE_NOISE_H
#define RCH_DEVICE_NOISE_H

#include <signal.h>
#include <stdint.h>
#include "rdmach.h"

#define RCH_DEV_NOISE_SIGNAL (SIGRTMIN + 5)

struct rch_dev_noise_cfg {
    int64_t period, duration;   /* ns */
    int sync;                   /* 1: coscheduled, 0: random phase per rank */
    int on_me;                  /* this rank is in the list */
    char ranks[256];            /* the list as given ("" or "all": every rank) */
};

/* Parse RDMACH_NOISE's value for rank `rank` of `size`; RDMACH_ERR_CONFIG
 * with a message naming the variable and the part that is wrong. */
rdmach_status_t rch_dev_noise_parse(const char *text, int rank, int size, struct rch_dev_noise_cfg *cfg);
/* At init: parse rch_tun.noise and, if it asks for noise on this rank, arm
 * the timer. Nothing if RDMACH_NOISE is empty. */
rdmach_status_t rch_dev_noise_start(int rank, int size);
void rch_dev_noise_stop(void);
/* Pause (0) or resume (1) the injection, e.g. to measure with and without;
 * a no-op where there is no noise. */
rdmach_status_t rch_dev_noise_enable(int on);
/* The running configuration, or NULL if there is none. */
const struct rch_dev_noise_cfg *rch_dev_noise_config(void);
/* Detours injected on this rank so far. */
uint64_t rch_dev_noise_count(void);
/* The instants of this rank's detours: CLOCK_REALTIME times t with
 * t % period == phase (0 when synchronised). */
int64_t rch_dev_noise_phase(void);

#endif
