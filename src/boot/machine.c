/*
 * Tunables derived from this machine at start-up: the thresholds of the
 * large-message strategies within a node depend on the caches (streaming
 * stores pay once a message no longer fits the last-level cache).
 *
 * The caches are read from sysfs (/sys/devices/system/cpu/cpu0/cache, what
 * hwloc itself reads on Linux) rather than by loading an hwloc topology:
 * a few small reads instead of tens of milliseconds at every start-up.
 * A value the environment or a tuning file sets is left alone
 * (rch_base_tun_machine); rdmach-info prints each value and where it came
 * from, and rdmach-tune --p2p measures the real thresholds of a machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "boot/boot.h"

#define CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = 0;
    return 0;
}

/* "48K", "32768K", "1M" -> bytes (0 if unreadable). */
static size_t parse_cache_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    if (*end == 'K')
        v <<= 10;
    else if (*end == 'M')
        v <<= 20;
    else if (*end == 'G')
        v <<= 30;
    return (size_t)v;
}

void rch_boot_machine_caches(struct rch_boot_machine *m)
{
    memset(m, 0, sizeof(*m));
    for (int i = 0; i < 16; i++) {
        char path[128], type[32], level[8], size[32];
        snprintf(path, sizeof(path), CACHE_DIR "/index%d/type", i);
        if (read_line(path, type, sizeof(type)))
            break;
        snprintf(path, sizeof(path), CACHE_DIR "/index%d/level", i);
        if (read_line(path, level, sizeof(level)))
            continue;
        snprintf(path, sizeof(path), CACHE_DIR "/index%d/size", i);
        if (read_line(path, size, sizeof(size)) || strcmp(type, "Instruction") == 0)
            continue;
        int lv = atoi(level);
        size_t bytes = parse_cache_size(size);
        if (lv == 2)
            m->l2 = bytes;
        if (lv >= m->llc_level && bytes) {
            m->llc_level = lv;
            m->llc = bytes;
        }
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->cpus = n > 0 ? (int)n : 1;
}

static void human(size_t b, char *buf, size_t len)
{
    if (b >= (1u << 20) && b % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", b >> 20);
    else
        snprintf(buf, len, "%zu KiB", b >> 10);
}

rdmach_status_t rch_boot_machine_tunables(int local_size)
{
    struct rch_boot_machine m;
    char text[32], why[128], llc[32];
    rch_boot_machine_caches(&m);
    if (!m.llc)
        return RDMACH_OK;      /* nothing known: the defaults stand */
    human(m.llc, llc, sizeof(llc));
    /* The pipeline's copy into the receive buffer goes around the caches
     * (streaming stores) once source and destination together no longer fit
     * the last-level cache: from half of it. Measured with rdmach-tune --p2p
     * on an AMD EPYC (L3 32 MiB): streaming stores 25% faster at 16 and
     * 32 MiB, 5-10% at 64 and 128 MiB, 30-40% slower at 4 MiB and below.
     * Single copy (SHM_CMA_FROM) stays off: the pipeline was 1.4-2x faster
     * at every size up to 128 MiB there. */
    snprintf(text, sizeof(text), "%zu", m.llc / 2);
    snprintf(why, sizeof(why), "half the last-level cache (L%d, %s)", m.llc_level, llc);
    rdmach_status_t st = rch_base_tun_machine("SHM_NT_FROM", text, why);
    if (st != RDMACH_OK)
        return st;
    /* Prefetching the blocks of a strided move ahead pays where they span
     * more than L2 (AMD EPYC, Zen 5, 256-byte blocks 512 bytes apart, into
     * a peer's window: 16 K blocks 20% faster moved, 38% combined; 1 K
     * blocks, 512 KiB that stay in L2, 3-10% slower). */
    if (m.l2) {
        snprintf(text, sizeof(text), "%zu", m.l2);
        snprintf(why, sizeof(why), "the L2 cache");
        if ((st = rch_base_tun_machine("DTYPE_PREFETCH_FROM", text, why)) != RDMACH_OK)
            return st;
    }
    RCH_DEBUG("boot", "machine: L2 %zu, L%d %zu bytes, %d cpus, %d local ranks", m.l2, m.llc_level,
              m.llc, m.cpus, local_size);
    return RDMACH_OK;
}
