/*
 * Private to the datatype engine (src/mpi/type_*.c). The rest of src/mpi sees
 * only struct rch_mpi_type and the rch_mpi_type_* functions of mpi_impl.h.
 *
 * Representation. Every type, predefined or derived, is one
 * struct rch_mpi_type_obj whose first member is the public view. A type's
 * type map is kept flattened in two forms, both in type-map order (the order
 * MPI packs in, which is not address order: a struct may list its fields
 * backwards, a vector may have a negative stride):
 *   - blocks: (offset, length) byte ranges, adjacent ranges merged, for
 *     copying (pack/unpack and sending in place);
 *   - runs:   (basic type, count) runs of the basic elements, for
 *     MPI_Get_elements on a partial message (and Type_match_size style
 *     questions); a homogeneous type has one run.
 * Both are built when the type is constructed, not at commit, because
 * constructors may take uncommitted types and need their maps; commit only
 * validates and freezes. A derived type does not point at the types it was
 * built from, except through its construction record (get_contents), which
 * holds a reference on them.
 *
 * Handles (MPICH's encoding: kind in bits 30-31, object 3 in bits 26-29):
 *   0x4c0000xx  built-in: index xx = low byte, size in bits 8-15;
 *   0x8c000000 + 0..4   MPICH's "direct" pair types MPI_FLOAT_INT .. MPI_LONG_DOUBLE_INT;
 *   0x8c000000 + 8 + i  derived type i of our table: "direct" like every object
 *               the library creates (as MPICH does), above the pair slots.
 *
 * Lifetime: a derived object lives while its refcount is positive: one
 * reference for the user's handle, one per pending operation holding it
 * (rch_mpi_type_retain/release), one per derived type whose construction
 * record names it. The handle stays valid exactly as long as the object.
 */
#ifndef RCH_MPI_TYPE_IMPL_H
#define RCH_MPI_TYPE_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "mpi/mpi_impl.h"

#define RCH_MPI_TYPE_KIND_BUILTIN 0x4cu    /* top byte of a built-in handle */
#define RCH_MPI_TYPE_KIND_DIRECT  0x8cu    /* top byte of pair and derived handles */
#define RCH_MPI_TYPE_NPAIR        5        /* MPI_FLOAT_INT .. MPI_LONG_DOUBLE_INT */
#define RCH_MPI_TYPE_FIRST_DERIVED 8       /* low bits of the first derived handle */
#define RCH_MPI_TYPE_MAX_DERIVED  ((1u << 24) - RCH_MPI_TYPE_FIRST_DERIVED)
#define RCH_MPI_TYPE_PERIOD_MAX   8        /* blocks of a map moved column-wise (type_pack.c) */
#define RCH_MPI_TYPE_COLP_MAX     16       /* longest column period (type_period.c) */
_Static_assert(RCH_MPI_TYPE_PERIOD_MAX <= RCH_MPI_TYPE_COLP_MAX, "type_pack.c's columns hold either");
#define RCH_MPI_TYPE_COLP_MIN_REPS 64      /* whole periods a map needs to have one */

/* `count` consecutive basic elements of one predefined type, `esize` bytes each. */
struct rch_mpi_type_run {
    MPI_Datatype type;
    uint32_t esize;
    size_t count;
};

