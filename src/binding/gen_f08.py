"""Emit module mpi_f08 (`use mpi_f08`, MPI-3.1 chapter 17) from mpi_api.txt and include/mpi.h.

    gen_f08.py <mpi_api.txt> <include/mpi.h> <out mpi_f08.f90>

One Fortran file with two modules and the procedures:

  mpi_f08_types  the handle types (TYPE(MPI_Comm), ... each a BIND(C) type
                 holding INTEGER :: MPI_VAL, the mpif.h handle), TYPE(MPI_Status)
                 laid out as C's MPI_Status, the constants (handles as named
                 constants of their type), == and /= on handles, the
                 sentinels in mpif.h's common blocks (so the mpif.h bindings
                 recognise them by address), the callbacks' abstract
                 interfaces, and the C helpers of fort_f08.c.
  mpi_f08        uses mpi_f08_types and declares, for every function, the
                 generic MPI_<Name> and PMPI_<Name> with the specific external
                 procedures MPI_<Name>_f08 and PMPI_<Name>_f08.
  PMPI_<Name>_f08  external procedures calling the mpif.h binding of
                 gen_f77.py (pmpi_<name>_, the C glue of librdmachfort.so):
                 a TYPE(MPI_Comm) is passed by reference as the INTEGER it
                 holds, a TYPE(MPI_Status) is the C MPI_Status, so every
                 argument but the choice buffers goes through unchanged.
                 IERROR is OPTIONAL.
  MPI_<Name>_f08   call PMPI_<Name>_f08 (a profiler defines its own).

Choice buffers are TYPE(*), DIMENSION(..) (TS 29113): the compiler passes a
C descriptor, and fort_f08.c gives the binding its address. A non-contiguous
array section whose buffer has a count and datatype of its own (MPI_Send's,
MPI_Gather's sendbuf and recvbuf, ...) is sent through a datatype built from
the descriptor's strides, so MPI_SUBARRAYS_SUPPORTED is .TRUE.; buffers
without one (MPI_Alltoallv's, MPI_Reduce's pair, which share one datatype)
must be contiguous (MPI_ERR_BUFFER otherwise, docs/ARCHITECTURE.md).
"""
import re
import sys

import gen_f77
import gen_f90
import gen_mpif
import mpi_api

HANDLE_TYPES = sorted(set(mpi_api.HANDLE_KINDS.values()) | {'MPI_Session'})
ASYNC_FUNCTIONS = {'Put', 'Get', 'Accumulate', 'Get_accumulate', 'Fetch_and_op',
                   'Compare_and_swap', 'Win_create', 'Win_attach', 'Buffer_attach'}
# Fortran-only names module mpi_f08 leaves out: the status is a type with
# these components, not an array they index.
F77_ONLY = {'MPI_SOURCE', 'MPI_TAG', 'MPI_ERROR'}
# The callbacks with an f08 interface: C calls the Fortran procedure with every
# argument by reference, as the mpif.h one (fort_special.c), a handle being
# its INTEGER and TYPE(C_PTR), VALUE a C pointer.
ATTR_HANDLE = {'Comm': 'MPI_Comm', 'Type': 'MPI_Datatype', 'Win': 'MPI_Win'}


def abstract_interfaces():
    lines = ['      abstract interface',
             '      subroutine MPI_User_function(invec, inoutvec, len, datatype)',
             '        import :: c_ptr, MPI_Datatype',
             '        type(c_ptr), value :: invec, inoutvec',
             '        integer :: len',
             '        type(MPI_Datatype) :: datatype',
             '      end subroutine']
    for obj, t in (('Comm', 'MPI_Comm'), ('Win', 'MPI_Win'), ('File', 'MPI_File')):
        lines += [f'      subroutine MPI_{obj}_errhandler_function({obj.lower()}, error_code)',
                  f'        import :: {t}',
                  f'        type({t}) :: {obj.lower()}',
                  '        integer :: error_code',
                  '      end subroutine']
    for obj, t in ATTR_HANDLE.items():
        lines += attr_copy_lines(f'MPI_{obj}_copy_attr_function', t) + \
            attr_delete_lines(f'MPI_{obj}_delete_attr_function', t)
    return lines + ['      end interface']


