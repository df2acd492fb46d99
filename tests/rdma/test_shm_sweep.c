/*
 * rch_shm_seg_sweep: the segments of a dead owner go, nothing else does —
 * not a live owner's, not one whose owner ran in another pid namespace, not
 * one whose header is incomplete, not a file that is not a segment; a dead
 * owner's segment of an older version (a job of an older library) goes too.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/base.h"
#include "rdma/shm/shm_seg.h"

static const struct rch_shm_geom geom = { .nslots = 2, .ring_cells = RCH_SHM_RING_MIN_CELLS, .pipe_chunk = 4096 };

static void name_of(char *out, size_t len, const char *what)
{
    snprintf(out, len, "/rdmach-sweeptest%d-%s", (int)getpid(), what);
}

static int exists(const char *name)
{
    char path[300];
    struct stat sb;
    snprintf(path, sizeof(path), "/dev/shm%s", name);
    return stat(path, &sb) == 0;
}

/* A segment created by a child that then exits: 2 expected mappers, so the
 * name stays, as when a job dies before its peers mapped it. */
static void make_orphan(const char *name)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct rch_shm_seg seg;
        _exit(rch_shm_seg_create(&seg, name, &geom, 0, 2, 0) == RDMACH_OK ? 0 : 1);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child could not create %s", name);
    cr_assert(exists(name));
}

/* Patch a field of a segment file's header. */
static void poke(const char *name, size_t off, const void *v, size_t len)
{
    int fd = shm_open(name, O_RDWR, 0);
    cr_assert_geq(fd, 0);
    cr_assert_eq(pwrite(fd, v, len, (off_t)off), (ssize_t)len);
    close(fd);
}

Test(shm_sweep, removes_only_segments_of_a_dead_owner)
{
    char dead[128], old[128], live[128], other_ns[128], incomplete[128], plain[128];
    name_of(dead, sizeof(dead), "dead");
    name_of(old, sizeof(old), "old");
    name_of(live, sizeof(live), "live");
    name_of(other_ns, sizeof(other_ns), "otherns");
    name_of(incomplete, sizeof(incomplete), "incomplete");
    name_of(plain, sizeof(plain), "plain");

    make_orphan(dead);
    make_orphan(old);
    uint32_t v1 = 1;        /* before the doorbell */
    poke(old, offsetof(struct rch_shm_seg_hdr, version), &v1, sizeof(v1));
    make_orphan(other_ns);
    uint64_t ns = rch_shm_pid_namespace() + 1;
    poke(other_ns, offsetof(struct rch_shm_seg_hdr, owner_pidns), &ns, sizeof(ns));
    make_orphan(incomplete);
    uint32_t version = 0;   /* as before the creator wrote its header */
    poke(incomplete, offsetof(struct rch_shm_seg_hdr, version), &version, sizeof(version));
    struct rch_shm_seg mine;
    cr_assert_eq(rch_shm_seg_create(&mine, live, &geom, 0, 2, 0), RDMACH_OK);
    int fd = shm_open(plain, O_RDWR | O_CREAT | O_EXCL, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, 4096), 0);
    close(fd);

    /* not its count: every job that starts meanwhile (ctest -j) sweeps too,
     * and may be the one that removes the two */
    rch_shm_seg_sweep();
    cr_expect_not(exists(dead), "a dead owner's segment was left");
    cr_expect_not(exists(old), "a dead owner's segment of version 1 was left");
    cr_expect(exists(live), "a live owner's segment was removed");
    cr_expect(exists(other_ns), "a segment of another pid namespace was removed");
    cr_expect(exists(incomplete), "a segment without a complete header was removed");
    cr_expect(exists(plain), "a file that is not a segment was removed");

    rch_shm_seg_detach(&mine);
    shm_unlink(other_ns);
    shm_unlink(incomplete);
    shm_unlink(plain);
    shm_unlink(dead);
    shm_unlink(old);
}