struct rch_mpi_type_obj {
    struct rch_mpi_type t;        /* must stay first: rch_mpi_type_get hands out &obj->t */
    int sticky_lb, sticky_ub;     /* bounds set explicitly (MPI_LB/MPI_UB markers, resized) */
    int marker;                   /* this is MPI_LB or MPI_UB itself */
    int permanent;                /* MPI_Type_free refuses it (the F90 types, type_f90.c) */
    int urefs;                    /* the user's handles to it: 1 at creation, 1 more per MPI_Type_get_contents
                                   * that returns it; MPI_Type_free takes one, refused at 0 (a copy of a freed
                                   * handle must not drop a pending operation's reference) */
    struct rch_mpi_attr *attrs;        /* attributes (type_attr.c), not copied with the object */
    MPI_Aint align;               /* alignment of the most aligned basic part (struct padding) */
    int nruns;
    struct rch_mpi_type_run *runs;
    size_t nelems;                /* basic elements in one element: sum of runs[].count */
    /* Regular map (most vectors): blocks rhead .. nblocks-rtail-1, at least
     * 2, have one length, each rstride after the previous; pack/unpack then
     * need not read blocks[] but for a different first block (rhead 1) and
     * last one (rtail 1), as a contiguous type of {int; double} has once
     * its adjacent double and int are merged. */
    int regular, rhead, rtail;
    MPI_Aint rstride;
    /* Periodic map (a contiguous or vector type of a small struct): blocks
     * k and k + period have one length, pstride bytes apart, for every k;
     * period in 2..RCH_MPI_TYPE_PERIOD_MAX dividing nblocks, 0 if none. */
    int period;
    MPI_Aint pstride;
    /* Column period (type_period.c): one element's blocks, sorted and
     * disjoint, repeat every colp (2..RCH_MPI_TYPE_COLP_MAX) blocks,
     * colp_stride bytes on, for at least RCH_MPI_TYPE_COLP_MIN_REPS whole
     * periods; the fewer than colp blocks after them (a pattern cut short)
     * may differ. 0 if none; found with the map (rch_mpi_type_find_colp). */
    int colp;
    MPI_Aint colp_stride;
    /* Construction record, for MPI_Type_get_envelope/get_contents. Derived
     * types in types[] are retained by this object. A type made by a
     * large-count (_c) constructor records that call (MPI-4.1 5.1.13): its
     * counts and displacements in large[] (nlarge > 0), which only the _c
     * decoders return (rch_mpi_type_record_c, type_large.c). */
    int combiner;
    int nints, naints, ntypes;
    MPI_Count nlarge;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *large;
    MPI_Datatype *types;
    /* A contiguous type of large_n > INT_MAX elements of large_base
     * (type_large.c), large_n 0 for every other type; large_internal: made
     * by the library for a _c call's buffer, not by the user. */
    MPI_Datatype large_base;
    MPI_Count large_n;
    int large_internal;
    /* Storage of a predefined type's map (derived types allocate theirs). */
    struct rch_mpi_type_block one_block;
    struct rch_mpi_type_run one_run;
};

static inline struct rch_mpi_type_obj *rch_mpi_type_obj_of(const struct rch_mpi_type *t)
{
    return (struct rch_mpi_type_obj *)t;
}
static inline struct rch_mpi_type_obj *rch_mpi_type_lookup(MPI_Datatype dt)
{
    struct rch_mpi_type *t = rch_mpi_type_get(dt);
    return t ? rch_mpi_type_obj_of(t) : NULL;
}

/* ---- predefined types (type_predef.c) ---- */
struct rch_mpi_type_obj *rch_mpi_type_predef(MPI_Datatype dt);   /* NULL if not predefined */
/* Human-readable name of a handle for error messages: "MPI_INT",
 * "MPI_DATATYPE_NULL", "derived datatype 0x8c000009 'halo'", "0x1234". */
const char *rch_mpi_type_describe(MPI_Datatype dt, char *buf, size_t len);

/* ---- derived-type table (type_table.c) ---- */
void rch_mpi_type_table_init(void);
void rch_mpi_type_table_finalize(void);                  /* frees every derived type */
struct rch_mpi_type_obj *rch_mpi_type_derived(MPI_Datatype dt);   /* NULL if invalid */
/* Give o a handle (o->t.handle) and a refcount of 1. MPI_SUCCESS or MPI_ERR_OTHER (table full/no memory). */
int rch_mpi_type_register(struct rch_mpi_type_obj *o);

/* ---- objects and the type-map builder (type_build.c) ---- */
struct rch_mpi_type_obj *rch_mpi_type_obj_alloc(void);
void rch_mpi_type_obj_destroy(struct rch_mpi_type_obj *o);  /* frees maps and record; releases record's types */
/* A derived copy of o (maps copied; uncommitted, unnamed, no record). NULL if out of memory. */
struct rch_mpi_type_obj *rch_mpi_type_obj_copy(const struct rch_mpi_type_obj *o);
/* Record how o was made; retains derived types in types[]. MPI_SUCCESS or MPI_ERR_OTHER. */
int rch_mpi_type_set_contents(struct rch_mpi_type_obj *o, int combiner, int nints, const int *ints,
                              int naints, const MPI_Aint *aints, int ntypes, const MPI_Datatype *types);
/* Recompute t.contig and the regular-map shortcut from the map and bounds. */
void rch_mpi_type_update_contig(struct rch_mpi_type_obj *o);