def attr_copy_lines(name, t):
    return [f'      subroutine {name}(oldobj, keyval, extra_state, attribute_val_in, &',
            '          attribute_val_out, flag, ierror)',
            f'        import :: {t}, MPI_ADDRESS_KIND',
            f'        type({t}) :: oldobj',
            '        integer :: keyval, ierror',
            '        integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out',
            '        logical :: flag',
            '      end subroutine']


def attr_delete_lines(name, t):
    return [f'      subroutine {name}(obj, keyval, attribute_val, extra_state, ierror)',
            f'        import :: {t}, MPI_ADDRESS_KIND',
            f'        type({t}) :: obj',
            '        integer :: keyval, ierror',
            '        integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state',
            '      end subroutine']


def predefined_callbacks():
    """MPI_COMM_DUP_FN and the like: fort_special.c's procedures, whose
    arguments are the f08 ones by reference."""
    lines = ['      interface']
    for obj, t in ATTR_HANDLE.items():
        up = obj.upper()
        lines += attr_copy_lines(f'MPI_{up}_NULL_COPY_FN', t) + \
            attr_copy_lines(f'MPI_{up}_DUP_FN', t) + \
            attr_delete_lines(f'MPI_{up}_NULL_DELETE_FN', t)
    return lines + ['      end interface']


def handle_constants(mpi_h):
    """{name: handle type} for the constants mpi.h casts to a handle type."""
    text = re.sub(r'/\*.*?\*/', '', open(mpi_h).read(), flags=re.S)
    raw = dict(re.findall(r'^#define\s+(MPI_\w+)\s+(.+?)\s*$', text, flags=re.M))
    types = {}
    for name in raw:
        expr, seen = raw[name], 0
        while expr in raw and seen < 8:   # an alias of another name
            expr, seen = raw[expr], seen + 1
        m = re.match(r'\(*\s*\(\s*(MPI_\w+)\s*\)', expr)
        if m and m.group(1) in HANDLE_TYPES:
            types[name] = m.group(1)
    return types


def type_module(mpi_h):
    handles = handle_constants(mpi_h)
    lines = ['module mpi_f08_types',
             '      use, intrinsic :: iso_c_binding, only: c_ptr, c_int',
             '      implicit none']
    for t in HANDLE_TYPES:
        lines += [f'      type, bind(C) :: {t}', '        integer :: MPI_VAL', '      end type']
    # C's MPI_Status (include/mpi.h): the count and cancelled flag first.
    lines += ['      type, bind(C) :: MPI_Status',
              '        integer, private :: count_lo, count_hi_and_cancelled',
              '        integer :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
              '      end type']
    for name, ftype, value in gen_mpif.fortran_constants(mpi_h):
        if name in F77_ONLY:
            continue
        if name in handles:
            lines.append(f'      type({handles[name]}), parameter :: {name} = {handles[name]}({value})')
        elif ftype == 'LOGICAL':
            # Both hold here: the bindings build a datatype for a strided
            # section, and the nonblocking buffers are ASYNCHRONOUS.
            lines.append(f'      logical, parameter :: {name} = .true.')
        else:
            lines.append(f'      integer, parameter :: {name} = {value}')
    # The sentinels, in the common blocks of mpif.h (gen_mpif.COMMONS).
    lines += ['      integer :: MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1), MPI_BOTTOM, MPI_IN_PLACE',
              '      integer :: MPI_ERRCODES_IGNORE(1)',
              '      type(MPI_Status) :: MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE(1)',
              '      character(len=1) :: MPI_ARGVS_NULL(1, 1), MPI_ARGV_NULL(1)',
              '      common /MPIFCMB5/ MPI_UNWEIGHTED',
              '      common /MPIFCMB9/ MPI_WEIGHTS_EMPTY',
              '      common /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE',
              '      common /MPIPRIV2/ MPI_STATUSES_IGNORE, MPI_ERRCODES_IGNORE',
              '      common /MPIPRIVC/ MPI_ARGVS_NULL, MPI_ARGV_NULL',
              '      save /MPIFCMB5/, /MPIFCMB9/, /MPIPRIV1/, /MPIPRIV2/, /MPIPRIVC/']
    ops = [(op, t) for t in HANDLE_TYPES for op in ('eq', 'ne')]
    lines += ['      interface operator(==)'] + \
        [f'        module procedure rch_f08_{t[4:].lower()}_eq' for t in HANDLE_TYPES] + \
        ['      end interface', '      interface operator(/=)'] + \
        [f'        module procedure rch_f08_{t[4:].lower()}_ne' for t in HANDLE_TYPES] + \
        ['      end interface']
    lines += abstract_interfaces()
    lines += c_helpers()
    lines += gen_f90.sizeof_generic()
    lines.append('contains')
    lines += gen_f90.sizeof_procedures(optional_ierror=True)
    for op, t in ops:
        rel = '==' if op == 'eq' else '/='
        lines += [f'      elemental logical function rch_f08_{t[4:].lower()}_{op}(a, b)',
                  f'        type({t}), intent(in) :: a, b',
                  f'        rch_f08_{t[4:].lower()}_{op} = a%MPI_VAL {rel} b%MPI_VAL',
                  '      end function']
    return lines + ['end module mpi_f08_types']


