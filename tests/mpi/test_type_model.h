/*
 * A reference model of MPI type maps for the datatype tests: a type is the
 * fully expanded list of its basic elements (displacement, size) in
 * type-map order, plus its bounds. Constructors are written from the
 * standard's definitions (MPI-3.1 4.1.2-4.1.7), element by element, with no
 * blocks, merging or fast paths, so the engine's flattened, merged maps and
 * its pack/unpack/element counting can be checked against it.
 */
#ifndef TEST_TYPE_MODEL_H
#define TEST_TYPE_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

struct model_ent {
    long disp;
    int size;
};

struct model {
    struct model_ent *e;
    int n;
    long lb, ub;          /* ub - lb = extent */
    int sticky_lb, sticky_ub;
    long align;
    int marker;           /* MPI_LB / MPI_UB */
};

/* A predefined type of `nparts` basic elements of part_size bytes at the
 * given offsets, with extent `extent` and alignment `align`. */
void model_predef(struct model *m, int nparts, const long *offs, const int *sizes, long extent, long align);
void model_basic(struct model *m, int size);               /* MPI_CHAR, MPI_INT, MPI_DOUBLE ... */
void model_marker(struct model *m, int is_ub);             /* MPI_LB / MPI_UB */
void model_free(struct model *m);

/* The general constructor: entries (disp[i] bytes, bl[i] copies of *child[i]).
 * is_struct: MPI_Type_create_struct (empty children still bound it); pad:
 * round the extent up to the alignment (struct of mixed types). */
void model_struct(struct model *m, int count, const int *bl, const long *disp, struct model *const *child,
                  int is_struct, int pad);
void model_contiguous(struct model *m, int count, const struct model *c);
void model_hvector(struct model *m, int count, int bl, long stride_bytes, const struct model *c);
void model_hindexed(struct model *m, int count, const int *bl, const long *disp_bytes, const struct model *c);
void model_resized(struct model *m, const struct model *c, long lb, long extent);

long model_size(const struct model *m);
long model_true_lb(const struct model *m);
long model_true_ub(const struct model *m);
static inline long model_extent(const struct model *m) { return m->ub - m->lb; }

/* The bytes `count` elements at `base` pack to, in order. out holds count*size. */
void model_pack(const struct model *m, const unsigned char *base, int count, unsigned char *out);
/* Scatter `bytes` packed bytes into `count` elements at base (in order, so later entries win). */
void model_unpack(const struct model *m, const unsigned char *in, long bytes, unsigned char *base, int count);
/* Basic elements in `bytes` of data, or MPI_UNDEFINED. */
long model_elements(const struct model *m, long bytes);
/* Lowest and one-past-highest byte offsets touched by `count` elements. */
void model_span(const struct model *m, int count, long *lo, long *hi);

#endif
