/*
 * The column period of a map (struct rch_mpi_type_obj colp): an indexed type
 * built from a pattern (blocks of 1, 2, 3 ints with gaps of 1, 2 ints) repeats
 * a few blocks at a constant stride, usually with its last repetition cut
 * short (the pattern stops where the data ends), which the strict period of
 * rch_mpi_type_update_contig (a divisor of the block count) does not take.
 * Found once, when the map is built, as looking costs a pass over the
 * blocks; used by the datatype engine's column moves (type_pack.c) and the
 * one-sided column walk (win_ops.c).
 */
#include "mpi/type_impl.h"

int rch_mpi_type_blocks_disjoint(const struct rch_mpi_type_block *b, int nb)
{
    for (int i = 0; i < nb; i++)
        if (b[i].len == 0 || (i > 0 && b[i - 1].off + (MPI_Aint)b[i - 1].len > b[i].off))
            return 0;
    return 1;
}

/* The smallest p (2..RCH_MPI_TYPE_COLP_MAX) such that block k and k + p
 * have one length and lie *stride bytes apart for every block of the nb / p
 * whole periods (at least RCH_MPI_TYPE_COLP_MIN_REPS); the fewer than p
 * blocks after them may differ. 0 if none. */
static int find_period(const struct rch_mpi_type_block *b, int nb, MPI_Aint *stride)
{
    for (int p = 2; p <= RCH_MPI_TYPE_COLP_MAX && p * RCH_MPI_TYPE_COLP_MIN_REPS <= nb; p++) {
        int full = nb / p * p, k = p;
        MPI_Aint s = b[p].off - b[0].off;
        while (k < full && b[k].len == b[k - p].len && b[k].off - b[k - p].off == s)
            k++;
        if (k == full) {
            *stride = s;
            return p;
        }
    }
    return 0;
}

void rch_mpi_type_find_colp(struct rch_mpi_type_obj *o)
{
    const struct rch_mpi_type *t = &o->t;
    o->colp = 0;
    o->colp_stride = 0;
    /* a regular map has its own, cheaper shortcut; the column moves need
     * blocks in address order that do not overlap (an unpack writes them in
     * another order than the type map's) */
    if (!o->regular && (o->colp = find_period(t->blocks, t->nblocks, &o->colp_stride)) != 0 &&
        !rch_mpi_type_blocks_disjoint(t->blocks, t->nblocks))
        o->colp = 0;
}
