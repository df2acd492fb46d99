"""Emit the large-count (_c) entry points derived from mpi_api.txt.

    gen_large.py <mpi_api.txt> <out.c>

For every function marked large=generated, MPI_<Name>_c and PMPI_<Name>_c
take the POLY substitution of MPI_<Name>'s parameters (COUNT -> MPI_Count,
DISP -> MPI_Aint) and call PMPI_<Name>:
  - a count that fits an int is passed as one; the int function validates
    it (a negative count gets its MPI_ERR_COUNT, naming the argument);
  - a <...>count followed by its datatype (a buffer's count) that does not
    fit becomes 1 element of a contiguous type of that many
    (rch_mpi_large_buf): the library moves and reduces it as any derived
    type, so no buffer of more than INT_MAX elements is refused;
  - any other count or displacement (scalar or array) that does not fit
    fails with MPI_ERR_COUNT (MPI_ERR_ARG for a displacement) naming it;
  - out and inout counts go through an int and are widened on success.
The helpers are src/mpi/large.c's. Functions whose _c form needs more than
this (results an int cannot hold, MPI_User_function_c, blocklengths and
v-collective arrays beyond an int) are marked large=defined and written by
hand in src/mpi (docs/ARCHITECTURE.md, "src/binding and Fortran").
"""
import sys

import mpi_api

POLY = ('COUNT', 'DISP')


def length(expr, fn):
    """A len= expression as C in the wrapper, over the _c parameters."""
    for f, c in (('comm_size', 'rch_mpi_large_nprocs({})'),
                 ('remote_size', 'rch_mpi_large_remote_size({})'),
                 ('indegree', 'rch_mpi_large_degree({}, 0)'),
                 ('outdegree', 'rch_mpi_large_degree({}, 1)')):
        if expr.startswith(f + '('):
            return c.format(expr[len(f) + 1:-1])
    if expr.isidentifier() and expr in {p.name for p in fn.params}:
        return f'(MPI_Count){expr}'
    raise mpi_api.DescriptionError(f'{fn.name}: cannot derive len={expr} for its _c form')


def errh(fn):
    """The handle whose error handler reports a conversion's failure."""
    comm = next((p.name for p in fn.params if p.kind == 'COMM' and p.dir == 'in'), None)
    win = next((p.name for p in fn.params if p.kind == 'WIN' and p.dir == 'in'), None)
    return comm or 'MPI_COMM_NULL', win or 'MPI_WIN_NULL'


def wrapper(fn):
    comm, win = errh(fn)
    formals = [f'{t} {p.name}' if not t.endswith('*') else f'{t}{p.name}'
               for p, t in zip(fn.params, fn.c_params(large=True))]
    pre, args, post, cleanup = [], [], [], []
    replaced = set()   # datatypes a buffer's large count replaces (rch_mpi_large_buf)
    names = {p.name for p in fn.params}
    ctx = f'struct rch_mpi_large_ctx ctx = {{ "MPI_{fn.name}_c", {comm}, {win} }};'
    for i, p in enumerate(fn.params):
        n = p.name
        if p.kind not in POLY:
            args.append(n)
            continue
        disp = int(p.kind == 'DISP')
        if p.is_array:
            if p.dir != 'in':
                raise mpi_api.DescriptionError(f'{fn.name}: an output array {n} in a _c form')
            # a rooted collective's arrays mean something at the root only,
            # where they are read (elsewhere they may be anything)
            at_root = ' && rch_mpi_large_at_root(comm, root)' if 'root' in names else ''
            # and the send side's arrays are ignored with MPI_IN_PLACE
            if n in ('sendcounts', 'sdispls') and 'sendbuf' in names:
                at_root += ' && sendbuf != MPI_IN_PLACE'
            pre.append(f'int *{n}_i = NULL;')
            pre.append(f'if (!err{at_root}) err = rch_mpi_large_ints(&ctx, "{n}", {disp}, {n}, '
                       f'{length(p.len, fn)}, &{n}_i);')
            args.append(f'{n}_i')
            cleanup.append(f'free({n}_i);')
            continue
        if p.dir == 'in':
            nxt = fn.params[i + 1] if i + 1 < len(fn.params) else None
            pre.append(f'int {n}_i = 0;')
            if p.kind == 'COUNT' and n.endswith('count') and nxt and nxt.kind == 'DATATYPE' \
                    and nxt.dir == 'in' and not nxt.is_array:
                t = nxt.name
                replaced.add(t)
                pre.append(f'MPI_Datatype {t}_i = {t};')
                pre.append(f'if (!err) err = rch_mpi_large_buf(&ctx, "{n}", {n}, {t}, &{n}_i, &{t}_i);')
                cleanup.append(f'rch_mpi_large_buf_done({t}_i, {t});')
            else:
                pre.append(f'if (!err) err = rch_mpi_large_int(&ctx, "{n}", {disp}, {n}, &{n}_i);')
            args.append(f'{n}_i')
            continue
        pre.append(f'int {n}_i = 0;')
        if p.dir == 'inout':
            pre.append(f'if (!err && {n}) err = rch_mpi_large_int(&ctx, "{n}", {disp}, *{n}, &{n}_i);')
        args.append(f'{n} ? &{n}_i : NULL')
        post.append(f'if (!err && {n}) *{n} = {n}_i;')
    args = [a + '_i' if a in replaced else a for a in args]
    body = ([ctx] if any('&ctx' in l for l in pre) else []) + ['int err = MPI_SUCCESS;'] + pre
    body.append(f'if (!err) err = PMPI_{fn.name}({", ".join(args)});')
    body += post + cleanup + ['return err;']
    name = f'MPI_{fn.name}_c'
    out = [f'int P{name}({", ".join(formals)})', '{']
    out += ['    ' + l for l in body]
    out += ['}', f'#pragma weak {name} = P{name}', '']
    return out


def main(desc, out):
    fns = [f for f in mpi_api.load(desc) if f.large == 'generated' and not f.missing]
    lines = ['/* Generated by src/binding/gen_large.py from mpi_api.txt. Do not edit. */',
             '#include <stdlib.h>', '#include "mpi/large.h"', '']
    for fn in fns:
        if any(p.kind == 'CALLBACK' and p.poly for p in fn.params):
            raise mpi_api.DescriptionError(f'{fn.name}: a _c callback cannot be generated')
        lines += wrapper(fn)
    with open(out, 'w') as f:
        f.write('\n'.join(lines))
    print(f'gen_large.py: {len(fns)} large-count functions')


if __name__ == '__main__':
    main(*sys.argv[1:])
