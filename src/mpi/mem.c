/*
 * MPI_Alloc_mem and MPI_Free_mem.
 *
 * The memory is page-aligned and a whole number of pages, so that a channel
 * can register it as it stands, and every region is remembered (a list in
 * allocation order) so that Free_mem can reject a pointer it did not hand
 * out and the one-sided layer can ask whether a window's memory came from
 * here (rch_mpi_mem_lookup).
 *
 * Registration hook: today the regions are plain memory and nothing is
 * registered here (whoever uses the memory registers it, as for any other
 * user memory). When the device grows a registration interface (a cache of
 * channel memory registrations), Alloc_mem is the place to register each
 * region eagerly with every channel and Free_mem the place to deregister it,
 * so that windows and rendezvous transfers over such memory skip the
 * registration cost. (MPI_INFO hints are accepted and not used.)
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "mpi/mpi_impl.h"

struct region {
    void *base;
    size_t len;
    struct region *next;
};
static struct region *regions;

int rch_mpi_mem_lookup(const void *addr, void **base, size_t *len)
{
    uintptr_t a = (uintptr_t)addr;
    for (struct region *r = regions; r; r = r->next) {
        if (a >= (uintptr_t)r->base && a < (uintptr_t)r->base + r->len) {
            *base = r->base;
            *len = r->len;
            return 1;
        }
    }
    return 0;
}

void rch_mpi_mem_finalize(void)
{
    /* MPI: memory not freed by the user is the user's leak; the list goes. */
    while (regions) {
        struct region *r = regions;
        regions = r->next;
        free(r);
    }
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Alloc_mem";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (size < 0)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_SIZE, "%s: negative size %ld", fn, (long)size);
    if (!baseptr)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: argument baseptr is NULL", fn);
    if ((err = rch_mpi_info_check(MPI_COMM_NULL, fn, info)))
        return err;
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    /* Size 0 still gets a page: a distinct pointer the user may pass to Free_mem. */
    size_t len = size ? ((size_t)size + page - 1) / page * page : page;
    if (len < (size_t)size)
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: size %ld is too large", fn, (long)size);
    struct region *r = malloc(sizeof(*r));
    void *p = NULL;
    if (!r || posix_memalign(&p, page, len) != 0) {
        free(r);
        return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, "%s: cannot allocate %ld bytes", fn, (long)size);
    }
    /* (the channel registration hook: see the comment at the top) */
    r->base = p;
    r->len = len;
    r->next = regions;
    regions = r;
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem

int PMPI_Free_mem(void *base)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Free_mem";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    if (!base)                      /* as free(NULL) */
        return MPI_SUCCESS;
    for (struct region **pp = &regions; *pp; pp = &(*pp)->next) {
        struct region *r = *pp;
        if (r->base == base) {
            *pp = r->next;
            free(r->base);
            free(r);
            return MPI_SUCCESS;
        }
    }
    return rch_mpi_err(MPI_COMM_NULL, MPI_ERR_BASE, "%s: %p in argument base was not returned by MPI_Alloc_mem", fn,
                       base);
}
#pragma weak MPI_Free_mem = PMPI_Free_mem