def c_helpers():
    """fort_f08.c: a choice buffer's address from its descriptor."""
    return [
        '      interface',
        '      integer(c_int) function rch_f08_buffer(buf, count, datatype, whole, addr, count_c, &',
        "          datatype_c) bind(C, name='rch_f08_buffer')",
        '        import :: c_int, c_ptr, MPI_Datatype',
        '        type(*), dimension(..) :: buf',
        '        integer(c_int) :: count, count_c',
        '        integer(c_int), value :: whole',
        '        type(MPI_Datatype) :: datatype, datatype_c',
        '        type(c_ptr) :: addr',
        '      end function',
        '      integer(c_int) function rch_f08_pair(a, b, count, datatype, whole, addr_a, addr_b, &',
        "          count_c, datatype_c) bind(C, name='rch_f08_pair')",
        '        import :: c_int, c_ptr, MPI_Datatype',
        '        type(*), dimension(..) :: a, b',
        '        integer(c_int) :: count, count_c',
        '        integer(c_int), value :: whole',
        '        type(MPI_Datatype) :: datatype, datatype_c',
        '        type(c_ptr) :: addr_a, addr_b',
        '      end function',
        "      integer(c_int) function rch_f08_address(buf, contents, addr) &",
        "          bind(C, name='rch_f08_address')",
        '        import :: c_int, c_ptr',
        '        type(*), dimension(..) :: buf',
        '        integer(c_int), value :: contents',
        '        type(c_ptr) :: addr',
        '      end function',
        "      subroutine rch_f08_raise(kind, handle, err) bind(C, name='rch_f08_raise')",
        '        import :: c_int',
        '        integer(c_int), value :: kind',
        '        integer(c_int) :: handle, err',
        '      end subroutine',
        "      subroutine rch_f08_type_free(datatype) bind(C, name='rch_f08_type_free')",
        '        import :: MPI_Datatype',
        '        type(MPI_Datatype) :: datatype',
        '      end subroutine',
        '      end interface']


# ---- the functions ----

def bound(fn):
    """Whether module mpi_f08 has it: every function with an mpif.h binding
    but those the f08 binding dropped (MPI-3.0 removed or MPI-2.0 deprecated:
    mpi_api.txt's deprecated ones) and those whose callback has no f08
    interface here (listed in docs/ARCHITECTURE.md)."""
    if fn.missing or fn.deprecated or fn.fortran in ('none', 'unbound'):
        return False
    return all(p.kind != 'CALLBACK' or callback_interface(p) for p in fn.params)


def callback_interface(p):
    t = p.type
    if t in ('MPI_User_function', 'MPI_Comm_errhandler_function', 'MPI_Win_errhandler_function',
             'MPI_File_errhandler_function'):
        return t
    m = re.fullmatch(r'MPI_(Comm|Type|Win)_(copy|delete)_attr_function', t)
    return t if m else None


def visible(fn):
    return [p for p in fn.params if p.kind not in ('ARGC', 'ARGV', 'VARARGS')]


def is_async(fn):
    return fn.name in ASYNC_FUNCTIONS or \
        any(p.kind == 'REQUEST' and p.dir != 'in' and not p.is_array for p in fn.params)


FTYPE = dict(gen_f90.FTYPE, C_PTR='type(c_ptr)')


