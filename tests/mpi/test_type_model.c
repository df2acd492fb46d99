/* Reference model of type maps for the datatype tests (see test_type_model.h). */
#include <stdlib.h>
#include <string.h>
#include "test_type_model.h"

static void push(struct model *m, long disp, int size)
{
    m->e = realloc(m->e, (size_t)(m->n + 1) * sizeof(*m->e));
    if (!m->e)
        abort();
    m->e[m->n].disp = disp;
    m->e[m->n].size = size;
    m->n++;
}

void model_predef(struct model *m, int nparts, const long *offs, const int *sizes, long extent, long align)
{
    memset(m, 0, sizeof(*m));
    for (int i = 0; i < nparts; i++)
        push(m, offs[i], sizes[i]);
    m->lb = 0;
    m->ub = extent;
    m->align = align;
}

void model_basic(struct model *m, int size)
{
    long off = 0;
    model_predef(m, 1, &off, &size, size, size);
}

void model_marker(struct model *m, int is_ub)
{
    memset(m, 0, sizeof(*m));
    m->marker = 1;
    m->sticky_lb = !is_ub;
    m->sticky_ub = is_ub;
}

void model_free(struct model *m)
{
    free(m->e);
    memset(m, 0, sizeof(*m));
}

long model_size(const struct model *m)
{
    long s = 0;
    for (int i = 0; i < m->n; i++)
        s += m->e[i].size;
    return s;
}

long model_true_lb(const struct model *m)
{
    long lo = 0;
    int first = 1;
    for (int i = 0; i < m->n; i++) {
        if (m->e[i].size > 0 && (first || m->e[i].disp < lo)) {
            lo = m->e[i].disp;
            first = 0;
        }
    }
    return lo;
}

long model_true_ub(const struct model *m)
{
    long hi = 0;
    int first = 1;
    for (int i = 0; i < m->n; i++) {
        if (m->e[i].size > 0 && (first || m->e[i].disp + m->e[i].size > hi)) {
            hi = m->e[i].disp + m->e[i].size;
            first = 0;
        }
    }
    return hi;
}

/* Typemap of a struct: each copy j of child i contributes the child's
 * entries shifted by disp[i] + j * extent(child). Bounds: explicit markers
 * win (lowest lb marker, highest ub marker); otherwise the copies' bounds. */
void model_struct(struct model *m, int count, const int *bl, const long *disp, struct model *const *child,
                  int is_struct, int pad)
{
    struct model r;
    int have = 0, have_slb = 0, have_sub = 0;
    long lb = 0, ub = 0, slb = 0, sub = 0;

    memset(&r, 0, sizeof(r));
    for (int i = 0; i < count; i++) {
        const struct model *c = child[i];
        long ext = model_extent(c);
        for (int j = 0; j < bl[i]; j++) {
            long base = disp[i] + (long)j * ext;
            long clb = base + c->lb, cub = base + c->ub;
            for (int k = 0; k < c->n; k++)
                push(&r, base + c->e[k].disp, c->e[k].size);
            if (c->sticky_lb && (!have_slb || clb < slb)) {
                slb = clb;
                have_slb = 1;
            }
            if (c->sticky_ub && (!have_sub || cub > sub)) {
                sub = cub;
                have_sub = 1;
            }
            if (c->marker || (!is_struct && model_size(c) == 0 && !c->sticky_lb && !c->sticky_ub))
                continue;
            if (!have || clb < lb)
                lb = clb;
            if (!have || cub > ub)
                ub = cub;
            have = 1;
            if (c->align > r.align)
                r.align = c->align;
        }
    }
    r.lb = have_slb ? slb : lb;
    r.ub = have_sub ? sub : ub;
    r.sticky_lb = have_slb;
    r.sticky_ub = have_sub;
    if (pad && !have_slb && !have_sub && r.align > 1 && r.ub - r.lb > 0) {
        long eps = (r.ub - r.lb) % r.align;
        if (eps)
            r.ub += r.align - eps;
    }
    *m = r;
}

void model_contiguous(struct model *m, int count, const struct model *c)
{
    long disp = 0;
    struct model *cc = (struct model *)c;
    model_struct(m, 1, &count, &disp, &cc, 0, 0);
}

void model_hvector(struct model *m, int count, int bl, long stride_bytes, const struct model *c)
{
    int *bls = malloc((size_t)(count + 1) * sizeof(int));
    long *disps = malloc((size_t)(count + 1) * sizeof(long));
    struct model **cs = malloc((size_t)(count + 1) * sizeof(*cs));
    for (int i = 0; i < count; i++) {
        bls[i] = bl;
        disps[i] = (long)i * stride_bytes;
        cs[i] = (struct model *)c;
    }
    model_struct(m, count, bls, disps, cs, 0, 0);
    free(bls);
    free(disps);
    free(cs);
}

void model_hindexed(struct model *m, int count, const int *bl, const long *disp_bytes, const struct model *c)
{
    struct model **cs = malloc((size_t)(count + 1) * sizeof(*cs));
    for (int i = 0; i < count; i++)
        cs[i] = (struct model *)c;
    model_struct(m, count, bl, disp_bytes, cs, 0, 0);
    free(cs);
}

void model_resized(struct model *m, const struct model *c, long lb, long extent)
{
    memset(m, 0, sizeof(*m));
    for (int k = 0; k < c->n; k++)
        push(m, c->e[k].disp, c->e[k].size);
    m->lb = lb;
    m->ub = lb + extent;
    m->sticky_lb = m->sticky_ub = 1;
    m->align = c->align;
}

void model_pack(const struct model *m, const unsigned char *base, int count, unsigned char *out)
{
    long ext = model_extent(m);
    for (int i = 0; i < count; i++)
        for (int k = 0; k < m->n; k++) {
            memcpy(out, base + (long)i * ext + m->e[k].disp, (size_t)m->e[k].size);
            out += m->e[k].size;
        }
}

void model_unpack(const struct model *m, const unsigned char *in, long bytes, unsigned char *base, int count)
{
    long ext = model_extent(m);
    for (int i = 0; i < count && bytes > 0; i++)
        for (int k = 0; k < m->n && bytes > 0; k++) {
            long len = m->e[k].size < bytes ? m->e[k].size : bytes;
            memcpy(base + (long)i * ext + m->e[k].disp, in, (size_t)len);
            in += len;
            bytes -= len;
        }
}

long model_elements(const struct model *m, long bytes)
{
    long n = 0;
    if (model_size(m) == 0)
        return 0;
    while (bytes > 0) {
        for (int k = 0; k < m->n && bytes > 0; k++) {
            if (m->e[k].size == 0)
                continue;
            if (bytes < m->e[k].size)
                return MPI_UNDEFINED;
            bytes -= m->e[k].size;
            n++;
        }
    }
    return n;
}

void model_span(const struct model *m, int count, long *lo, long *hi)
{
    long ext = model_extent(m);
    int first = 1;
    *lo = *hi = 0;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < m->n; k++) {
            long a = (long)i * ext + m->e[k].disp, b = a + m->e[k].size;
            if (first || a < *lo)
                *lo = a;
            if (first || b > *hi)
                *hi = b;
            first = 0;
        }
}
