#!/bin/sh
# mpicc_check.sh <rdmach-mpicc|rdmach-mpicxx> <source> <output> <rdmachrun>: the wrapper
# prints its command with -show (-compile_info without the library,
# -link_info with it), compiles (-c) and links a program, which
# then runs on 2 ranks and as a singleton.
set -e
mpicc=$1 src=$2 out=$3 run=$4
"$mpicc" -show -o "$out" "$src" | grep -q -- "-lrdmach"
"$mpicc" -show -c "$src" | grep -vq -- "-lrdmach"
"$mpicc" -compile_info "$src" | grep -vq -- "-lrdmach"
"$mpicc" -link_info "$src" | grep -q -- "-lrdmach"
"$mpicc" -O2 -Wall -c "$src" -o "$out.o"
"$mpicc" -o "$out" "$out.o"
"$out"
"$run" -n 2 "$out"
echo "mpicc_check: ok"
