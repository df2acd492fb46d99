"""Compare the PARAMETERs of two mpif.h files: rdmach's and MPICH's.

    check_mpif.py <rdmach mpif.h> <MPICH mpif.h>

Every name both define must have the same value (a Fortran binary carries
these numbers), and every name MPICH defines rdmach must define too (the
MPI-IO ones included); MPI_VERSION/MPI_SUBVERSION may differ (rdmach says 4.1, MPICH 4.0.2 says 4.0).
"""
import re
import sys

MAY_DIFFER = {'MPI_VERSION', 'MPI_SUBVERSION'}


def parameters(path):
    text = open(path).read()
    raw = {}
    for m in re.finditer(r'^\s*PARAMETER\s*\((.*)\)\s*$', text, flags=re.I | re.M):
        for item in m.group(1).split(','):
            if '=' in item:
                name, value = item.split('=', 1)
                raw[name.strip().upper()] = value.strip()
    return raw


def value(raw, name, depth=0):
    v = raw[name].replace('(', '').replace(')', '').strip()
    if v.upper() in raw and depth < 8:
        return value(raw, v.upper(), depth + 1)
    if v.upper() in ('.TRUE.', '.FALSE.'):
        return v.upper()
    return eval(v, {})   # integer literals and "512-1" style expressions


def main(ours, theirs):
    a, b = parameters(ours), parameters(theirs)
    errors = 0
    for name in sorted(set(a) & set(b)):
        va, vb = value(a, name), value(b, name)
        if va != vb and name not in MAY_DIFFER:
            print(f'{name}: rdmach {va}, MPICH {vb}')
            errors += 1
    only = sorted(set(b) - set(a))
    print(f'{len(set(a) & set(b))} names compared, {errors} differ; only in MPICH: {" ".join(only)}')
    return 1 if errors or only else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
