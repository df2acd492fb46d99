"""Emit mpif.h, the Fortran include file, with MPICH's Fortran ABI.

    gen_mpif.py <include/mpi.h> <out mpif.h>

The constants are include/mpi.h's: every MPI_ name defined there with an
integer value (a literal, a handle cast, an enum member, or another such
name) but MPI_T's (C only; its MPI_T_ERR_* classes excepted) becomes an
INTEGER PARAMETER, so C and Fortran cannot disagree. The
standard makes a few differ in Fortran, as MPICH does: the predefined
attribute keys are the C value + 1 and the MPI_MAX_* string lengths one less
(Fortran strings carry no NUL). Names that only Fortran has are in
FORTRAN_ONLY below. The sentinels (MPI_BOTTOM, MPI_IN_PLACE,
MPI_STATUS(ES)_IGNORE, ...) are variables in MPICH's common blocks, whose
addresses the bindings (gen_f77.py) recognise.
"""
import re
import sys

FORTRAN_ONLY = [
    ('MPI_SOURCE', 'INTEGER', '3'), ('MPI_TAG', 'INTEGER', '4'), ('MPI_ERROR', 'INTEGER', '5'),
    ('MPI_STATUS_SIZE', 'INTEGER', '5'),
    ('MPI_ADDRESS_KIND', 'INTEGER', '8'), ('MPI_OFFSET_KIND', 'INTEGER', '8'),
    ('MPI_COUNT_KIND', 'INTEGER', '8'), ('MPI_INTEGER_KIND', 'INTEGER', '4'),
    ('MPI_SUBARRAYS_SUPPORTED', 'LOGICAL', '.FALSE.'),
    ('MPI_ASYNC_PROTECTS_NONBLOCKING', 'LOGICAL', '.FALSE.'),
]
# C-only names (the C view of Fortran statuses) and names that are not values.
C_ONLY = {'MPI_F_STATUS_SIZE', 'MPI_F_SOURCE', 'MPI_F_TAG', 'MPI_F_ERROR', 'MPI_INCLUDED',
          'MPI_FILE_DEFINED'}
# The predefined attribute callbacks, Fortran procedures (fort_special.c).
CALLBACK_EXTERNALS = ['MPI_COMM_NULL_COPY_FN', 'MPI_COMM_DUP_FN', 'MPI_COMM_NULL_DELETE_FN',
                      'MPI_WIN_NULL_COPY_FN', 'MPI_WIN_DUP_FN', 'MPI_WIN_NULL_DELETE_FN',
                      'MPI_TYPE_NULL_COPY_FN', 'MPI_TYPE_DUP_FN', 'MPI_TYPE_NULL_DELETE_FN',
                      'MPI_NULL_COPY_FN', 'MPI_DUP_FN', 'MPI_NULL_DELETE_FN']
ATTRIBUTE_KEYS = {'MPI_TAG_UB', 'MPI_HOST', 'MPI_IO', 'MPI_WTIME_IS_GLOBAL', 'MPI_UNIVERSE_SIZE',
                  'MPI_LASTUSEDCODE', 'MPI_APPNUM', 'MPI_WIN_BASE', 'MPI_WIN_SIZE',
                  'MPI_WIN_DISP_UNIT', 'MPI_WIN_CREATE_FLAVOR', 'MPI_WIN_MODEL'}

# The sentinels: (common block, its members with their declarations), as
# Debian MPICH 4.0.2's mpif.h lays them out (sizes 28, 24, 2, 4, 4 bytes);
# MPI 4.1's MPI_BUFFER_AUTOMATIC in a block of its own, /MPIFCMBa/, as
# MPICH 4.2's mpif.h has it (4 bytes), MPICH 4.0.2's blocks unchanged.
COMMONS = [
    ('MPIFCMB5', [('MPI_UNWEIGHTED', 'INTEGER MPI_UNWEIGHTED')]),
    ('MPIFCMB9', [('MPI_WEIGHTS_EMPTY', 'INTEGER MPI_WEIGHTS_EMPTY')]),
    ('MPIFCMBa', [('MPI_BUFFER_AUTOMATIC', 'INTEGER MPI_BUFFER_AUTOMATIC(1)')]),
    ('MPIPRIV1', [('MPI_BOTTOM', 'INTEGER MPI_BOTTOM'), ('MPI_IN_PLACE', 'INTEGER MPI_IN_PLACE'),
                  ('MPI_STATUS_IGNORE', 'INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)')]),
    ('MPIPRIV2', [('MPI_STATUSES_IGNORE', 'INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)'),
                  ('MPI_ERRCODES_IGNORE', 'INTEGER MPI_ERRCODES_IGNORE(1)')]),
    ('MPIPRIVC', [('MPI_ARGVS_NULL', 'CHARACTER*1 MPI_ARGVS_NULL(1,1)'),
                  ('MPI_ARGV_NULL', 'CHARACTER*1 MPI_ARGV_NULL(1)')]),
]


