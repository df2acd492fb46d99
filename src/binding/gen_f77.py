"""Emit the Fortran (mpif.h / use mpi) bindings as C, from mpi_api.txt.

    gen_f77.py <mpi_api.txt> <out.c> <out fort_special_aliases.h>

One C function per described function (not missing, not fortran=special or
none), named pmpi_<name>_ as gfortran calls it, with MPICH's other link
names as weak aliases of it: pmpi_<name>, pmpi_<name>__, PMPI_<NAME>,
mpi_<name>_, mpi_<name>, mpi_<name>__, MPI_<NAME> (a profiler may replace
the mpi_ ones). Each calls PMPI_<Name>, converting by the parameter's kind:

  integers, logicals  passed by reference; LOGICAL in/out as gfortran's
                      convention (.TRUE. is 1, any non-zero reads as true)
  handles             MPI_<Kind>_f2c / _c2f (MPI_Fint handles are C handles;
                      MPI_File, a pointer, goes through MPI_File_f2c's table);
                      the output handle of a nonblocking call (MPI_Comm_idup's
                      newcomm, written at completion) passed through as is
  AINT, XCOUNT, OFFSET, EXTENT  by reference, INTEGER(KIND=MPI_ADDRESS_KIND),
                      (MPI_COUNT_KIND, MPI_OFFSET_KIND): the C types
  BUFFER              MPI_BOTTOM / MPI_IN_PLACE recognised by address
  STATUS              MPI_STATUS(ES)_IGNORE recognised by address, else the
                      INTEGER(MPI_STATUS_SIZE) array is an MPI_Status
  STRING              hidden length (size_t, after the other arguments);
                      in: trailing blanks dropped (and leading ones where
                      marked strip), NUL added; out: copied,
                      blank-padded or truncated to the Fortran length
  weights             MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY by address
  INDEX               counted from 1 in Fortran, from 0 in C (MPI_UNDEFINED
                      stays); converted also when the call returns
                      MPI_ERR_IN_STATUS, which still fills them
  ARGC, ARGV          absent in Fortran (MPI_INIT(IERROR)): NULL to C
  fvalue=             absent in Fortran (MPI_INFO_CREATE_ENV's argc, argv):
                      the given value to C
  fint                MPI-1's default INTEGER where C has MPI_Aint

The helpers these call (rch_f_*) and the common blocks are in fort_runtime.c.
The functions marked fortran=special, and the predefined attribute callbacks
(MPI_COMM_DUP_FN, ...), are written by hand in fort_special.c; their link
names are generated here too, into a header fort_special.c includes (an
alias must be in its target's translation unit).
"""
import sys

import mpi_api

# The predefined attribute callbacks and MPI_CONVERSION_FN_NULL (Fortran
# procedures, mpif.h EXTERNAL), and MPI_F_SYNC_REG:
# name -> the function in fort_special.c that implements it.
CALLBACKS = {
    'comm_null_copy_fn': 'comm_null_copy_fn', 'win_null_copy_fn': 'comm_null_copy_fn',
    'type_null_copy_fn': 'comm_null_copy_fn', 'null_copy_fn': 'comm_null_copy_fn',
    'comm_dup_fn': 'comm_dup_fn', 'win_dup_fn': 'comm_dup_fn', 'type_dup_fn': 'comm_dup_fn',
    'dup_fn': 'dup_fn',
    'comm_null_delete_fn': 'comm_null_delete_fn', 'win_null_delete_fn': 'comm_null_delete_fn',
    'type_null_delete_fn': 'comm_null_delete_fn', 'null_delete_fn': 'comm_null_delete_fn',
    'conversion_fn_null': 'conversion_fn_null',
    # not a callback: MPI_F_SYNC_REG(BUF) of mpif.h and module mpi
    'f_sync_reg': 'f_sync_reg',
}
WEIGHTS = {'weights', 'sourceweights', 'destweights'}
HANDLE_CONV = {k: v[len('MPI_'):] for k, v in mpi_api.HANDLE_KINDS.items()}
HANDLE_CONV['DATATYPE'] = 'Type'


class Emit:
    """The pieces of one wrapper, built parameter by parameter."""

    def __init__(self, fn):
        self.fn = fn
        self.formals = []     # the Fortran-visible C parameters
        self.hidden = []      # string lengths, after all others
        self.pre = []         # statements before the call
        self.args = []        # arguments of the C call
        self.post = []        # statements after a successful call
        self.cleanup = []     # statements always run after the call
        self.allocated = []   # copies the call needs: NULL when out of memory
        self.filled = []      # statements after a call that filled its outputs

    def local(self, ctype, name, init, back):
        """The call writes c_<name> (starting as init); on success the
        Fortran argument gets back (an expression of c_<name>)."""
        self.pre.append(f'{ctype} c_{name} = {init};')
        self.args.append(f'&c_{name}')
        self.post.append(f'*{name} = {back};')

    def copy(self, ctype, name, make):
        """The call gets c_<name>, a malloc'ed copy made by make, freed after."""
        self.pre.append(f'{ctype} *c_{name} = {make};')
        self.allocated.append(f'c_{name}')
        self.args.append(f'c_{name}')
        self.cleanup.append(f'free(c_{name});')


