"""Emit module mpi_f08 (`use mpi_f08`, MPI-3.1 chapter 17) from mpi_api.txt and include/mpi.h.

    gen_f08.py <mpi_api.txt> <include/mpi.h> <out mpi_f08.f90> <out f08_fast.c>

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
                 procedures MPI_<Name>_f08 and PMPI_<Name>_f08 (_f08ts
                 with a choice buffer: specific()).
  PMPI_<Name>_f08  external procedures calling the mpif.h binding of
                 gen_f77.py (pmpi_<name>_, the C glue of librdmachfort.so):
                 a TYPE(MPI_Comm) is passed by reference as the INTEGER it
                 holds, a TYPE(MPI_Status) is the C MPI_Status, so every
                 argument but the choice buffers goes through unchanged.
                 IERROR is OPTIONAL.
  MPI_<Name>_f08   call PMPI_<Name>_f08 (a profiler defines its own).
The C fast path (fast_c, the second output file) skips all that where
every argument goes to C unchanged (direct): PMPI_<Name>_f08(ts) is C,
reading gfortran's descriptor of a choice buffer (fort_gfc.h) and calling
C's PMPI_<Name> at once when the buffer is contiguous, the Fortran body
above (section_name) when it is not; MPI_<Name>_f08(ts) is its weak alias,
as C's MPI_<Name> is PMPI_<Name>'s. No libgfortran call, no second
procedure, on the hot calls (MPI_Send, MPI_Recv, MPI_Isend, MPI_Wait, ...).

Choice buffers are TYPE(*), DIMENSION(..) (TS 29113): the compiler passes a
C descriptor, and fort_f08.c gives the binding its address. A non-contiguous
array section (MPI_SUBARRAYS_SUPPORTED is .TRUE.) is "as if contiguous":
  - a call done with its buffers when it returns (copied()) works on a
    contiguous copy of the section, copied back after it when it writes
    there: any count, datatype, counts and displacements per rank, and two
    buffers of different layouts sharing one datatype;
  - a call that keeps its buffers (nonblocking, persistent, one-sided, a
    split collective's begin) uses the section in place, through a datatype
    built from the descriptor's strides for a buffer with a count and
    datatype of its own (buffer_pairs(): MPI_Isend's, MPI_Igatherv's
    recvbuf with its counts per rank); a section it cannot describe so (an
    MPI_Ialltoallw buffer, two buffers of different layouts sharing a
    datatype, a v-collective's irregular section) is refused with
    MPI_ERR_BUFFER, as is any non-contiguous window or attached buffer,
    which MPI requires to be simply contiguous.
MPICH's libmpichfort.so.12 has the same procedures under the same link
names (mpi_send_f08ts_, __mpi_f08_types_MOD_mpi_comm_eq,
__mpi_f08_types_MOD_mpi_sizeof_xint32), both being compiled by gfortran:
rdmach's libmpichfort.so.12 has this module's object, so programs built with
mpif90.mpich's `use mpi_f08` run on it.
"""
import re
import sys

import gen_f77
import gen_f90
import gen_mpif
import mpi_api

HANDLE_TYPES = sorted(set(mpi_api.HANDLE_KINDS.values()) | {'MPI_Session'})
ASYNC_FUNCTIONS = {'Put', 'Get', 'Accumulate', 'Get_accumulate', 'Fetch_and_op',
                   'Compare_and_swap', 'Win_create', 'Win_attach', 'Buffer_attach',
                   'Comm_attach_buffer', 'Session_attach_buffer'}
# Fortran-only names module mpi_f08 leaves out: the status is a type with
# these components, not an array they index.
F77_ONLY = set()   # MPICH's mpi_f08 has MPI_SOURCE/TAG/ERROR too (indices of an INTEGER status)
# The callbacks with an f08 interface: C calls the Fortran procedure with every
# argument by reference, as the mpif.h one (fort_special.c), a handle being
# its INTEGER and TYPE(C_PTR), VALUE a C pointer.
ATTR_HANDLE = {'Comm': 'MPI_Comm', 'Type': 'MPI_Datatype', 'Win': 'MPI_Win'}


def sizeof_name(t, k):
    """MPI_Sizeof's specific procedures, named as MPICH's mpi_f08_types
    names them (its programs call __mpi_f08_types_MOD_mpi_sizeof_xint32)."""
    if t == 'logical':
        return 'MPI_Sizeof_logical' if k == 4 else f'rdmach_sizeof_logical{k}'
    return f'MPI_Sizeof_x{"int" if t == "integer" else t}{8 * k}'


SIZEOF_NAME = sizeof_name


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
    lines += ['      subroutine MPI_Grequest_query_function(extra_state, status, ierror)',
              '        import :: MPI_Status, MPI_ADDRESS_KIND',
              '        integer(kind=MPI_ADDRESS_KIND) :: extra_state',
              '        type(MPI_Status) :: status',
              '        integer :: ierror',
              '      end subroutine',
              '      subroutine MPI_Grequest_free_function(extra_state, ierror)',
              '        import :: MPI_ADDRESS_KIND',
              '        integer(kind=MPI_ADDRESS_KIND) :: extra_state',
              '        integer :: ierror',
              '      end subroutine',
              '      subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)',
              '        import :: MPI_ADDRESS_KIND',
              '        integer(kind=MPI_ADDRESS_KIND) :: extra_state',
              '        logical :: complete',
              '        integer :: ierror',
              '      end subroutine']
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


