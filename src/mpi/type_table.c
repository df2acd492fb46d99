/*
 * The derived-datatype table: handle 0x8c000000 + RCH_MPI_TYPE_FIRST_DERIVED + i
 * -> object i.
 *
 * Lookup is lock-free and allocation-free (it is on every communication
 * call): the table is a fixed array of pointers to chunks of
 * RCH_TYPE_CHUNK slots; chunks are allocated on demand and never move or go
 * away before finalize, and slots are published with release stores, so a
 * reader needs two acquire loads. Creating and destroying types (rare) take
 * `table_lock`; freed indices are reused, lowest-recently-freed first.
 */
#include <pthread.h>
#include <stdlib.h>
#include "mpi/type_impl.h"

#define RCH_TYPE_CHUNK_BITS 10
#define RCH_TYPE_CHUNK      (1u << RCH_TYPE_CHUNK_BITS)
#define RCH_TYPE_NCHUNKS    ((RCH_MPI_TYPE_MAX_DERIVED + RCH_TYPE_CHUNK - 1) / RCH_TYPE_CHUNK)

static struct rch_mpi_type_obj **chunks[RCH_TYPE_NCHUNKS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_index;          /* indices below this have been handed out */
static uint32_t *free_list;          /* indices of destroyed types, reused LIFO */
static size_t nfree, cap_free;

struct rch_mpi_type_obj *rch_mpi_type_derived(MPI_Datatype dt)
{
    uint32_t h = (uint32_t)dt, idx = (h & 0xffffffu) - RCH_MPI_TYPE_FIRST_DERIVED;
    struct rch_mpi_type_obj **chunk;

    if ((h >> 24) != RCH_MPI_TYPE_KIND_DIRECT || idx >= RCH_MPI_TYPE_MAX_DERIVED)
        return NULL;
    chunk = __atomic_load_n(&chunks[idx >> RCH_TYPE_CHUNK_BITS], __ATOMIC_ACQUIRE);
    if (!chunk)
        return NULL;
    return __atomic_load_n(&chunk[idx & (RCH_TYPE_CHUNK - 1)], __ATOMIC_ACQUIRE);
}

int rch_mpi_type_register(struct rch_mpi_type_obj *o)
{
    uint32_t idx;
    struct rch_mpi_type_obj **chunk;
    int rc = MPI_SUCCESS;

    pthread_mutex_lock(&table_lock);
    if (nfree > 0) {
        idx = free_list[--nfree];
    } else if (next_index < RCH_MPI_TYPE_MAX_DERIVED) {
        idx = next_index;
        chunk = chunks[idx >> RCH_TYPE_CHUNK_BITS];
        if (!chunk) {
            chunk = calloc(RCH_TYPE_CHUNK, sizeof(*chunk));
            if (!chunk) {
                rc = MPI_ERR_OTHER;
                goto out_unlock;
            }
            __atomic_store_n(&chunks[idx >> RCH_TYPE_CHUNK_BITS], chunk, __ATOMIC_RELEASE);
        }
        next_index++;
    } else {
        rc = MPI_ERR_OTHER;          /* 16M live datatypes */
        goto out_unlock;
    }
    o->t.handle = (MPI_Datatype)((RCH_MPI_TYPE_KIND_DIRECT << 24) | (idx + RCH_MPI_TYPE_FIRST_DERIVED));
    o->t.refcount = 1;
    o->urefs = 1;
    __atomic_store_n(&chunks[idx >> RCH_TYPE_CHUNK_BITS][idx & (RCH_TYPE_CHUNK - 1)], o,
                     __ATOMIC_RELEASE);
out_unlock:
    pthread_mutex_unlock(&table_lock);
    return rc;
}

/* Take o out of the table (its refcount reached 0). */
static void unregister(struct rch_mpi_type_obj *o)
{
    uint32_t idx = ((uint32_t)o->t.handle & 0xffffffu) - RCH_MPI_TYPE_FIRST_DERIVED;

    pthread_mutex_lock(&table_lock);
    __atomic_store_n(&chunks[idx >> RCH_TYPE_CHUNK_BITS][idx & (RCH_TYPE_CHUNK - 1)], NULL,
                     __ATOMIC_RELEASE);
    if (nfree == cap_free) {
        size_t cap = cap_free ? 2 * cap_free : 64;
        uint32_t *fl = realloc(free_list, cap * sizeof(*fl));
        if (!fl)
            goto out_unlock;     /* the index is simply not reused */
        free_list = fl;
        cap_free = cap;
    }
    free_list[nfree++] = idx;
out_unlock:
    pthread_mutex_unlock(&table_lock);
}

void rch_mpi_type_retain(struct rch_mpi_type *t)
{
    if (t && !t->predefined)
        __atomic_add_fetch(&t->refcount, 1, __ATOMIC_RELAXED);
}

void rch_mpi_type_release(struct rch_mpi_type *t)
{
    struct rch_mpi_type_obj *o;

    if (!t || t->predefined)
        return;
    if (__atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    o = rch_mpi_type_obj_of(t);
    unregister(o);
    rch_mpi_type_obj_destroy(o);      /* releases the types its record names */
}

void rch_mpi_type_table_init(void)
{
    /* Everything starts zeroed; finalize restores that. */
}

void rch_mpi_type_table_finalize(void)
{
    /* Types the program never freed are reclaimed here, whatever their
     * refcount: nothing may use a datatype after MPI_Finalize. Records are
     * dropped first so that destroying one type never reaches another that
     * has already been freed. Only the chunks handed out are visited: the
     * whole array of chunk pointers is 128 KiB that no one touched, whose
     * reading cost every rank 32 page faults at finalize. */
    uint32_t used = (next_index + RCH_TYPE_CHUNK - 1) >> RCH_TYPE_CHUNK_BITS;
    for (uint32_t c = 0; c < used; c++) {
        if (!chunks[c])
            continue;
        for (uint32_t i = 0; i < RCH_TYPE_CHUNK; i++) {
            struct rch_mpi_type_obj *o = chunks[c][i];
            if (o)
                o->ntypes = 0;
        }
    }
    for (uint32_t c = 0; c < used; c++) {
        if (!chunks[c])
            continue;
        for (uint32_t i = 0; i < RCH_TYPE_CHUNK; i++) {
            if (chunks[c][i])
                rch_mpi_type_obj_destroy(chunks[c][i]);
        }
        free(chunks[c]);
        chunks[c] = NULL;
    }
    free(free_list);
    free_list = NULL;
    nfree = cap_free = 0;
    next_index = 0;
}
