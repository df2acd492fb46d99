#!/bin/bash
# nwchem_check.sh RDMACHRUN NP INPUT [VAR=value ...]
#
# Debian's NWChem (nwchem-mpich: Global Arrays over ARMCI-MPI, MPI-3
# one-sided) run on rdmach through its MPICH ABI library, as a site runs it
# after swapping the MPI library: INPUT on NP ranks under rdmachrun (the
# test's environment points LD_LIBRARY_PATH at <build>/abi; VAR=value adds
# ARMCI settings), against the same binary on one process of Debian's MPICH,
# its own library. Every energy NWChem prints must agree within 1e-6
# Hartree, every frequency within 0.01 cm-1, and the run must end normally.
set -u
run=$1 np=$2 input=$3
shift 3
nw=$(command -v nwchem.mpich) || { echo "nwchem.mpich not found: install Debian's nwchem-mpich (scripts/install-deps)"; exit 1; }
mpiexec=$(command -v mpiexec.mpich) || { echo "mpiexec.mpich not found (Debian package mpich)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name=$(basename "$input")
mkdir "$work/ref" "$work/rdmach"
cp "$input" "$work/ref/"
cp "$input" "$work/rdmach/"

# What a job computes, a value a line: the energies ("E"), a frequency job's
# zero-point energy ("E", in au) and projected frequencies ("F", cm-1).
results() {
    awk '/^ *Total (SCF|DFT|MP2) energy|^ *CCSD total energy|^ *Total CCSD energy/ { print "E", $NF }
         /Zero-Point correction to Energy/ { print "E", $(NF - 1) }
         /^ *P.Frequency/ { for (i = 2; i <= NF; i++) print "F", $i }' "$1"
}

(cd "$work/ref" && env -u LD_LIBRARY_PATH -u LD_PRELOAD timeout 120 "$mpiexec" -n 1 "$nw" "$name" > out 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! grep -q 'Total times' "$work/ref/out"; then
    echo "the reference run (MPICH, 1 process) failed with code $rc:"
    tail -20 "$work/ref/out"
    exit 1
fi
(cd "$work/rdmach" && env "$@" timeout 120 "$run" -n "$np" "$nw" "$name" > out 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! grep -q 'Total times' "$work/rdmach/out"; then
    echo "nwchem $name on $np rdmach ranks failed with code $rc ($*):"
    tail -30 "$work/rdmach/out"
    exit 1
fi
ref=$(results "$work/ref/out")
got=$(results "$work/rdmach/out")
if [ -z "$ref" ]; then
    echo "the reference run printed no result"
    exit 1
fi
if [ "$(echo "$ref" | wc -l)" -ne "$(echo "$got" | wc -l)" ]; then
    echo "nwchem $name: $(echo "$got" | wc -l) results on rdmach, $(echo "$ref" | wc -l) in the reference"
    exit 1
fi
# energies within 1e-6 Hartree, frequencies within their printed 0.01 cm-1
if ! paste -d ' ' <(echo "$ref") <(echo "$got") | awk -v n="$name" -v p="$np" '
    { k++; d = $2 - $4; if (d < 0) d = -d; tol = $1 == "F" ? 0.011 : 1e-6
      if ($1 != $3 || d > tol) { bad++; print "result " k " (" $1 "): " $4 " against " $2 }
      if ($1 == "E" && d > m) m = d; if ($1 == "F") f++ }
    END { if (bad) exit 1
          printf "nwchem %s on %d ranks: %d energies and %d frequencies agree with one MPICH process " \
                 "(largest energy difference %.1e)\n", n, p, k - f, f, m }'; then
    echo "nwchem $name on $np rdmach ranks: results differ ($*)"
    exit 1
fi
grep -h 'Total times' "$work/rdmach/out"