def type_module(mpi_h, fns):
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
            lines.append(f'      {ftype.lower()}, parameter :: {name} = {value}')
    # The sentinels, in the common blocks of mpif.h (gen_mpif.COMMONS).
    lines += ['      integer :: MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)',
              '      integer, target :: MPI_BOTTOM, MPI_IN_PLACE',
              '      integer, target :: MPI_BUFFER_AUTOMATIC',
              '      integer :: MPI_ERRCODES_IGNORE(1)',
              '      type(MPI_Status), target :: MPI_STATUS_IGNORE',
              '      type(MPI_Status) :: MPI_STATUSES_IGNORE(1)',
              '      character(len=1) :: MPI_ARGVS_NULL(1, 1), MPI_ARGV_NULL(1)',
              '      common /MPIFCMB5/ MPI_UNWEIGHTED',
              '      common /MPIFCMB9/ MPI_WEIGHTS_EMPTY',
              '      common /MPIFCMBa/ MPI_BUFFER_AUTOMATIC',
              '      common /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE',
              '      common /MPIPRIV2/ MPI_STATUSES_IGNORE, MPI_ERRCODES_IGNORE',
              '      common /MPIPRIVC/ MPI_ARGVS_NULL, MPI_ARGV_NULL',
              '      save /MPIFCMB5/, /MPIFCMB9/, /MPIFCMBa/, /MPIPRIV1/, /MPIPRIV2/, /MPIPRIVC/']
    # Named as MPICH's (__mpi_f08_types_MOD_mpi_comm_eq, ...), which its
    # programs call for == and /=.
    ops = [(op, t) for t in HANDLE_TYPES for op in ('eq', 'neq')]
    lines += ['      interface operator(==)'] + \
        [f'        module procedure {t}_eq, {t}_f08_eq_f, {t}_f_eq_f08' for t in HANDLE_TYPES] + \
        ['      end interface', '      interface operator(/=)'] + \
        [f'        module procedure {t}_neq, {t}_f08_neq_f, {t}_f_neq_f08' for t in HANDLE_TYPES] + \
        ['      end interface']
    lines += ['      interface MPI_Sizeof', '        module procedure MPI_Sizeof_character', '      end interface']
    lines += abstract_interfaces()
    lines += c_helpers()
    lines += gen_f90.sizeof_generic(SIZEOF_NAME)
    lines.append('contains')
    lines += gen_f90.sizeof_procedures(SIZEOF_NAME, optional_ierror=True)
    lines += f08types_procedures(fns)
    for op, t in ops:
        rel = '==' if op == 'eq' else '/='
        lines += [f'      elemental logical function {t}_{op}(a, b)',
                  f'        type({t}), intent(in) :: a, b',
                  f'        {t}_{op} = a%MPI_VAL {rel} b%MPI_VAL',
                  '      end function']
    return lines + mpich_extensions(ops) + ['end module mpi_f08_types']


# The Fortran types of the arguments of f08types_procedures.
F08TYPES_FTYPE = {'F08_STATUS': ('type(MPI_Status)', ''), 'FINT_STATUS': ('integer', '(MPI_STATUS_SIZE)')}


def f08types_procedures(fns):
    """The procedures of module mpi_f08_types for the functions marked
    fortran=f08types (MPI_Status_f082f, MPI_Status_f2f08: MPI-4.1 19.3.5),
    named as MPICH names them (__mpi_f08_types_MOD_mpi_status_f082f): C's
    PMPI_<Name> through a BIND(C) interface, every argument by reference (a
    TYPE(MPI_Status) is C's MPI_F08_status, an INTEGER status C's MPI_Fint
    array), IERROR optional."""
    lines = []
    for fn in fns:
        if fn.fortran != 'f08types':
            continue
        if any(p.kind not in F08TYPES_FTYPE for p in fn.params):
            raise mpi_api.DescriptionError(f'{fn.name}: fortran=f08types takes statuses only')
        names = ', '.join(p.name for p in fn.params)
        decls = [f'        {F08TYPES_FTYPE[p.kind][0]}, {gen_f90.INTENT[p.dir]} :: '
                 f'{p.name}{F08TYPES_FTYPE[p.kind][1]}' for p in fn.params]
        lines += [f'      subroutine MPI_{fn.name}({names}, ierror)'] + decls + [
            '        integer, optional, intent(out) :: ierror',
            '        interface',
            f"          integer(c_int) function c_{fn.name.lower()}({names}) bind(C, name='PMPI_{fn.name}')",
            '            import :: c_int, MPI_Status, MPI_STATUS_SIZE'] + \
            ['    ' + d for d in decls] + [
            '          end function',
            '        end interface',
            '        integer :: ierror_c',
            f'        ierror_c = c_{fn.name.lower()}({names})',
            '        if (present(ierror)) ierror = ierror_c',
            '      end subroutine']
    return lines


def mpich_extensions(ops):
    """MPICH's extensions in its mpi_f08_types, named as it names them
    (programs built with mpif90.mpich call __mpi_f08_types_MOD_mpi_comm_f2c):
    == and /= between a handle and an INTEGER (the mpif.h handle), either
    way round; MPI_<Handle>_f2c and _c2f (the identity: in MPICH's ABI a C
    handle is the Fortran INTEGER) but for MPI_File, a pointer in C;
    MPI_Sizeof of CHARACTER."""
    lines = []
    for op, t in ops:
        rel = '==' if op == 'eq' else '/='
        for name, args in ((f'{t}_f08_{op}_f', 'h, f'), (f'{t}_f_{op}_f08', 'f, h')):
            lines += [f'      logical function {name}({args})',
                      f'        type({t}), intent(in) :: h',
                      '        integer, intent(in) :: f',
                      f'        {name} = h%MPI_VAL {rel} f',
                      '      end function']
    for t in HANDLE_TYPES:
        if t == 'MPI_File':
            continue
        lines += [f'      integer(c_int) function {t}_f2c(h)',
                  '        integer, value :: h',
                  f'        {t}_f2c = h',
                  '      end function',
                  f'      integer function {t}_c2f(h)',
                  '        integer(c_int), value :: h',
                  f'        {t}_c2f = h',
                  '      end function']
    return lines + ['      subroutine MPI_Sizeof_character(x, size, ierror)',
                    '        character, dimension(..), intent(in) :: x',
                    '        integer, intent(out) :: size',
                    '        integer, optional, intent(out) :: ierror',
                    '        size = storage_size(x) / 8',
                    '        if (present(ierror)) ierror = MPI_SUCCESS',
                    '      end subroutine']


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
        "      integer(c_int) function rch_f08_copy_in(buf, addr, tmp) bind(C, name='rch_f08_copy_in')",
        '        import :: c_int, c_ptr',
        '        type(*), dimension(..) :: buf',
        '        type(c_ptr) :: addr, tmp',
        '      end function',
        "      subroutine rch_f08_copy_out(buf, tmp, back) bind(C, name='rch_f08_copy_out')",
        '        import :: c_int, c_ptr',
        '        type(*), dimension(..) :: buf',
        '        type(c_ptr) :: tmp',
        '        integer(c_int), value :: back',
        '      end subroutine',
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
    if fn.missing or fn.deprecated or fn.fortran in ('none', 'unbound', 'f08types', 'large'):
        return False
    return all(p.kind != 'CALLBACK' or callback_interface(p) for p in fn.params)


