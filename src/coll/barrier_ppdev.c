/*
 * ppdev: the two-state AND/OR hardware barrier on a real parallel port,
 * through Linux's ppdev driver (/dev/parportN), for clusters wired that way
 * (one port per node, every node's port on the barrier unit).
 *
 * The protocol is barrier_twr.c's — the one hwsim runs and the tests check
 * — over this wire:
 *   write:  ioctl(PPWDATA): OUT on data bit D0 (pin 2); the other data bits 0
 *   settle: nothing to do, the unit settles by itself
 *   read:   ioctl(PPRSTATUS): IN on status bit nACK (0x40, pin 10), which the
 *           port reports without inversion (unlike BUSY)
 *   idle:   poll, then yield (the device progressed meanwhile), then 20 µs
 *           sleeps: ppdev has no interrupt this backend could wait on
 * The port is claimed exclusively (PPEXCL, PPCLAIM) in compatibility mode
 * with its data lines driven (PPDATADIR 0); init writes OUT = 0. The unit
 * must start from S = 0 (every port at 0), as after a reset.
 *
 * Selected only when configured: RDMACH_BARRIER=ppdev and RDMACH_PPDEV=<the
 * port>, on the communicator the unit is wired for — every rank of the job,
 * one per node. If a node cannot open or claim its port, every rank falls
 * back to dissemination (the framework's agreement) with a warning naming
 * the port and the cause. This machine has no parallel port: the wire is
 * built and its failure path tested; the protocol is tested through hwsim.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/parport.h>
#include <linux/ppdev.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "base/base.h"
#include "base/tunables.h"
#include "boot/boot.h"
#include "coll/barrier.h"
#include "coll/barrier_twr.h"

#define PPDEV_OUT_BIT 0x01                 /* data bit D0 */
#define PPDEV_IN_BIT  PARPORT_STATUS_ACK   /* status bit nACK */

struct ppdev_state {
    int fd;
    struct rch_coll_bar_waiter waiter;
    struct rch_coll_twr twr;
};

static rdmach_status_t pp_write(void *wire, unsigned out)
{
    struct ppdev_state *p = wire;
    unsigned char data = out ? PPDEV_OUT_BIT : 0;
    if (ioctl(p->fd, PPWDATA, &data) != 0)
        return rch_base_errno(errno, "barrier ppdev: ioctl(%s, PPWDATA)", rch_tun.ppdev);
    return RDMACH_OK;
}

static int pp_settle(void *wire)
{
    return 0;   /* the hardware unit settles by itself */
}

static rdmach_status_t pp_read(void *wire, unsigned *in)
{
    struct ppdev_state *p = wire;
    unsigned char status = 0;
    if (ioctl(p->fd, PPRSTATUS, &status) != 0)
        return rch_base_errno(errno, "barrier ppdev: ioctl(%s, PPRSTATUS)", rch_tun.ppdev);
    *in = (status & PPDEV_IN_BIT) ? 1u : 0u;
    return RDMACH_OK;
}

static void pp_idle(void *wire, unsigned want, unsigned polls)
{
    struct ppdev_state *p = wire;
    const struct rch_coll_bar_waiter *w = &p->waiter;
    if (polls <= (unsigned)w->spin) {
        if (polls % (unsigned)w->progress_every == 0)
            rch_dev_progress();
        return;
    }
    if (polls <= (unsigned)w->spin + (unsigned)w->yield)
        sched_yield();
    else
        nanosleep(&(struct timespec){ .tv_sec = 0, .tv_nsec = 20000 }, NULL);
    rch_dev_progress();
}

static const struct rch_coll_twr_wire_ops ppdev_wire = {
    .name = "ppdev",
    .write = pp_write,
    .settle = pp_settle,
    .read = pp_read,
    .idle = pp_idle,
};

static int ppdev_applies(const struct rch_coll_comm *c, char *why, size_t len)
{
    int nnodes, ppn;
    if (rch_tun.barrier != RCH_BARRIER_PPDEV) {
        snprintf(why, len, "only when configured (RDMACH_BARRIER=ppdev, RDMACH_PPDEV=/dev/parportN)");
        return 0;
    }
    if (!rch_tun.ppdev[0]) {
        snprintf(why, len, "RDMACH_PPDEV names no parallel port");
        return 0;
    }
    int world = rch_boot_is_up() ? rch_boot.size : c->size;
    if (c->size != world) {
        snprintf(why, len, "the unit is wired for every rank of the job (%d), not %d of them", world,
                 c->size);
        return 0;
    }
    rch_coll_bar_shape(c, &nnodes, &ppn);
    if (ppn > 1) {
        snprintf(why, len, "one port per node, and a node runs %d ranks", ppn);
        return 0;
    }
    snprintf(why, len, "hardware barrier on %s", rch_tun.ppdev);
    return 1;
}

static rdmach_status_t ppdev_init(const struct rch_coll_comm *c, void **out)
{
    const char *dev = rch_tun.ppdev;
    rdmach_status_t st;
    struct ppdev_state *p = calloc(1, sizeof(*p));
    if (!p)
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier ppdev: no memory");
    p->fd = open(dev, O_RDWR);
    if (p->fd < 0) {
        st = rch_base_errno(errno, "barrier ppdev: open(%s)", dev);
        goto out_free;
    }
    int mode = IEEE1284_MODE_COMPAT, dir = 0;
    if (ioctl(p->fd, PPEXCL) != 0) {
        st = rch_base_errno(errno, "barrier ppdev: ioctl(%s, PPEXCL)", dev);
        goto out_close;
    }
    if (ioctl(p->fd, PPCLAIM) != 0) {
        st = rch_base_errno(errno, "barrier ppdev: ioctl(%s, PPCLAIM)", dev);
        goto out_close;
    }
    if (ioctl(p->fd, PPSETMODE, &mode) != 0 || ioctl(p->fd, PPDATADIR, &dir) != 0) {
        st = rch_base_errno(errno, "barrier ppdev: setting %s to compatibility mode, output", dev);
        goto out_release;
    }
    rch_coll_bar_waiter_init(&p->waiter);
    rch_coll_twr_init(&p->twr, &ppdev_wire, p, c->size);
    /* Drive OUT = 0 and check the status register reads; the unit itself
     * must start at S = 0 (every port at 0), as after a reset. */
    unsigned in = 0;
    if ((st = pp_write(p, 0)) != RDMACH_OK || (st = pp_read(p, &in)) != RDMACH_OK)
        goto out_release;
    *out = p;
    return RDMACH_OK;

out_release:
    ioctl(p->fd, PPRELEASE);
out_close:
    close(p->fd);
out_free:
    free(p);
    return st;
}

static rdmach_status_t ppdev_enter(void *state)
{
    return rch_coll_twr_enter(&((struct ppdev_state *)state)->twr);
}

static rdmach_status_t ppdev_wait(void *state)
{
    return rch_coll_twr_wait(&((struct ppdev_state *)state)->twr);
}

static void ppdev_finalize(void *state)
{
    struct ppdev_state *p = state;
    ioctl(p->fd, PPRELEASE);
    close(p->fd);
    free(p);
}

const struct rch_coll_barrier_ops rch_coll_barrier_ppdev_ops = {
    .name = "ppdev",
    .summary = "the AND/OR hardware barrier on a parallel port (Linux ppdev), toggle-write-read",
    .priority = 60,
    .applies = ppdev_applies,
    .init = ppdev_init,
    .enter = ppdev_enter,
    .wait = ppdev_wait,
    .finalize = ppdev_finalize,
};
