"""Emit module mpi (`use mpi`) from mpi_api.txt and include/mpi.h.

    gen_f90.py <mpi_api.txt> <include/mpi.h> <out mpi.f90>

The module holds mpif.h's constants and common blocks (gen_mpif.py) and an
explicit interface for every binding gen_f77.py generates, so the compiler
checks the number, type and intent of every argument except the choice
buffers: those accept any type and rank, through gfortran's
`!GCC$ ATTRIBUTES NO_ARG_CHECK` on a `TYPE(*), DIMENSION(*)` dummy (as
MPICH's own module does), and so do the weights arrays, which may be the
scalars MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY. The functions whose C glue is
written by hand (fort_special.c) get their interfaces here too; callbacks are
EXTERNAL dummies, and the predefined callbacks (MPI_COMM_DUP_FN, ...) have
interfaces, so that they can be passed under IMPLICIT NONE.
"""
import sys

import gen_f77
import gen_mpif
import mpi_api

INTENT = {'in': 'intent(in)', 'out': 'intent(out)', 'inout': 'intent(inout)'}
FTYPE = dict({k: 'integer' for k in mpi_api.INT_KINDS | set(mpi_api.HANDLE_KINDS)},
             LOGICAL='logical', AINT='integer(kind=MPI_ADDRESS_KIND)',
             XCOUNT='integer(kind=MPI_COUNT_KIND)', DOUBLE='double precision',
             OFFSET='integer(kind=MPI_OFFSET_KIND)', EXTENT='integer(kind=MPI_ADDRESS_KIND)',
             C_PTR='integer(kind=MPI_ADDRESS_KIND)', STATUS='integer',
             ATTRVAL='integer(kind=MPI_ADDRESS_KIND)',
             EXTRA_STATE='integer(kind=MPI_ADDRESS_KIND)',
             STRING='character(len=*)', STRING_ARRAY='character(len=*)',
             ARGV_ARRAY='character(len=*)')


def array_dims(p):
    """An array dummy's dimensions: MPI_COMM_SPAWN_MULTIPLE's
    ARRAY_OF_ARGV is (COUNT, *), a list of arguments per command (MPI-4.1
    11.8.3), the [][3] of MPI_Group_range_incl (3, *)."""
    if p.kind == 'ARGV_ARRAY':
        return f'({p.len}, *)'
    return f'({p.shape}, *)' if p.shape else '(*)'


def no_ierror(fn):
    """MPI_PCONTROL(LEVEL) alone has no IERROR (MPI-3.1 14.2.4)."""
    return any(p.kind == 'VARARGS' for p in fn.params)


def any_type(p):
    return p.kind == 'BUFFER' or p.fchoice or (p.is_array and p.name in gen_f77.WEIGHTS)


def declaration(p, cptr=False):
    """The dummy argument's declaration lines (cptr: a C_PTR as TYPE(C_PTR))."""
    if p.kind == 'C_PTR' and cptr:
        return [f'        type(c_ptr), {INTENT[p.dir]} :: {p.name}']
    if p.kind == 'CALLBACK':
        return [f'        external :: {p.name}']
    if any_type(p):
        return [f'!GCC$ ATTRIBUTES NO_ARG_CHECK :: {p.name}',
                f'        type(*), dimension(*) :: {p.name}']
    ftype = 'integer' if p.fint else FTYPE[p.kind]
    dims = ''
    if p.kind == 'STATUS':
        dims = '(MPI_STATUS_SIZE, *)' if p.is_array else '(MPI_STATUS_SIZE)'
    elif p.is_array:
        dims = array_dims(p)
    return [f'        {ftype}, {INTENT[p.dir]} :: {p.name}{dims}']


def wrap(line, width=100):
    """A free-form line split with & continuations after commas."""
    out = []
    while len(line) > width:
        cut = line.rfind(', ', 0, width) + 1
        out.append(line[:cut] + ' &')
        line = '          ' + line[cut:].lstrip()
    return out + [line]