def callback_interface(p):
    t = p.type
    if t in ('MPI_User_function', 'MPI_Comm_errhandler_function', 'MPI_Win_errhandler_function',
             'MPI_File_errhandler_function', 'MPI_Grequest_query_function',
             'MPI_Grequest_free_function', 'MPI_Grequest_cancel_function'):
        return t
    m = re.fullmatch(r'MPI_(Comm|Type|Win)_(copy|delete)_attr_function', t)
    return t if m else None


def specific(fn):
    """The specific procedure's name after MPI_/PMPI_: <Name>_f08ts for a
    function with a choice buffer, as MPI-3.1 17.1.5 names them when
    MPI_SUBARRAYS_SUPPORTED is .TRUE. (and MPICH's libmpichfort exports
    them: mpi_send_f08ts_), else <Name>_f08."""
    return f'{fn.name}_f08ts' if any(p.kind == 'BUFFER' for p in fn.params) else f'{fn.name}_f08'


def visible(fn):
    return [p for p in fn.params if p.in_fortran]


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
            (['asynchronous'] if is_async(fn) else []) + ['target']
        return f'        {", ".join(attrs)} :: {p.name}'
    if p.kind in mpi_api.HANDLE_KINDS:
        ftype = f'type({mpi_api.HANDLE_KINDS[p.kind]})'
    elif p.kind == 'STATUS':
        ftype = 'type(MPI_Status)' + ('' if p.is_array else ', target')
    else:
        ftype = FTYPE[p.kind]
    return f'        {ftype}, {intent} :: {p.name}{dims(p)}'


def buffer_pairs(fn):
    """{(count index, datatype index): [buffer indices]} for the buffers that
    have a count and datatype: the first non-buffer parameters after them
    (MPI_Reduce's sendbuf and recvbuf share one). The count index is None
    for a v-collective's buffer: counts (and displacements) per rank, then
    one datatype (MPI_Igatherv's recvbuf, MPI_Ireduce_scatter's pair)."""
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
            continue
        k = j
        while k < len(ps) and ps[k].kind in ('COUNT', 'DISP') and ps[k].is_array:
            k += 1
        if k > j and k < len(ps) and ps[k].kind == 'DATATYPE' and not ps[k].is_array:
            pairs.setdefault((None, k), []).append(i)
    if any(len(b) > 2 for b in pairs.values()):
        raise mpi_api.DescriptionError(f'{fn.name}: more than two buffers share a datatype')
    return pairs


def copied(fn):
    """Whether a non-contiguous section passed to it is copied to a
    contiguous buffer for the call (and back after it): a call that is done
    with its buffers when it returns. Not one that keeps them (a
    nonblocking or persistent operation, a window, a split collective's
    begin), nor one for which only the address counts (contents())."""
    return not is_async(fn) and not re.fullmatch(r'File_\w+_begin', fn.name) and contents(fn)


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


def large_kind(p):
    """A POLY parameter's Fortran kind in a large-count (_large) procedure,
    from its C type in MPI_<Name>_c; None for any other parameter."""
    if p.kind not in mpi_api.POLY_C:
        return None
    return 'MPI_COUNT_KIND' if 'MPI_Count' in p.c_type(large=True) else 'MPI_ADDRESS_KIND'


def public_declarations(fn, large=False):
    lines = [declaration(fn, p) for p in visible(fn)]
    if large:
        lines = [re.sub(r'^        integer,', f'        integer(kind={large_kind(p)}),', d)
                 if large_kind(p) else d for p, d in zip(visible(fn), lines)]
    if not fn.returns and not gen_f90.no_ierror(fn):
        lines.append('        integer, optional, intent(out) :: ierror')
    return lines


def specific_interface(fn, name, large=False):
    first, end = head(fn, name)
    return gen_f90.wrap(f'      {first}') + ['        import', '        implicit none'] + \
        public_declarations(fn, large) + [f'      {end}']


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