def dims(p):
    """A STRING's len= is its C buffer's size: a scalar CHARACTER(LEN=*) in
    Fortran (module mpi's CHARACTER array dummy accepts one by sequence
    association, which a generic's resolution does not do)."""
    if not p.is_array or p.kind == 'STRING':
        return ''
    return gen_f90.array_dims(p)


def declaration(fn, p):
    """The f08 dummy argument's declaration."""
    intent = gen_f90.INTENT[p.dir]
    if p.kind == 'CALLBACK':
        return f'        procedure({callback_interface(p)}) :: {p.name}'
    if p.kind == 'BUFFER':
        attrs = ['type(*)', 'dimension(..)'] + (['intent(in)'] if p.dir == 'in' else []) + \
            (['asynchronous'] if is_async(fn) else [])
        return f'        {", ".join(attrs)} :: {p.name}'
    if p.kind in mpi_api.HANDLE_KINDS:
        ftype = f'type({mpi_api.HANDLE_KINDS[p.kind]})'
    elif p.kind == 'STATUS':
        ftype = 'type(MPI_Status)'
    else:
        ftype = FTYPE[p.kind]
    return f'        {ftype}, {intent} :: {p.name}{dims(p)}'


def buffer_pairs(fn):
    """{(count index, datatype index): [buffer indices]} for the buffers that
    have a count and datatype: the first non-buffer parameters after them
    (MPI_Reduce's sendbuf and recvbuf share one)."""
    ps, pairs = fn.params, {}
    for i, p in enumerate(ps):
        if p.kind != 'BUFFER':
            continue
        j = i + 1
        while j < len(ps) and ps[j].kind == 'BUFFER':
            j += 1
        if j + 1 < len(ps) and ps[j].kind == 'COUNT' and not ps[j].is_array and \
                ps[j + 1].kind == 'DATATYPE' and not ps[j + 1].is_array:
            pairs.setdefault((j, j + 1), []).append(i)
    if any(len(b) > 2 for b in pairs.values()):
        raise mpi_api.DescriptionError(f'{fn.name}: more than two buffers share a datatype')
    return pairs


def whole(fn):
    """0 where a count is per rank (a gather's receive, a scatter's send,
    ...): fort_f08.c then needs a regular section."""
    return 0 if re.search(r'gather|scatter|alltoall', fn.name, flags=re.I) else 1


RAISE_KINDS = {'COMM': 1, 'WIN': 2, 'FILE': 3}


def error_owner(fn):
    """(fort_f08.c's kind, parameter) of the object whose error handler a
    refused buffer raises: the call's first communicator, window or file."""
    for p in fn.params:
        if p.kind in RAISE_KINDS and p.dir == 'in' and not p.is_array:
            return RAISE_KINDS[p.kind], p.name
    return None


def contents(fn):
    """0 where only a buffer's address matters (MPI_Get_address, MPI_Free_mem,
    a split collective's end): any section will do, not only a contiguous one."""
    return 0 if fn.name in ('Get_address', 'Free_mem', 'Win_detach') or \
        re.fullmatch(r'File_\w+_end', fn.name) else 1


def head(fn, name):
    args = [p.name for p in visible(fn)]
    if fn.returns:
        return f'{gen_f90.FTYPE[fn.returns]} function {name}({", ".join(args)})', 'end function'
    if not gen_f90.no_ierror(fn):
        args.append('ierror')
    return f'subroutine {name}({", ".join(args)})', 'end subroutine'


def public_declarations(fn):
    lines = [declaration(fn, p) for p in visible(fn)]
    if not fn.returns and not gen_f90.no_ierror(fn):
        lines.append('        integer, optional, intent(out) :: ierror')
    return lines


def specific_interface(fn, name):
    first, end = head(fn, name)
    return gen_f90.wrap(f'      {first}') + ['        import', '        implicit none'] + \
        public_declarations(fn) + [f'      {end}']