def interface(fn, name=None, cptr=False):
    """The interface body of MPI_<Name> (or of name); cptr: its C_PTR
    arguments as TYPE(C_PTR), the _CPTR form."""
    name = name or f'MPI_{fn.name}'
    params = [p for p in fn.params if p.in_fortran]
    names = [p.name for p in params]
    if fn.returns:
        head = f'{FTYPE[fn.returns]} function {name}({", ".join(names)})'
        end = 'end function'
    else:
        ierror = [] if no_ierror(fn) else ['ierror']
        head = f'subroutine {name}({", ".join(names + ierror)})'
        end = 'end subroutine'
    lines = wrap(f'      {head}') + (
        ['        use, intrinsic :: iso_c_binding, only: c_ptr'] if cptr else []) + [
             '        import :: MPI_ADDRESS_KIND, MPI_COUNT_KIND, MPI_OFFSET_KIND, MPI_STATUS_SIZE',
             '        implicit none']
    for p in params:
        lines += declaration(p, cptr)
    if not fn.returns and not no_ierror(fn):
        lines.append('        integer, intent(out) :: ierror')
    lines.append(f'      {end}')
    return lines


def has_cptr(fn):
    """MPI_ALLOC_MEM, MPI_WIN_ALLOCATE(_SHARED), MPI_WIN_SHARED_QUERY: a
    BASEPTR C sets. MPI-3.0 and later give module mpi a TYPE(C_PTR) form of
    each, MPI_<NAME>_CPTR, beside the INTEGER(KIND=MPI_ADDRESS_KIND) one,
    both under the generic MPI_<NAME>."""
    return any(p.kind == 'C_PTR' and p.dir == 'out' and not p.fchoice for p in fn.params)


def cptr_generic(fn):
    """The generic MPI_<NAME> over the address-integer and the C_PTR form
    (gen_f77.py links MPI_<NAME>_CPTR to the same C glue: gfortran passes
    either BASEPTR by reference, the address of a pointer-sized object)."""
    return [f'      interface MPI_{fn.name}'] + interface(fn) + \
        interface(fn, f'MPI_{fn.name}_cptr', cptr=True) + ['      end interface']


def callback_interface(name):
    """The predefined attribute callbacks as procedures: passed as actual
    arguments under IMPLICIT NONE, they need an interface, not EXTERNAL."""
    value = 'integer' if name in ('MPI_NULL_COPY_FN', 'MPI_DUP_FN', 'MPI_NULL_DELETE_FN') \
        else 'integer(kind=MPI_ADDRESS_KIND)'
    if name.endswith('_DELETE_FN'):
        args, values, logicals = 'comm, keyval, attribute_val, extra_state, ierror', \
            'attribute_val, extra_state', ''
    else:
        args, values = ('oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, '
                        'flag, ierror'), 'extra_state, attribute_val_in, attribute_val_out'
        logicals = '        logical :: flag'
    lines = wrap(f'      subroutine {name}({args})') + [
        '        import :: MPI_ADDRESS_KIND',
        '        implicit none',
        '        integer :: ' + ', '.join(a for a in ('comm', 'oldcomm', 'keyval', 'ierror')
                                        if a in args.split(', ')),
        f'        {value} :: {values}']
    return lines + ([logicals] if logicals else []) + ['      end subroutine']


def conversion_fn_null_interface():
    """MPI_CONVERSION_FN_NULL: a procedure, like the attribute callbacks."""
    return wrap('      subroutine MPI_CONVERSION_FN_NULL(userbuf, datatype, count, filebuf, '
                'position, extra_state, ierror)') + [
        '        import :: MPI_ADDRESS_KIND, MPI_OFFSET_KIND',
        '        implicit none',
        '!GCC$ ATTRIBUTES NO_ARG_CHECK :: userbuf, filebuf',
        '        type(*), dimension(*) :: userbuf, filebuf',
        '        integer :: datatype, count, ierror',
        '        integer(kind=MPI_OFFSET_KIND) :: position',
        '        integer(kind=MPI_ADDRESS_KIND) :: extra_state',
        '      end subroutine']