def direct_param(p):
    """(C parameter, argument to C's PMPI_<Name>) of a parameter the C fast
    path (fast_c) passes to C as it is: gfortran passes every argument by
    reference, an optional absent one as NULL; a handle is its C handle
    (MPICH's ABI: an int, MPI_VAL), a TYPE(MPI_Status) C's MPI_Status, a
    choice buffer gfortran's descriptor (fort_gfc.h), an INTEGER(KIND=
    MPI_ADDRESS_KIND) C's MPI_Aint, a TYPE(C_PTR) output the address of
    C's pointer. None for any other (arrays, strings, logicals, indices,
    MPI-1's default INTEGER addresses (fint), MPI_File: a pointer in C),
    left to the mpif.h binding."""
    if p.kind == 'FILE':
        return None
    if p.is_array:
        return direct_array(p)
    if p.kind == 'BUFFER':
        return f'const struct rch_gfc_desc *{p.name}', f'rch_gfc_buffer({p.name})'
    if p.kind == 'STATUS' and p.dir == 'out':
        return f'MPI_Fint *{p.name}', f'rch_f_status({p.name})'
    if p.kind == 'STATUS' and p.dir == 'in':
        return f'const MPI_Fint *{p.name}', f'({p.c_type()}){p.name}'
    if p.kind == 'STATUS':
        return f'MPI_Fint *{p.name}', f'(MPI_Status *){p.name}'
    if p.kind in ('AINT', 'XCOUNT') and not p.fint:
        ctype = mpi_api.SCALAR_C[p.kind]
        if p.dir == 'in':
            return f'const {ctype} *{p.name}', f'*{p.name}'
        return f'{ctype} *{p.name}', p.name
    if p.kind == 'C_PTR' and p.dir == 'out':
        return f'void *{p.name}', p.name
    if p.kind in mpi_api.HANDLE_KINDS or p.kind in mpi_api.INT_KINDS and p.kind not in ('LOGICAL', 'INDEX'):
        ctype = mpi_api.SCALAR_C[p.kind]
        if p.dir == 'in':
            return f'const MPI_Fint *{p.name}', f'({ctype})*{p.name}'
        return f'MPI_Fint *{p.name}', f'({ctype} *){p.name}'
    return None


def direct_array(p):
    """direct_param of an assumed-size array (gfortran passes its address):
    handles (MPI_Request, MPI_Datatype, ...), INTEGERs and INTEGER(KIND=
    MPI_ADDRESS_KIND)s as C's arrays, an
    output array of statuses as C's (MPI_STATUSES_IGNORE becoming C's);
    None for a two-dimensional one, LOGICALs, indices (from 1 in Fortran)
    and weights (MPI_UNWEIGHTED), left to the mpif.h binding."""
    if p.shape or p.name in gen_f77.WEIGHTS:
        return None
    if p.kind == 'STATUS' and p.dir == 'out':
        return f'MPI_Fint *{p.name}', f'rch_f_statuses({p.name})'
    if p.kind in mpi_api.HANDLE_KINDS or p.kind in mpi_api.INT_KINDS and p.kind not in ('LOGICAL', 'INDEX'):
        const = 'const ' if p.dir == 'in' else ''
        return f'{const}MPI_Fint *{p.name}', f'({p.c_type()}){p.name}'
    if p.kind in ('AINT', 'XCOUNT') and not p.fint:
        return f'{p.c_type()}{p.name}', p.name
    return None


def direct(fn):
    """Whether PMPI_<Name>_f08(ts) is fast_c's C: every argument goes to C's
    PMPI_<Name> as it is (direct_param)."""
    return not (fn.returns or gen_f90.no_ierror(fn) or fn.fortran == 'special' or
                any(not p.in_fortran or p.fchoice for p in fn.params) or
                any(direct_param(p) is None for p in visible(fn)))


def section_name(fn):
    """The Fortran procedure fast_c calls for a buffer that is not
    contiguous: PMPI_<Name>_f08ts's body below the C fast path."""
    return f'rch_{specific(fn)}_section'


def large_of(fns):
    """{<Name>: the function <Name>_c} for those marked fortran=large: the
    large-count procedure of <Name> in mpi_f08, with <Name>_c's arguments."""
    return {f.name[:-2]: f for f in fns if f.fortran == 'large' and f.name.endswith('_c')}


# The calls of a latency-bound loop: their entry points (fast_c) are laid
# out one after the other in a section of their own (.text.hot.rch_f08,
# about 3.3 KB, page-aligned), so that a ping-pong's calls touch a few cache
# lines of one page instead of lines scattered over the library;
# the addresses they use (C's PMPI_<Name>, the two MPI_STATUS_IGNOREs) are
# read from one table, f08_hot (hot_table), whose first cache line holds
# those of MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Wait and MPI_Test,
# instead of from GOT entries the linker scatters over several lines.
HOT = ('Send', 'Recv', 'Isend', 'Irecv', 'Wait', 'Test', 'Waitall', 'Testall', 'Waitany',
       'Testany', 'Sendrecv', 'Start', 'Startall', 'Iprobe', 'Probe', 'Ssend', 'Issend',
       'Rsend', 'Bsend', 'Request_free', 'Get_count')


def hot_table():
    """f08_hot: the addresses the HOT entry points use, filled in by the
    dynamic linker as their GOT entries would be (the same symbol lookup:
    a program's own /MPIPRIV1/, a preloaded PMPI_Send), in RELRO. Hidden
    and writable in C's eyes, so that gcc reads it at run time rather than
    folding it into the GOT loads it replaces (no LTO builds this file)."""
    return ['/* f08_hot (gen_f08.hot_table): what the hot entry points read, in one',
            ' * table instead of GOT entries scattered over several cache lines. */',
            'struct f08_hot {',
            '    MPI_Fint *status_ignore;        /* mpif.h\'s and rdmach\'s mpi_f08\'s */',
            '    MPI_Fint *status_ignore_mpich;  /* MPICH\'s mpi_f08\'s */',
            f'    void (*fn[{len(HOT)}])(void);     /* PMPI_<Name>, in gen_f08.HOT\'s order */',
            '};',
            '__attribute__((visibility("hidden"), aligned(64), section(".data.rel.ro.rch_f08_hot")))',
            'struct f08_hot rch_f08_hot = {',
            '    mpipriv1_.status_ignore, (MPI_Fint *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ,',
            '    {' + ', '.join(f'(void (*)(void))PMPI_{n}' for n in HOT) + '}',
            '};',
            '#define F08_HOT(name, i) ((__typeof__(&name))rch_f08_hot.fn[i])',
            '/* The hot entry points\' section starts a page (it is smaller than one):',
            ' * the calls of a ping-pong then need one iTLB entry, wherever the linker',
            ' * puts it; each entry point starts a cache line (HOT). */',
            '__asm__(".section .text.hot.rch_f08,\\"ax\\",@progbits\\n\\t.p2align 12\\n\\t.previous");',
            '/* rch_f_status through f08_hot */',
            'static inline MPI_Status *f08_hot_status(MPI_Fint *status)',
            '{',
            '    if ((status == rch_f08_hot.status_ignore) | (status == rch_f08_hot.status_ignore_mpich))',
            '        return MPI_STATUS_IGNORE;',
            '    return (MPI_Status *)status;',
            '}']


