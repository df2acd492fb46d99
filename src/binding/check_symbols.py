"""Check that a library defines exactly the MPI functions mpi_api.txt says it does.

    check_symbols.py <mpi_api.txt> <libmpich.so.12>

Every function not marked missing must be defined as MPI_<name> and
PMPI_<name>, and as MPI_<name>_c and PMPI_<name>_c where marked large=defined or
generated; every function the library defines as MPI_* must be described
(an MPI_<name>_c as such a <name>), and not marked missing. (Data symbols, MPI_UNWEIGHTED and the like, are not
functions and are not checked here.)
"""
import subprocess
import sys

import mpi_api


def defined_functions(lib):
    out = subprocess.run(['nm', '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    return {w[2] for w in (l.split() for l in out.splitlines())
            if len(w) == 3 and w[1] in 'TtWi'}


def main(desc, lib):
    fns = mpi_api.load(desc)
    have = defined_functions(lib)
    errors = []
    described = {name for f in fns for name in f.c_names}
    for fn in fns:
        for name in fn.c_names:
            if fn.missing and name in have:
                errors.append(f'{name} is defined by {lib} but marked missing in {desc}')
            if not fn.missing and name not in have:
                errors.append(f'{name} is described in {desc} but not defined by {lib}')
    for name in sorted(have):
        base = name[1:] if name.startswith('PMPI_') else name
        if base.startswith('MPI_') and name not in described:
            errors.append(f'{name} is defined by {lib} but not described in {desc}')
    for e in errors:
        print(e)
    n = sum(not f.missing for f in fns)
    large = sum(not f.missing and f.defines_large for f in fns)
    print(f'{n} functions defined as MPI_ and PMPI_ (and {large} as _c too), '
          f'{len(fns) - n} described as missing, {len(errors)} mismatches')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