# MPI_Sizeof (Fortran only, not in mpi.h): a generic over every intrinsic
# numeric and logical type and kind gfortran has, any rank (assumed rank).
# These are the module's only procedures with code: mpi_module.o is linked
# into librdmachfort.so (src/binding/CMakeLists.txt).
SIZEOF_TYPES = [('integer', k) for k in (1, 2, 4, 8)] + [('real', k) for k in (4, 8, 16)] + \
    [('complex', k) for k in (4, 8, 16)] + [('logical', k) for k in (1, 2, 4, 8)]


def sizeof_name(t, k):
    return f'rdmach_sizeof_{t}{k}'


def sizeof_generic(name=sizeof_name):
    names = [name(t, k) for t, k in SIZEOF_TYPES]
    head = wrap('        module procedure ' + ', '.join(names))
    return ['      interface MPI_Sizeof'] + head + ['      end interface']


def sizeof_character():
    """MPI_SIZEOF of a CHARACTER (default kind): MPICH's module mpi has it;
    the size of one character, what MPI_TYPE_SIZE gives for MPI_CHARACTER
    (module mpi_f08's MPI_Sizeof_character is the same)."""
    return (['      interface MPI_Sizeof', '        module procedure rdmach_sizeof_character',
             '      end interface'],
            ['      subroutine rdmach_sizeof_character(x, size, ierror)',
             '        character, dimension(..), intent(in) :: x',
             '        integer, intent(out) :: size',
             '        integer, intent(out) :: ierror',
             '        ierror = MPI_SUCCESS',
             '        size = storage_size(x) / 8',
             '      end subroutine'])


def sizeof_procedures(name=sizeof_name, optional_ierror=False):
    """optional_ierror: module mpi_f08's, whose IERROR is OPTIONAL."""
    lines = []
    for t, k in SIZEOF_TYPES:
        lines += [f'      subroutine {name(t, k)}(x, size, ierror)',
                  f'        {t}(kind={k}), dimension(..), intent(in) :: x',
                  '        integer, intent(out) :: size']
        if optional_ierror:
            lines += ['        integer, optional, intent(out) :: ierror',
                      '        if (present(ierror)) ierror = MPI_SUCCESS']
        else:
            lines += ['        integer, intent(out) :: ierror',
                      '        ierror = MPI_SUCCESS']
        lines += ['        size = storage_size(x) / 8',
                  '      end subroutine']
    return lines


def main(desc, mpi_h, out):
    # Every bound function: generated by gen_f77.py or written in fort_special.c.
    fns = [f for f in mpi_api.load(desc) if not f.missing and f.fortran not in ('none', 'unbound', 'f08types', 'large')]
    lines = ['! module mpi: rdmach\'s `use mpi`.',
             '! Generated by src/binding/gen_f90.py from mpi_api.txt and include/mpi.h. Do not edit.',
             'module mpi',
             '      implicit none']
    lines += gen_mpif.declarations(mpi_h)
    lines.append('      interface')
    for fn in fns:
        if not has_cptr(fn):
            lines += interface(fn)
        if fn.returns:
            # a function needs its type declared under IMPLICIT NONE: the
            # profiling names too (mpif.h declares PMPI_WTIME, PMPI_WTICK)
            lines += interface(fn, f'PMPI_{fn.name}')
    for name in gen_mpif.CALLBACK_EXTERNALS:
        lines += callback_interface(name)
    lines += conversion_fn_null_interface()
    lines.append('      end interface')
    for fn in fns:
        if has_cptr(fn):
            lines += cptr_generic(fn)
    char_generic, char_procedure = sizeof_character()
    lines += sizeof_generic() + char_generic
    lines.append('contains')
    lines += sizeof_procedures() + char_procedure
    lines += ['end module mpi', '']
    with open(out, 'w') as f:
        f.write('\n'.join(lines))


if __name__ == '__main__':
    main(*sys.argv[1:])