def fast_c(fn, link=None):
    """PMPI_<Name>_f08(ts) and MPI_<Name>_f08(ts) (weak aliases, as C's
    MPI_<Name> is, and MPICH's PMPIR_<Name>_f08(ts), pmpi_body) in C: C's PMPI_<Name>
    called at once, the gfortran descriptors of its choice buffers read
    inline; a buffer that is not contiguous goes to section_name(fn), in
    Fortran. A call whose buffers are all whole rank-1 arrays (the
    commonest), IERROR present or not, is done by the entry point itself
    in straight-line code: without IERROR a jump to C without a frame,
    with it a jump to f08_<name>_ierror, which calls C and stores its
    result (inline, its frame would be the entry's on every path: gcc does
    not shrink-wrap it). Any other buffer goes on
    in f08_<name> (static), through f08_<name>_cold, a call marked cold
    (a HOT entry point, in a section of its own, is not split into hot and
    cold parts by gcc: the jump to it stays inline, taken by no common
    call). f08_<name> itself is
    marked hot: called from a cold function only, gcc would take it for
    cold and optimise it for size (the descriptor's inline tests become
    calls), and scalar buffers are common calls too; its own section
    keeps it out of the hot entry points' (HOT). link: the link name after
    pmpi_ (a fortran=large function's <name>_f08_large_)."""
    params = [direct_param(p) for p in visible(fn)]
    names = ', '.join([p.name for p in visible(fn)] + ['ierror'])
    decls = ', '.join([d for d, _ in params] + ['MPI_Fint *ierror'])
    name = link or f'{specific(fn).lower()}_'
    link = f'pmpi_{name}'
    bufs = [p.name for p in visible(fn) if p.kind == 'BUFFER']
    general = f'f08_{name[:-1]}'
    plain = [f'{p.name}->base_addr' if p.kind == 'BUFFER' else a for p, (_, a) in zip(visible(fn), params)]
    hot = ''
    direct_call = f'PMPI_{fn.name}({", ".join(plain)});'
    if fn.name in HOT and not link.endswith('_large_'):
        hot = ' __attribute__((section(".text.hot.rch_f08"), aligned(64)))'
        plain = [a.replace('rch_f_status(', 'f08_hot_status(') for a in plain]
        direct_call = f'F08_HOT(PMPI_{fn.name}, {HOT.index(fn.name)})({", ".join(plain)});'
    helper = f'{general}_ierror'
    straight = [f'static __attribute__((noinline)){hot} void {helper}({decls})', '{',
                f'    *ierror = {direct_call}', '}',
                f'RCH_F_PUBLIC{hot} void {link}({decls})', '{']
    test = ['    if (RCH_LIKELY(!ierror)) {', f'        {direct_call}', '        return;', '    }',
            f'    {helper}({names});']
    aliases = [f'RCH_F_PUBLIC void {prefix}_{name}({decls}) '
               f'__attribute__((weak, alias("{link}")));' for prefix in ('mpi', 'pmpir')]
    if not bufs:
        return straight + test + ['}'] + aliases
    whole = ' && '.join(f'rch_gfc_whole1({b})' for b in bufs)
    call = f'PMPI_{fn.name}({", ".join(a for _, a in params)});'
    return [f'void {section_name(fn).lower()}_({decls});',
            f'static __attribute__((noinline, hot, section(".text.rch_f08_general"))) void {general}({decls})',
            '{',
            f'    if (RCH_UNLIKELY({" || ".join(f"!rch_gfc_contiguous({b})" for b in bufs)})) {{',
            f'        {section_name(fn).lower()}_({names});', '        return;', '    }',
            '    if (!ierror) {', f'        {call}', '        return;', '    }', f'    *ierror = {call}', '}',
            f'static __attribute__((noinline, cold)) void {general}_cold({decls})', '{',
            f'    {general}({names});', '}'] + straight + [
            f'    if (RCH_UNLIKELY(!({whole}))) {{', f'        {general}_cold({names});', '        return;',
            '    }'] + test + ['}'] + aliases


def large_param(p):
    """direct_param of a large-count procedure's parameter, which may also
    be an input string (a C copy without its trailing blanks made by the
    procedure, large_strings) or MPI_Buffer_detach's TYPE(C_PTR) address
    (fchoice: the address of C's pointer)."""
    if p.kind == 'STRING' and p.dir == 'in' and not p.is_array:
        return f'const char *{p.name}', f'{p.name}_c'
    if p.kind == 'C_PTR' and p.dir == 'out' and p.fchoice:
        return f'void *{p.name}', p.name
    return direct_param(p)


def large(fn):
    """Whether MPI_<Name>_f08(ts)_large is generated (MPI-4.0's large-count
    procedure, MPICH's name: a count of KIND=MPI_COUNT_KIND, a
    displacement of MPI_ADDRESS_KIND): in C only (fast_c_large), for a
    function whose C large-count entry point exists, that has a POLY
    parameter and whose every argument goes to C as it is (large_param)."""
    return fn.defines_large and any(large_kind(p) for p in visible(fn)) and \
        not (fn.returns or gen_f90.no_ierror(fn) or fn.fortran == 'special') and \
        all(p.in_fortran for p in fn.params) and \
        all(large_param(p) is not None for p in visible(fn))