def binding_interface(fn):
    """The interface of the mpif.h binding pmpi_<name>_ in f08 types: a
    buffer is its address."""
    first, end = head(fn, f'pmpi_{fn.name.lower()}')
    lines = gen_f90.wrap(f'      {first}') + ['        import', '        implicit none']
    for p in visible(fn):
        if p.kind == 'BUFFER':
            lines.append(f'        type(c_ptr), value :: {p.name}')
        else:
            lines.append(declaration(fn, p).replace(', asynchronous', ''))
    if not fn.returns and not gen_f90.no_ierror(fn):
        lines.append('        integer :: ierror')
    return ['      interface'] + lines + [f'      {end}', '      end interface']


def pmpi_body(fn):
    """PMPI_<Name>_f08: the buffers' addresses, then the mpif.h binding."""
    name = f'PMPI_{fn.name}_f08'
    first, end = head(fn, name)
    lines = gen_f90.wrap(f'{first}') + ['      use mpi_f08_types', '      implicit none']
    lines += public_declarations(fn)
    lines += binding_interface(fn)
    if fn.fortran == 'special' and any(p.fchoice for p in fn.params):
        raise mpi_api.DescriptionError(f'{fn.name}: fchoice handled by fchoice_body only')
    args = []
    if fn.returns:
        lines.append(f'      {name} = pmpi_{fn.name.lower()}({", ".join(p.name for p in visible(fn))})')
        return lines + [end]
    pairs = buffer_pairs(fn)
    paired = {i for b in pairs.values() for i in b}
    conv, done = [], []
    for (c, d), bufs in pairs.items():
        c, d = fn.params[c].name, fn.params[d].name
        names = [fn.params[i].name for i in bufs]
        lines += [f'      integer :: {c}_c', f'      type(MPI_Datatype) :: {d}_c']
        helper = 'rch_f08_buffer' if len(bufs) == 1 else 'rch_f08_pair'
        conv.append(f'{helper}({", ".join(names)}, {c}, {d}, {whole(fn)}, '
                    f'{", ".join(n + "_c" for n in names)}, {c}_c, {d}_c)')
        done.append(f'      if ({d}_c%MPI_VAL /= {d}%MPI_VAL) call rch_f08_type_free({d}_c)')
    for i, p in enumerate(fn.params):
        if p.kind in ('ARGC', 'ARGV', 'VARARGS'):
            continue
        if p.kind == 'BUFFER':
            lines.append(f'      type(c_ptr) :: {p.name}_c')
            args.append(f'{p.name}_c')
            if i not in paired:
                conv.append(f'rch_f08_address({p.name}, {contents(fn)}, {p.name}_c)')
        else:
            args.append(f'{p.name}_c' if any(i in k for k in pairs) else p.name)
    if gen_f90.no_ierror(fn):
        return lines + [f'      call pmpi_{fn.name.lower()}({", ".join(args)})', end]
    lines.append('      integer :: ierror_c')
    for c, d in pairs:
        c, d = fn.params[c].name, fn.params[d].name
        lines += [f'      {c}_c = {c}', f'      {d}_c = {d}']
    lines.append('      ierror_c = MPI_SUCCESS')
    for c in conv:
        lines += gen_f90.wrap(f'      if (ierror_c == MPI_SUCCESS) ierror_c = {c}')
    if conv and error_owner(fn):
        lines[lines.index('      integer :: ierror_c')] = '      integer :: ierror_c, ierror_f08'
        lines.append('      ierror_f08 = ierror_c')
    call = f'call pmpi_{fn.name.lower()}({", ".join(args + ["ierror_c"])})'
    lines += gen_f90.wrap(f'      if (ierror_c == MPI_SUCCESS) {call}')
    owner = error_owner(fn)
    if conv and owner:
        kind, name = owner
        lines += gen_f90.wrap(f'      if (ierror_f08 /= MPI_SUCCESS) '
                              f'call rch_f08_raise({kind}, {name}%MPI_VAL, ierror_c)')
    lines += done
    return lines + ['      if (present(ierror)) ierror = ierror_c', end]