def fortran_len(expr):
    """A len= expression as C in the wrapper: parameters are pointers there."""
    return f'(*{expr})' if expr.isidentifier() and not expr.startswith('MPI_') else expr


def nonblocking(fn):
    """Whether fn starts an operation (returns a request) that may write its
    other outputs only when the operation completes."""
    return any(q.kind == 'REQUEST' and q.dir == 'out' and not q.is_array for q in fn.params)


def emit_param(e, p):
    k, d, n = p.kind, p.dir, p.name
    if p.fvalue is not None:
        e.args.append(p.fvalue)
    elif k in ('ARGC', 'ARGV'):
        e.args.append('NULL')
    elif k == 'BUFFER':
        e.formals.append(f'void *{n}')
        e.args.append(f'rch_f_buffer({n})')
    elif k == 'C_PTR' and p.fchoice:
        e.formals.append(f'void *{n}')
        e.pre.append(f'void *c_{n} = NULL;')
        e.args.append(f'&c_{n}')
    elif k == 'C_PTR':
        e.formals.append(f'MPI_Aint *{n}')
        e.args.append(f'(void *){n}')
    elif k == 'STRING':
        e.formals.append(f'char *{n}')
        e.hidden.append(f'size_t {n}_len')
        if d == 'in':
            e.copy('char', n, f'rch_f_string_in({n}, {n}_len, {int(p.strip)})')
        else:
            e.copy('char', n, f'rch_f_string_buffer({fortran_len(p.len)})')
            # MPI_Info_get(_string): value unchanged when the key is absent (flag false)
            flag = next((q.name for q in e.fn.params if q.kind == 'LOGICAL' and q.dir == 'out'
                         and q.name == 'flag'), None)
            cond = f'if (c_{flag}) ' if flag else ''
            e.post.append(f'{cond}rch_f_string_out({n}, {n}_len, c_{n});')
    elif k == 'STATUS':
        e.formals.append(f'MPI_Fint *{n}')
        if p.is_array:
            e.args.append(f'rch_f_statuses({n})')
        elif d == 'in':
            e.args.append(f'({"" if p.nonconst else "const "}MPI_Status *){n}')
        else:
            e.args.append(f'rch_f_status({n})')
    elif k in mpi_api.HANDLE_KINDS:
        ctype, conv = mpi_api.HANDLE_KINDS[k], HANDLE_CONV[k]
        e.formals.append(f'MPI_Fint *{n}')
        if p.is_array:   # same representation (fort_runtime.c asserts it)
            const = 'const ' if d == 'in' and not p.nonconst else ''
            e.args.append(f'({const}{ctype} *){n}')
        elif d == 'in':
            e.args.append(f'MPI_{conv}_f2c(*{n})')
        elif k != 'FILE' and nonblocking(e.fn):
            # written when the operation completes (MPI_COMM_IDUP's NEWCOMM,
            # ASYNCHRONOUS in mpi_f08), after this wrapper has returned: C
            # gets the program's variable itself, an MPI_Fint handle being
            # the C handle (fort_runtime.c), never a copy on this stack
            e.args.append(f'({ctype} *){n}')
        else:
            e.local(ctype, n, f'MPI_{conv}_f2c(*{n})', f'MPI_{conv}_c2f(c_{n})')
    elif k == 'LOGICAL':
        e.formals.append(f'MPI_Fint *{n}')
        if p.is_array:   # gfortran's .TRUE. is 1, C's true is 1
            e.args.append(f'{"(const int *)" if d == "in" else ""}{n}')
        elif d == 'in':
            e.args.append(f'(*{n} != 0)')
        else:
            e.local('int', n, f'*{n} != 0', f'c_{n} ? 1 : 0')
    elif k == 'INDEX':
        e.formals.append(f'MPI_Fint *{n}')
        e.args.append(n)
        if p.is_array:
            e.filled.append(f'rch_f_indices_to_fortran({n}, *{p.filled});')
        else:
            e.filled.append(f'rch_f_indices_to_fortran({n}, 1);')
    elif k in mpi_api.INT_KINDS:
        e.formals.append(f'MPI_Fint *{n}')
        if p.is_array and n in WEIGHTS:
            e.args.append(f'rch_f_weights({n})')
        elif p.is_array and p.shape:
            e.args.append(f'(int (*)[{p.shape}]){n}')
        else:
            e.args.append(n if p.is_array or d != 'in' else f'*{n}')
    elif k == 'AINT' and p.fint:
        e.formals.append(f'MPI_Fint *{n}')
        if p.is_array:
            e.copy('MPI_Aint', n, f'rch_f_aint_array({n}, {fortran_len(p.len)})')
        elif d == 'in':
            e.args.append(f'(MPI_Aint)*{n}')
        else:
            e.local('MPI_Aint', n, f'*{n}', f'(MPI_Fint)c_{n}')
    elif k in ('AINT', 'XCOUNT', 'OFFSET', 'EXTENT'):
        ctype = mpi_api.SCALAR_C[k]
        e.formals.append(f'{ctype} *{n}')
        e.args.append(n if p.is_array or d != 'in' else f'*{n}')
    else:
        raise mpi_api.DescriptionError(f'{e.fn.name}: no Fortran conversion for {n} ({k})')


