/*
 * Staging of datatype buffers for src/coll (see coll_bind.h): contiguous
 * types are used in place, others are packed into / unpacked from a
 * temporary buffer.
 */
#include <limits.h>
#include <stdlib.h>
#include "mpi/coll_bind.h"

void rch_mpi_pack_n(const void *in, size_t count, const struct rch_mpi_type *t, void *out)
{
    const char *src = in;
    char *dst = out;
    while (count > 0) {
        int n = count > (size_t)INT_MAX ? INT_MAX : (int)count;
        rch_mpi_type_pack(src, n, t, dst);
        src += (MPI_Aint)n * t->extent;
        dst += (size_t)n * t->size;
        count -= (size_t)n;
    }
}

void rch_mpi_unpack_n(const void *in, void *out, size_t count, const struct rch_mpi_type *t)
{
    const char *src = in;
    char *dst = out;
    while (count > 0) {
        int n = count > (size_t)INT_MAX ? INT_MAX : (int)count;
        rch_mpi_type_unpack(src, (size_t)n * t->size, dst, n, t);
        src += (size_t)n * t->size;
        dst += (MPI_Aint)n * t->extent;
        count -= (size_t)n;
    }
}

int rch_mpi_stage_out(const char *fn, struct rch_mpi_comm *c, void *buf, size_t count,
                      const struct rch_mpi_type *t, struct rch_mpi_stage *s)
{
    size_t bytes = count * t->size;
    *s = (struct rch_mpi_stage){ 0 };
    if (bytes == 0) {
        s->ptr = buf;
        return MPI_SUCCESS;
    }
    if (t->contig) {
        s->ptr = (char *)buf + t->true_lb;
        return MPI_SUCCESS;
    }
    s->tmp = malloc(bytes);
    if (!s->tmp)
        return rch_mpi_coll_nomem(fn, c, bytes);
    s->ptr = s->tmp;
    return MPI_SUCCESS;
}

int rch_mpi_stage_in(const char *fn, struct rch_mpi_comm *c, const void *buf, size_t count,
                     const struct rch_mpi_type *t, struct rch_mpi_stage *s)
{
    int err = rch_mpi_stage_out(fn, c, (void *)buf, count, t, s);
    if (err == MPI_SUCCESS && s->tmp) {
        rch_mpi_pack_n(buf, count, t, s->tmp);
        s->src = buf;
        s->count = count;
        s->t = t;
    }
    return err;
}

void rch_mpi_stage_done(struct rch_mpi_stage *s, void *buf, size_t count, const struct rch_mpi_type *t)
{
    if (s->tmp)
        rch_mpi_unpack_n(s->tmp, buf, count, t);
    rch_mpi_stage_free(s);
}

void rch_mpi_stage_free(struct rch_mpi_stage *s)
{
    free(s->tmp);
    *s = (struct rch_mpi_stage){ 0 };
}

/* ---- blocks of the v and w variants ---- */

static const struct rch_mpi_type *vtype(const struct rch_mpi_vstage *v, int i)
{
    return v->types ? v->types[i] : v->t;
}

int rch_mpi_vstage_init(const char *fn, struct rch_mpi_comm *c, void *buf, int n, const int *cnt,
                        const int *displs, int unit_is_extent, const struct rch_mpi_type *t,
                        const struct rch_mpi_type *const *types, struct rch_mpi_vstage *v)
{
    int direct = 1;
    size_t total = 0;

    *v = (struct rch_mpi_vstage){ .n = n, .buf = buf, .cnt = cnt, .t = t, .types = types };
    if (n <= RCH_MPI_VSTAGE_INLINE) {
        v->disp = v->disp_inl;
        v->counts = v->counts_inl;
    } else {
        v->disp = malloc((size_t)n * sizeof(*v->disp));
        v->counts = malloc(2 * (size_t)n * sizeof(size_t));
    }
    if (!v->disp || !v->counts) {
        rch_mpi_vstage_free(v);
        return rch_mpi_coll_nomem(fn, c, (size_t)n * (sizeof(MPI_Aint) + 2 * sizeof(size_t)));
    }
    v->offs = v->counts + n;
    for (int i = 0; i < n; i++) {
        const struct rch_mpi_type *ti = vtype(v, i);
        v->disp[i] = (MPI_Aint)displs[i] * (unit_is_extent ? ti->extent : 1);
        v->counts[i] = (size_t)cnt[i] * ti->size;
        total += v->counts[i];
        if (v->counts[i] == 0)
            v->offs[i] = 0;
        else if (ti->contig && v->disp[i] + ti->true_lb >= 0)
            v->offs[i] = (size_t)(v->disp[i] + ti->true_lb);
        else
            direct = 0;
    }
    if (direct) {
        v->base = buf;
        return MPI_SUCCESS;
    }
    v->tmp = malloc(total ? total : 1);
    if (!v->tmp) {
        rch_mpi_vstage_free(v);
        return rch_mpi_coll_nomem(fn, c, total);
    }
    total = 0;
    for (int i = 0; i < n; i++) {
        v->offs[i] = total;
        total += v->counts[i];
    }
    v->base = v->tmp;
    return MPI_SUCCESS;
}

void rch_mpi_vstage_pack(struct rch_mpi_vstage *v, int i)
{
    if (v->tmp && v->counts[i])
        rch_mpi_pack_n(v->buf + v->disp[i], (size_t)v->cnt[i], vtype(v, i),
                       (char *)v->tmp + v->offs[i]);
}

void rch_mpi_vstage_pack_all(struct rch_mpi_vstage *v)
{
    for (int i = 0; v->tmp && i < v->n; i++)
        rch_mpi_vstage_pack(v, i);
}

void rch_mpi_vstage_unpack_all(struct rch_mpi_vstage *v)
{
    for (int i = 0; v->tmp && i < v->n; i++)
        if (v->counts[i])
            rch_mpi_unpack_n((char *)v->tmp + v->offs[i], v->buf + v->disp[i], (size_t)v->cnt[i],
                             vtype(v, i));
}

void rch_mpi_vstage_free(struct rch_mpi_vstage *v)
{
    free(v->tmp);
    if (v->disp != v->disp_inl)
        free(v->disp);
    if (v->counts != v->counts_inl)
        free(v->counts);
    v->tmp = NULL;
    v->disp = NULL;
    v->counts = v->offs = NULL;
}