/* ---- column periods (type_period.c) ---- */
/* Set o->colp and o->colp_stride from o's map (o->regular already set). */
void rch_mpi_type_find_colp(struct rch_mpi_type_obj *o);
/* Are blocks [0, nb) non-empty, ascending and disjoint? */
int rch_mpi_type_blocks_disjoint(const struct rch_mpi_type_block *b, int nb);

/*
 * Builder: every constructor is a sequence of entries "blocklen copies of
 * child, laid end to end by the child's extent, starting at byte disp", the
 * general form of MPI_Type_create_struct. begin, add each entry in type-map
 * order, end. Failures (out of memory, address overflow, a map too big) are
 * remembered and reported by end, so callers add without checking.
 */
struct rch_mpi_type_builder {
    struct rch_mpi_type_obj *o;
    int cap_blocks, cap_runs;
    int have_bounds, have_data, have_slb, have_sub, have_basic;
    int bound_by_empty;           /* empty children still bound the type (struct, as MPICH) */
    MPI_Aint lb, ub, true_lb, true_ub, slb, sub;
    int err;                      /* MPI error class of the first failure, MPI_SUCCESS if none */
    const char *why;              /* what failed, for the message */
};
void rch_mpi_type_build_begin(struct rch_mpi_type_builder *b);
void rch_mpi_type_build_add(struct rch_mpi_type_builder *b, MPI_Aint disp, MPI_Aint blocklen,
                            const struct rch_mpi_type_obj *child);
/* count entries (i * stride, blocklen, child): the vector constructors' map,
 * built in bulk (the same result as count build_add calls). */
void rch_mpi_type_build_add_vector(struct rch_mpi_type_builder *b, MPI_Aint count, MPI_Aint blocklen,
                                   MPI_Aint stride, const struct rch_mpi_type_obj *child);
/* Finish: bounds, sticky markers, struct padding (pad_to_align, for
 * Type_create_struct only, as MPICH does), contiguity. Returns the new
 * uncommitted object, or NULL with b->err/b->why set (nothing leaks). */
struct rch_mpi_type_obj *rch_mpi_type_build_end(struct rch_mpi_type_builder *b, int pad_to_align);

/* ---- array types (type_array.c) ----
 * MPI_Type_create_subarray and _darray with the sizes as MPI_Counts, for
 * the int and the _c forms (fn names the call in messages). The new type's
 * record is the int form's call when nints > 0 (ints as MPI_Type_get_contents
 * returns them, oldtype), else none: the _c form sets its own
 * (rch_mpi_type_record_c). Takes the library lock. */
int rch_mpi_type_subarray(const char *fn, int ndims, const MPI_Count array_of_sizes[],
                          const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[], int order,
                          MPI_Datatype oldtype, MPI_Datatype *newtype, int nints, const int *ints);
int rch_mpi_type_darray(const char *fn, int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                        const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                        int order, MPI_Datatype oldtype, MPI_Datatype *newtype, int nints, const int *ints);

/* ---- attributes (type_attr.c) ---- */
/* MPI_Type_dup: the copy callbacks of from's attributes onto to. */
int rch_mpi_type_attr_copy(const char *fn, struct rch_mpi_type_obj *from, struct rch_mpi_type_obj *to);
/* MPI_Type_free: every delete callback; stops at (and reports) a failing one. */
int rch_mpi_type_attr_delete_all(const char *fn, struct rch_mpi_type_obj *o);
/* Free the attribute list without callbacks (the object is going away). */
void rch_mpi_type_attr_drop(struct rch_mpi_type_obj *o);

/* ---- argument checks shared by the MPI_Type_* entry points ---- */
/* The object of dt, or NULL after reporting MPI_ERR_TYPE "fn: invalid datatype X in argument arg". */
struct rch_mpi_type_obj *rch_mpi_type_arg(const char *fn, const char *arg, MPI_Datatype dt, int *err);

/* Handle of a finished constructor: set the record, register, store in
 * *newtype. Frees o and reports on failure. Returns the MPI error code. */
int rch_mpi_type_publish(const char *fn, struct rch_mpi_type_obj *o, MPI_Datatype *newtype,
                         int combiner, int nints, const int *ints, int naints, const MPI_Aint *aints,
                         int ntypes, const MPI_Datatype *types);

#endif