def fchoice_body(fn):
    """MPI_Buffer_detach and the MPI-4.1 Comm_/Session_detach_buffer: the f08
    BUFFER_ADDR is a TYPE(C_PTR) C sets (the mpif.h binding drops it), so
    they call C directly: handles by value, the rest by reference."""
    name = f'PMPI_{fn.name}_f08'
    first, end = head(fn, name)
    decls, args = [], []
    for p in visible(fn):
        if p.fchoice:
            decls.append(f'        type(c_ptr) :: {p.name}')
            args.append(p.name)
        elif p.kind in mpi_api.HANDLE_KINDS or p.kind == 'SESSION':
            decls.append(f'        integer(c_int), value :: {p.name}')
            args.append(f'{p.name}%MPI_VAL')
        else:
            decls.append(f'        integer(c_int) :: {p.name}')
            args.append(p.name)
    return gen_f90.wrap(first) + ['      use mpi_f08_types', '      implicit none'] + \
        public_declarations(fn) + [
        '      interface',
        f"      integer(c_int) function c_{fn.name.lower()}({', '.join(p.name for p in visible(fn))}) &",
        f"          bind(C, name='PMPI_{fn.name}')",
        '        import :: c_ptr, c_int'] + decls + [
        '      end function',
        '      end interface',
        '      integer :: ierror_c'] + \
        gen_f90.wrap(f"      ierror_c = c_{fn.name.lower()}({', '.join(args)})") + [
        '      if (present(ierror)) ierror = ierror_c', end]


def mpi_body(fn):
    """MPI_<Name>_f08: the profiling entry point calls PMPI_<Name>_f08."""
    name = f'MPI_{fn.name}_f08'
    first, end = head(fn, name)
    lines = gen_f90.wrap(first) + ['      use mpi_f08_types',
                                   f'      use mpi_f08, only: PMPI_{fn.name}_f08',
                                   '      implicit none']
    lines += public_declarations(fn)
    args = [p.name for p in visible(fn)]
    if fn.returns:
        return lines + [f'      {name} = PMPI_{fn.name}_f08({", ".join(args)})', end]
    if not gen_f90.no_ierror(fn):
        args.append('ierror')
    return lines + gen_f90.wrap(f'      call PMPI_{fn.name}_f08({", ".join(args)})') + [end]


def sync_reg_interfaces():
    """MPI_F_sync_reg (Fortran only, MPI-3.1 17.1.7): an external procedure
    that may touch its argument, so the compiler keeps the buffer in memory
    across it. It does nothing."""
    lines = []
    for prefix in ('MPI', 'PMPI'):
        lines += [f'      interface {prefix}_F_sync_reg',
                  f'      subroutine {prefix}_F_sync_reg_f08(buf)',
                  '        type(*), dimension(..), asynchronous :: buf',
                  '      end subroutine',
                  '      end interface']
    return lines


def sync_reg_procedures():
    return ['', 'subroutine PMPI_F_sync_reg_f08(buf)',
            '      type(*), dimension(..), asynchronous :: buf',
            'end subroutine', '',
            'subroutine MPI_F_sync_reg_f08(buf)',
            '      use mpi_f08, only: PMPI_F_sync_reg_f08',
            '      type(*), dimension(..), asynchronous :: buf',
            '      call PMPI_F_sync_reg_f08(buf)',
            'end subroutine']


def main(desc, mpi_h, out):
    fns = [f for f in mpi_api.load(desc) if bound(f)]
    lines = ['! module mpi_f08: rdmach\'s `use mpi_f08`.',
             '! Generated by src/binding/gen_f08.py from mpi_api.txt and include/mpi.h. Do not edit.']
    lines += type_module(mpi_h)
    lines += ['module mpi_f08', '      use mpi_f08_types', '      implicit none',
              '      private :: rch_f08_buffer, rch_f08_pair, rch_f08_address, rch_f08_raise, rch_f08_type_free']
    lines += predefined_callbacks()
    for fn in fns:
        for prefix in ('MPI', 'PMPI'):
            lines.append(f'      interface {prefix}_{fn.name}')
            lines += specific_interface(fn, f'{prefix}_{fn.name}_f08')
            lines.append('      end interface')
    lines += sync_reg_interfaces()
    lines.append('end module mpi_f08')
    lines += sync_reg_procedures()
    for fn in fns:
        fchoice = any(p.fchoice for p in fn.params)
        lines += [''] + (fchoice_body(fn) if fchoice else pmpi_body(fn))
        lines += [''] + mpi_body(fn)
    with open(out, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print(f'gen_f08.py: module mpi_f08, {len(fns)} functions')


if __name__ == '__main__':
    main(*sys.argv[1:])