def _int32(v):
    v &= 0xffffffff
    return v - (1 << 32) if v >= 1 << 31 else v


def c_constants(mpi_h):
    """{name: int} for every MPI_ name mpi.h gives an integer value."""
    text = re.sub(r'/\*.*?\*/', '', open(mpi_h).read(), flags=re.S)
    raw = {}
    for m in re.finditer(r'^#define\s+(MPI_\w+)\s+(.+?)\s*$', text, flags=re.M):
        raw[m.group(1)] = m.group(2)
    for body in re.findall(r'\benum\b[^{]*\{(.*?)\}', text, flags=re.S):
        for m in re.finditer(r'(MPI_\w+)\s*=\s*(-?\w+)', body):
            raw[m.group(1)] = m.group(2)
    # MPI_T has no Fortran binding: its handles and enumerations stay C-only
    # (its error classes are error classes, and stay).
    raw = {k: v for k, v in raw.items() if not k.startswith('MPI_T_') or k.startswith('MPI_T_ERR_')}
    values = {}

    def value(name, depth=0):
        if name in values or depth > 8:
            return values.get(name)
        expr = raw.get(name, '')
        m = re.fullmatch(r'\(*\s*(?:\(\s*MPI_\w+\s*\))?\s*\(?\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*\)*', expr)
        if m:
            values[name] = _int32(int(m.group(1), 0))
        else:
            m = re.fullmatch(r'\(*\s*(?:\(\s*MPI_\w+\s*\))?\s*(MPI_\w+)\s*\)*', expr)
            if m and m.group(1) in raw:
                v = value(m.group(1), depth + 1)
                if v is not None:
                    values[name] = v
        return values.get(name)

    for name in raw:
        if name not in C_ONLY:
            value(name)
    return values


def fortran_constants(mpi_h):
    """[(name, Fortran type, value text)] in mpif.h's order."""
    out = list(FORTRAN_ONLY)
    for name, v in sorted(c_constants(mpi_h).items()):
        if name in ATTRIBUTE_KEYS:
            v += 1
        elif name.startswith('MPI_MAX_') and name != 'MPI_MAX':
            v -= 1
        ftype = 'INTEGER(KIND=MPI_OFFSET_KIND)' if name == 'MPI_DISPLACEMENT_CURRENT' else 'INTEGER'
        out.append((name, ftype, str(v)))
    return out


def declarations(mpi_h):
    """Constants and common blocks: the part of mpif.h module mpi shares."""
    lines = []
    for name, ftype, value in fortran_constants(mpi_h):
        lines.append(f'       {ftype} {name}')
        lines.append(f'       PARAMETER ({name}={value})')
    for block, members in COMMONS:
        for _, decl in members:
            lines.append(f'       {decl}')
        lines.append(f'       COMMON /{block}/ ' + ', '.join(m for m, _ in members))
        lines.append(f'       SAVE /{block}/')
    return lines


def main(mpi_h, out):
    lines = ['! mpif.h: rdmach\'s Fortran include file (MPICH\'s Fortran ABI).',
             '! Generated by src/binding/gen_mpif.py from include/mpi.h. Do not edit.',
             '! Fixed and free source form alike.']
    lines += declarations(mpi_h)
    for i in range(0, len(CALLBACK_EXTERNALS), 2):
        lines.append('       EXTERNAL ' + ', '.join(CALLBACK_EXTERNALS[i:i + 2]))
    lines += ['       EXTERNAL MPI_CONVERSION_FN_NULL',
              '       EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK',
              '       DOUBLE PRECISION MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK']
    too_long = [l for l in lines if len(l) > 72 and not l.startswith('!')]
    if too_long:
        sys.exit(f'gen_mpif.py: lines longer than fixed form allows: {too_long}')
    with open(out, 'w') as f:
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main(*sys.argv[1:])