def large_strings(fn):
    """A large-count procedure's input strings: gfortran passes each one's
    length after every other argument."""
    return [p for p in visible(fn) if p.kind == 'STRING']


def int_path(fn):
    """The int form's procedure a section goes to: the Fortran below the C
    fast path (section_name), or the whole Fortran one."""
    return (section_name(fn) if direct(fn) else f'PMPI_{specific(fn)}').lower() + '_'


# A per-rank array's len= (mpi_api.txt) as fort_f08.c's rch_f08_len
# measures it, for the section path of fast_c_large.
LEN_WHAT = {'comm_size': 0, 'remote_size': 1, 'indegree': 2, 'outdegree': 3}


def section_ints(fn, p):
    """The C converting a large-count array p to the default INTEGERs of the
    section path (rch_f08_ints): its length from the communicator, as
    gen_large.py's; only where it is read (a rooted collective's at the root,
    a send side's without MPI_IN_PLACE)."""
    what, _, arg = p.len.partition('(')
    if what not in LEN_WHAT:
        raise mpi_api.DescriptionError(f'{fn.name}: no length for {p.name} (len={p.len}) in its _large form')
    names = {q.name for q in fn.params}
    cond = []
    if 'root' in names:
        cond.append(f'rch_f08_at_root({arg[:-1]}, root)')
    if p.name in ('sendcounts', 'sdispls') and 'sendbuf' in names:
        cond.append('rch_gfc_buffer(sendbuf) != MPI_IN_PLACE')
    call = f'err = rch_f08_ints({p.name}, rch_f08_len({LEN_WHAT[what]}, {arg[:-1]}), &{p.name}_i);'
    return [f'        if ({" && ".join(["!err"] + cond)})', f'            {call}']


def section_large(fn, ps, test):
    """fast_c_large's path for a buffer that is not contiguous: the section
    path of the int form (section_name) with its counts as default
    INTEGERs when they fit; one that does not (no section path of that
    size) is MPI_ERR_COUNT, raised on the call's communicator or window
    (MPI_COMM_SELF for a call without one, as MPI-4.1 9.3 has it)."""
    kind, owner = error_owner(fn) or (1, '&f08_comm_self')
    poly = [p for p in ps if large_kind(p)]
    lines = [f'    if (RCH_UNLIKELY({test})) {{', '        MPI_Fint err = MPI_SUCCESS;']
    for p in poly:
        if p.is_array:
            lines.append(f'        MPI_Fint *{p.name}_i = NULL;')
        else:
            lines.append(f'        MPI_Fint {p.name}_i = ' + ('0;' if p.dir == 'out' else f'(MPI_Fint)*{p.name};'))
    for p in poly:
        if p.is_array:
            lines += section_ints(fn, p)
        elif p.dir != 'out':
            lines += [f'        if (*{p.name} != {p.name}_i)', '            err = MPI_ERR_COUNT;']
    args = [(f'{p.name}_i ? {p.name}_i : (MPI_Fint *){p.name}' if p.is_array else f'&{p.name}_i')
            if large_kind(p) else p.name for p in ps]
    lens = [f'{p.name}_len' for p in large_strings(fn)]
    lines += ['        if (!err) {',
              f'            {int_path(fn)}({", ".join(args + ["ierror"] + lens)});'] + \
        [f'            *{p.name} = {p.name}_i;' for p in poly if p.dir != 'in' and not p.is_array] + \
        ['        } else {',
         f'            rch_f08_raise({kind}, {owner}, &err);',
         '            if (ierror)',
         '                *ierror = err;',
         '        }'] + \
        [f'        free({p.name}_i);' for p in poly if p.is_array] + ['        return;', '    }']
    return lines


def section_c(fn, ps, test, call):
    """fast_c_large's path for a section given to a v-collective whose C
    MPI_<Name>_c is written by hand (large=defined): that too, with counts
    and displacements beyond an int kept, with each section as its address
    and a datatype stretched to its stride (rch_f08_gfc_buffer: a regular
    progression, else MPI_ERR_BUFFER), the counts and displacements per
    rank as they are. Not for a buffer with a datatype per rank (fast_c_large
    sends those the int form's way)."""
    kind, owner = error_owner(fn)
    lines = [f'    if (RCH_UNLIKELY({test})) {{', '        MPI_Fint err = MPI_SUCCESS;']
    convs, frees, names = [], [], {}
    pairs = buffer_pairs(fn)
    paired = set()
    for (_, d), bufs in pairs.items():
        dname = fn.params[d].name
        a = fn.params[bufs[0]].name
        b = fn.params[bufs[1]].name if len(bufs) > 1 else None
        lines.append(f'        MPI_Fint {dname}_c = *{dname};')
        names[dname] = f'(MPI_Datatype){dname}_c'
        for x in filter(None, (a, b)):
            lines.append(f'        void *{x}_c = NULL;')
            names[x] = f'{x}_c'
            paired.add(x)
        convs.append(f'rch_f08_gfc_buffer({a}, {b or "NULL"}, {dname}, &{a}_c, '
                     f'{"&" + b + "_c" if b else "NULL"}, &{dname}_c)')
        frees.append(f'        if ({dname}_c != *{dname})')
        frees.append(f'            rch_f08_type_free(&{dname}_c);')
    for c in convs:
        lines += [f'        if (!err)', f'            err = {c};']
    args = [names.get(p.name, a) for p, a in zip(ps, call)]
    lines += ['        if (!err)', f'            err = PMPI_{fn.name}_c({", ".join(args)});',
              '        else',
              f'            rch_f08_raise({kind}, {owner}, &err);'] + frees + \
        ['        if (ierror)', '            *ierror = err;', '        return;', '    }']
    return lines


