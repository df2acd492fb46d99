/*
 * Environment inquiries: Wtime, Wtick, Get_processor_name, Get_version,
 * Get_library_version. Wtime is the monotonic clock (not synchronized across
 * nodes: MPI_WTIME_IS_GLOBAL is false). Get_version and
 * Get_library_version may be called before MPI_Init and after Finalize.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/tunables.h"
#include "boot/boot.h"
#include "mpi/mpi_impl.h"
#include "rdmach_config.h"

double PMPI_Wtime(void)
{
    return rch_base_wtime();
}
#pragma weak MPI_Wtime = PMPI_Wtime

double PMPI_Wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}
#pragma weak MPI_Wtick = PMPI_Wtick

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Get_processor_name");
    if (err)
        return err;
    if (!name || !resultlen)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_processor_name: argument %s is NULL",
                           !name ? "name" : "resultlen");
    const char *h = rch_boot.hostname;
    char buf[MPI_MAX_PROCESSOR_NAME];
    if (!h[0]) {
        if (gethostname(buf, sizeof(buf)) != 0)
            snprintf(buf, sizeof(buf), "localhost");
        buf[sizeof(buf) - 1] = '\0';
        h = buf;
    }
    /* With pretend nodes (RDMACH_VNODE_SIZE) each one is a processor of its
     * own, as MPI_COMM_TYPE_SHARED sees them: programs that find nodes by
     * comparing processor names (OMB's congestion benchmarks do) then see
     * the same layout as the library. */
    char vname[MPI_MAX_PROCESSOR_NAME];
    if (rch_tun.vnode_size > 0) {
        snprintf(vname, sizeof(vname), "%.100s-vnode%d", h, rch_boot.node);
        h = vname;
    }
    size_t n = strnlen(h, MPI_MAX_PROCESSOR_NAME - 1);
    memcpy(name, h, n);
    name[n] = '\0';
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name

int PMPI_Get_version(int *version, int *subversion)
{
    RCH_MPI_CS();
    if (!version || !subversion)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_version: argument %s is NULL",
                           !version ? "version" : "subversion");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_version = PMPI_Get_version

int PMPI_Get_library_version(char *version, int *resultlen)
{
    RCH_MPI_CS();
    if (!version || !resultlen)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_library_version: argument %s is NULL",
                           !version ? "version" : "resultlen");
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "rdmach %s (MPI %d.%d, MPICH 4.0.2 ABI; %s build; channels: shm%s%s)",
                     RDMACH_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION, RDMACH_BUILD_TYPE,
                     RDMACH_HAVE_VERBS ? ", verbs" : "", RDMACH_HAVE_OFI ? ", libfabric" : "");
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}
#pragma weak MPI_Get_library_version = PMPI_Get_library_version

/* Address arithmetic: addresses are plain byte addresses here (MPI_BOTTOM is 0). */
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
#pragma weak MPI_Aint_add = PMPI_Aint_add

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
#pragma weak MPI_Aint_diff = PMPI_Aint_diff

/* MPI_Pcontrol is for profiling tools that replace it (through the weak
 * MPI_ symbol); without one, MPI defines it to have no effect. */
int PMPI_Pcontrol(const int level, ...)
{
    RCH_MPI_CS();
    return MPI_SUCCESS;
}
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
