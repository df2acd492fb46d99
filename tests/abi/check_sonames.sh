#!/bin/sh
# check_sonames.sh <abi dir>: the MPICH ABI libraries are in place and whole.
#   libmpich.so.12 has SONAME libmpich.so.12; libmpi.so.12 is the same file;
#   no MPI, PMPI or rdmach-internal symbol is left undefined (a reference
#   that would only fail when called); the symbols MPICH's mpi.h makes
#   programs reference by name are exported.
dir=$1
lib=$dir/libmpich.so.12
fail=0
err() { echo "check_sonames: $*" >&2; fail=1; }

[ -f "$lib" ] || { echo "check_sonames: $lib does not exist" >&2; exit 1; }
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libmpich.so.12 ] || err "SONAME of $lib is '$soname', expected libmpich.so.12"
[ -e "$dir/libmpi.so.12" ] || err "$dir/libmpi.so.12 is missing"
[ "$(readlink -f "$dir/libmpi.so.12")" = "$(readlink -f "$lib")" ] ||
    err "libmpi.so.12 is not the same file as libmpich.so.12"
undef=$(nm -D --undefined-only "$lib" | awk '{print $NF}' | grep -E '^(MPI_|PMPI_|MPIX_|MPIR_|rch_|rdmach_)')
[ -z "$undef" ] || err "undefined in $lib: $undef"
for sym in MPI_Init PMPI_Init MPI_Send PMPI_Send MPI_Wtime MPI_UNWEIGHTED MPI_WEIGHTS_EMPTY MPIR_Dup_fn \
           MPI_F_STATUS_IGNORE MPI_F_STATUSES_IGNORE MPIR_F08_MPI_IN_PLACE MPI_Get_library_version; do
    nm -D --defined-only "$lib" | awk '{print $NF}' | grep -qx "$sym" || err "$lib does not export $sym"
done
[ "$fail" = 0 ] && echo "check_sonames: $lib (SONAME $soname) and libmpi.so.12 are in place"
exit $fail