def fast_c_large(fn):
    """PMPI_<Name>_f08(ts)_large (and MPI_, PMPIR_ aliases): C's
    PMPI_<Name>_c, a section through section_large."""
    ps = visible(fn)
    params = []
    for p, (d, a) in zip(ps, (large_param(p) for p in ps)):
        if large_kind(p) and p.is_array:
            d, a = f'{p.c_type(large=True)}{p.name}', p.name
        elif large_kind(p):
            ctype = 'MPI_Count' if large_kind(p) == 'MPI_COUNT_KIND' else 'MPI_Aint'
            const = 'const ' if p.dir == 'in' else ''
            d = f'{const}{ctype} *{p.name}'
            a = f'*{p.name}' if p.dir == 'in' else p.name
        params.append((d, a))
    strings = large_strings(fn)
    decls = ', '.join([d for d, _ in params] + ['MPI_Fint *ierror'] + [f'size_t {p.name}_len' for p in strings])
    link = f'pmpi_{specific(fn).lower()}_large_'
    call = f'PMPI_{fn.name}_c({", ".join(a for _, a in params)});'
    lines = [f'RCH_F_PUBLIC void {link}({decls})', '{']
    bufs = [p.name for p in ps if p.kind == 'BUFFER']
    if bufs and not direct(fn):   # its int form is Fortran only: declared here
        lines[:0] = [f'void {int_path(fn)}(' + ', '.join(
            ['MPI_Fint *' if large_kind(p) else d for p, (d, _) in zip(ps, params)] +
            ['MPI_Fint *ierror'] + [f'size_t {p.name}_len' for p in strings]) + ');']
    test = ' || '.join(f'!rch_gfc_contiguous({b})' for b in bufs)
    paired = {i for b in buffer_pairs(fn).values() for i in b}
    per_rank_types = any(p.kind == 'BUFFER' and i not in paired for i, p in enumerate(fn.params))
    # a buffer with a datatype per rank (the w forms) has no stride of its
    # own to stretch a datatype to: its section goes the int form's way,
    # which the other processes' _c calls match (MPI-4.1 matches by type
    # signature, not by binding: src/mpi/large_vcoll.c)
    if bufs and fn.large == 'defined' and any(large_kind(p) and p.is_array for p in ps) and not per_rank_types:
        lines += section_c(fn, ps, test, [a for _, a in params])
    elif bufs:
        lines += section_large(fn, ps, test)
    if strings:   # C's copies, freed after the call: no jump to C
        lines += [f'    char *{p.name}_c = rch_f_string_in({p.name}, {p.name}_len, {int(p.strip)});' for p in strings]
        ok = ' && '.join(f'{p.name}_c' for p in strings)
        lines += [f'    MPI_Fint err = {ok} ? {call[:-1]} : rch_f_nomem("MPI_{fn.name}");'] + \
            [f'    free({p.name}_c);' for p in strings] + ['    if (ierror)', '        *ierror = err;', '}']
    else:
        lines += ['    if (!ierror) {', f'        {call}', '        return;', '    }', f'    *ierror = {call}', '}']
    return lines + [f'RCH_F_PUBLIC void {prefix}_{specific(fn).lower()}_large_({decls}) '
                    f'__attribute__((weak, alias("{link}")));' for prefix in ('mpi', 'pmpir')]


def fast_c_file(fns, described):
    return ['/* Generated by src/binding/gen_f08.py from mpi_api.txt: the C fast path',
            ' * of module mpi_f08 (fast_c). Do not edit. */',
            '#include "base/base.h"', '#include "binding/fort_gfc.h"'] + \
        ['void rch_f08_raise(int kind, const MPI_Fint *handle, const MPI_Fint *err);',
         'MPI_Aint rch_f08_len(int what, const MPI_Fint *comm);',
         'int rch_f08_at_root(const MPI_Fint *comm, const MPI_Fint *root);',
         'int rch_f08_ints(const void *a, MPI_Aint n, MPI_Fint **out);',
         'int rch_f08_gfc_buffer(const struct rch_gfc_desc *a, const struct rch_gfc_desc *b,',
         '                       const MPI_Fint *datatype, void **addr_a, void **addr_b, MPI_Fint *datatype_c);',
         'void rch_f08_type_free(MPI_Fint *datatype);',
         'static const MPI_Fint f08_comm_self = (MPI_Fint)MPI_COMM_SELF;'] + hot_table() + \
        [line for fn in fns if direct(fn) for line in [''] + fast_c(fn)] + \
        [line for fn in fns if large(fn) for line in [''] + fast_c_large(fn)] + \
        [line for name, fn in large_of(described).items() if direct(fn)
         for line in [''] + fast_c(fn, f'{name.lower()}_f08_large_')]