def link_names(name):
    low, up = name.lower(), name.upper()
    return ([f'pmpi_{low}', f'pmpi_{low}__', f'PMPI_{up}'],
            [f'mpi_{low}_', f'mpi_{low}', f'mpi_{low}__', f'MPI_{up}'])


def aliases(name, target):
    """Weak aliases under every link name of name, of pmpi_<target>_."""
    pnames, mnames = link_names(name)
    names = pnames + mnames
    if name.lower() != target.lower():
        names.append(f'pmpi_{name.lower()}_')
    # Declared under another C identifier, the link name given by an asm
    # label: MPI_COMM_DUP_FN and the like are macros of mpi.h.
    return [f'RCH_F_PUBLIC extern __typeof__(pmpi_{target}_) rch_f_alias_{alias} '
            f'__asm__("{alias}") __attribute__((weak, alias("pmpi_{target}_")));'
            for alias in names]


def special_aliases(fns):
    lines = ['/* Generated by src/binding/gen_f77.py from mpi_api.txt. Do not edit. */']
    for fn in fns:
        if not fn.missing and fn.fortran == 'special':
            lines += aliases(fn.name, fn.name.lower())
    for name, target in CALLBACKS.items():
        lines += aliases(name, target)
        if name[:4] in ('comm', 'type', 'win_', 'conv'):
            # MPICH's mpi_f08 has them as procedures of its module
            # mpi_f08_callbacks, with the arguments of the mpif.h ones.
            lines.append(f'RCH_F_PUBLIC extern __typeof__(pmpi_{target}_) rch_f08_alias_{name} '
                         f'__asm__("__mpi_f08_callbacks_MOD_mpi_{name}") '
                         f'__attribute__((weak, alias("pmpi_{target}_")));')
    return '\n'.join(lines) + '\n'


def wrapper(fn):
    e = Emit(fn)
    for p in fn.params:
        emit_param(e, p)
    low = fn.name.lower()
    call = f'PMPI_{fn.name}({", ".join(e.args)})'
    out = []
    if fn.returns:
        ctype = mpi_api.SCALAR_C[fn.returns]
        formals = ', '.join(e.formals) or 'void'
        out.append(f'RCH_F_PUBLIC {ctype} pmpi_{low}_({formals})\n{{\n    return {call};\n}}')
    else:
        formals = ', '.join(e.formals + ['MPI_Fint *ierror'] + e.hidden)
        body = [f'    {s}' for s in e.pre]
        if e.allocated:
            ok = ' && '.join(e.allocated)
            body.append(f'    int err = {ok} ? {call}')
            body.append(f'                  : rch_f_nomem("MPI_{fn.name}");')
        else:
            body.append(f'    int err = {call};')
        if e.post:
            body.append('    if (err == MPI_SUCCESS) {')
            body += [f'        {s}' for s in e.post]
            body.append('    }')
        if e.filled:
            body.append('    if (err == MPI_SUCCESS || err == MPI_ERR_IN_STATUS) {')
            body += [f'        {s}' for s in e.filled]
            body.append('    }')
        body.append('    *ierror = err;')
        body += [f'    {s}' for s in e.cleanup]
        out.append(f'RCH_F_PUBLIC void pmpi_{low}_({formals})\n{{\n' + '\n'.join(body) + '\n}')
    out += aliases(fn.name, low)
    if any(p.kind == 'C_PTR' and p.dir == 'out' and not p.fchoice for p in fn.params):
        # MPI_ALLOC_MEM_CPTR and the like (module mpi's TYPE(C_PTR) forms,
        # gen_f90.cptr_generic): the same glue, BASEPTR being by reference
        out += aliases(fn.name + '_cptr', low)
    return '\n'.join(out)


def generated(fns):
    """The functions this generator binds."""
    return [f for f in fns if not f.missing and f.fortran == 'generated']


def main(desc, out, special_out):
    described = mpi_api.load(desc)
    fns = generated(described)
    parts = ['/* Generated by src/binding/gen_f77.py from mpi_api.txt. Do not edit. */',
             '#include "binding/fort_runtime.h"', '']
    for fn in fns:
        parts.append(wrapper(fn))
        parts.append('')
    with open(out, 'w') as f:
        f.write('\n'.join(parts))
    with open(special_out, 'w') as f:
        f.write(special_aliases(described))
    print(f'gen_f77.py: {len(fns)} Fortran bindings')


if __name__ == '__main__':
    main(*sys.argv[1:])