def pmpi_body(fn):
    """PMPI_<Name>_f08 (or, below fast_c, section_name): the buffers'
    addresses, then the mpif.h binding."""
    name = section_name(fn) if direct(fn) else f'PMPI_{specific(fn)}'
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
    copy = copied(fn)
    pairs = {} if copy else buffer_pairs(fn)
    paired = {i for b in pairs.values() for i in b}
    conv, done, init = [], [], []
    for (c, d), bufs in pairs.items():
        d = fn.params[d].name
        names = [fn.params[i].name for i in bufs]
        # A v-collective's counts stay: its section must be a regular one,
        # whose stride the datatype takes (fort_f08.c, whole 0).
        n, w = (f'{fn.params[c].name}_c', whole(fn)) if c is not None else (f'{d}_n', 0)
        lines += [f'      integer :: {n}', f'      type(MPI_Datatype) :: {d}_c']
        init += ([f'      {n} = {fn.params[c].name}'] if c is not None else []) + [f'      {d}_c = {d}']
        helper = 'rch_f08_buffer' if len(bufs) == 1 else 'rch_f08_pair'
        count = fn.params[c].name if c is not None else '1'
        conv.append(f'{helper}({", ".join(names)}, {count}, {d}, {w}, '
                    f'{", ".join(n + "_c" for n in names)}, {n}, {d}_c)')
        done.append(f'      if ({d}_c%MPI_VAL /= {d}%MPI_VAL) call rch_f08_type_free({d}_c)')
    converted = {i for k in pairs for i in k if i is not None}
    for i, p in enumerate(fn.params):
        if not p.in_fortran:
            continue
        if p.kind == 'BUFFER':
            lines.append(f'      type(c_ptr) :: {p.name}_c')
            args.append(f'{p.name}_c')
            if copy:
                lines.append(f'      type(c_ptr) :: {p.name}_t')
                init.append(f'      {p.name}_t = c_null_ptr')
                conv.append(f'rch_f08_copy_in({p.name}, {p.name}_c, {p.name}_t)')
                back = 0 if p.dir == 'in' else 1
                done += gen_f90.wrap(f'      if (c_associated({p.name}_t)) '
                                     f'call rch_f08_copy_out({p.name}, {p.name}_t, {back})')
            elif i not in paired:
                conv.append(f'rch_f08_address({p.name}, {contents(fn)}, {p.name}_c)')
        else:
            args.append(f'{p.name}_c' if i in converted else p.name)
    if copy and conv:
        lines.insert(lines.index('      use mpi_f08_types') + 1,
                     '      use, intrinsic :: iso_c_binding, only: c_associated, c_null_ptr')
    if gen_f90.no_ierror(fn):
        return lines + [f'      call pmpi_{fn.name.lower()}({", ".join(args)})', end]
    lines.append('      integer :: ierror_c')
    lines += init
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
    name = f'PMPI_{specific(fn)}'
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


def mpi_body(fn, prefix='MPI'):
    """MPI_<Name>_f08: the profiling entry point calls PMPI_<Name>_f08.
    PMPIR_<Name>_f08 does the same: MPICH's module mpi_f08 binds the
    generic PMPI_<Name> to that name (its programs call
    pmpir_send_f08ts_)."""
    name = f'{prefix}_{specific(fn)}'
    first, end = head(fn, name)
    lines = gen_f90.wrap(first) + ['      use mpi_f08_types',
                                   f'      use mpi_f08, only: PMPI_{specific(fn)}',
                                   '      implicit none']
    lines += public_declarations(fn)
    args = [p.name for p in visible(fn)]
    if fn.returns:
        return lines + [f'      {name} = PMPI_{specific(fn)}({", ".join(args)})', end]
    if not gen_f90.no_ierror(fn):
        args.append('ierror')
    return lines + gen_f90.wrap(f'      call PMPI_{specific(fn)}({", ".join(args)})') + [end]


def sync_reg_interfaces():
    """MPI_F_sync_reg (Fortran only, MPI-3.1 17.1.7): an external procedure
    that may touch its argument, so the compiler keeps the buffer in memory
    across it. It does nothing."""
    lines = []
    for prefix in ('MPI', 'PMPI'):
        lines += [f'      interface {prefix}_F_sync_reg',
                  f'      subroutine {prefix}_F_sync_reg_f08ts(buf)',
                  '        type(*), dimension(..), asynchronous :: buf',
                  '      end subroutine',
                  '      end interface']
    return lines


def sync_reg_procedures():
    lines = ['', 'subroutine PMPI_F_sync_reg_f08ts(buf)',
             '      type(*), dimension(..), asynchronous :: buf',
             'end subroutine']
    for prefix in ('MPI', 'PMPIR'):
        lines += ['', f'subroutine {prefix}_F_sync_reg_f08ts(buf)',
                  '      use mpi_f08, only: PMPI_F_sync_reg_f08ts',
                  '      type(*), dimension(..), asynchronous :: buf',
                  '      call PMPI_F_sync_reg_f08ts(buf)',
                  'end subroutine']
    return lines


def main(desc, mpi_h, out, out_c):
    described = [f for f in mpi_api.load(desc) if not f.missing]
    fns = [f for f in described if bound(f)]
    lines = ['! module mpi_f08: rdmach\'s `use mpi_f08`.',
             '! Generated by src/binding/gen_f08.py from mpi_api.txt and include/mpi.h. Do not edit.']
    lines += type_module(mpi_h, described)
    lines += ['module mpi_f08', '      use mpi_f08_types', '      implicit none',
              '      private :: rch_f08_buffer, rch_f08_pair, rch_f08_address, rch_f08_raise, rch_f08_type_free',
             '      private :: rch_f08_copy_in, rch_f08_copy_out']
    lines += predefined_callbacks()
    for fn in fns:
        for prefix in ('MPI', 'PMPI'):
            lines.append(f'      interface {prefix}_{fn.name}')
            lines += specific_interface(fn, f'{prefix}_{specific(fn)}')
            if large(fn):
                lines += specific_interface(fn, f'{prefix}_{specific(fn)}_large', large=True)
            if fn.name in large_of(described):
                lines += specific_interface(large_of(described)[fn.name], f'{prefix}_{fn.name}_f08_large')
            lines.append('      end interface')
    lines += sync_reg_interfaces()
    lines.append('end module mpi_f08')
    lines += sync_reg_procedures()
    for fn in fns:
        fchoice = any(p.fchoice for p in fn.params)
        if not direct(fn):
            lines += [''] + (fchoice_body(fn) if fchoice else pmpi_body(fn)) + [''] + mpi_body(fn)
            lines += [''] + mpi_body(fn, 'PMPIR')
        elif any(p.kind == 'BUFFER' for p in fn.params):
            lines += [''] + pmpi_body(fn)
    with open(out, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    with open(out_c, 'w') as f:
        f.write('\n'.join(fast_c_file(fns, described)) + '\n')
    print(f'gen_f08.py: module mpi_f08, {len(fns)} functions')


if __name__ == '__main__':
    main(*sys.argv[1:])
