#!/bin/bash
# install_check.sh <case> <build dir> <work dir> <source dir>: rdmach installed
# as a user installs it, then moved, then used as users use an MPI.
#   setup       cmake --install into <work>/staging, moved to <work>/moved; no
#               file of the moved tree may name the staging prefix
#   wrappers    mpicc / mpif90 from the moved tree build hello (in Fortran
#               with `use mpi` and `use mpi_f08`), which mpiexec / mpirun
#               run; the -showme answers name the moved tree
#   pkgconfig   cc $(pkg-config --cflags --libs rdmach)
#   findmpi-path, findmpi-compiler   CMake's FindMPI with the moved wrappers
#               first on PATH (C and Fortran) / mpicc named by MPI_C_COMPILER
#   find-rdmach find_package(rdmach) with CMAKE_PREFIX_PATH
#   makefile    make CC=mpicc
#   destdir     DESTDIR staging of a /opt prefix, used where it is staged
#   autotools   autoconf with the Autoconf Archive's AX_MPI, mpicc first on PATH
#   debs        scripts/make-debs; the packages unpacked into a scratch root whose
#               maintainer scripts run there (DPKG_ROOT): the mpi and mpirun
#               alternatives then lead to rdmach's mpicc and mpiexec, which build
#               and run hello; removal takes rdmach out of both
#   lintian     lintian finds no error in those packages
#   debs-system issue 28's acceptance on this machine without changing it: in a
#               private mount namespace whose /usr, /etc and /var are overlays,
#               dpkg -i the packages beside Debian's MPICH and Open MPI,
#               update-alternatives --set mpi and mpirun to rdmach, then plain
#               mpicc and mpiexec build and run hello; dpkg -r takes rdmach out
#               (needs root and unshare -m; else skipped, exit 77)
# hello prints "hello: rank n-1 of n, sum n(n-1)/2"; each case checks that line
# for its n, and fails at the first command that fails or line that is missing.
set -eu
case_=$1 build=$2 work=$3 src=$4
moved=$work/moved
bin=$moved/bin

fail() { echo "install_check $case_: FAILED: $*"; exit 1; }
# expect REGEX COMMAND...: run it, show its output, require a line matching REGEX
expect() {
    local re=$1 out
    shift
    local rc=0
    out=$("$@" 2>&1) || rc=$?
    echo "$out"
    [ $rc = 0 ] || fail "$* exited $rc"
    grep -Eq -- "$re" <<<"$out" || fail "no line of '$*' matches '$re'"
}
hello_re() { echo "^hello: rank $(($1 - 1)) of $1, sum $(($1 * ($1 - 1) / 2))(, MPI 4\\.1, library rdmach)?\$"; }
# a directory of its own for each case (ctest may run them in parallel)
scratch() { rm -rf "$work/$case_"; mkdir -p "$work/$case_"; cd "$work/$case_"; }

case $case_ in
setup)
    rm -rf "$work"
    mkdir -p "$work"
    cmake --install "$build" --prefix "$work/staging" >"$work/install.log"
    mv "$work/staging" "$moved"
    if grep -rlI -- "$work/staging" "$moved"; then fail "these files name the prefix the tree was installed in"; fi
    for f in mpicc mpicxx mpif90 mpifort mpif77 mpiexec mpirun rdmachrun rdmach-info; do
        [ -x "$bin/$f" ] || fail "$bin/$f is missing"
    done
    expect "^  install prefix    $moved\$" "$bin/rdmach-info"
    # man pages: every page renders without a warning; rdmach(7) lists every tunable
    for page in man1/rdmachrun.1 man1/mpiexec.1 man1/rdmach-mpicc.1 man1/mpicc.1 man1/mpif90.1 \
                man1/rdmach-info.1 man1/rdmach-tune.1 man7/rdmach.7; do
        [ -f "$moved/share/man/$page" ] || fail "no man page $page"
    done
    warnings=$(cd "$moved/share/man" && groff -man -ww -z -Tutf8 man1/rdmachrun.1 man1/rdmach-mpicc.1 \
               man1/rdmach-info.1 man1/rdmach-tune.1 man7/rdmach.7 2>&1)
    [ -z "$warnings" ] || fail "groff: $warnings"
    tunables=$(env $(env | sed -n 's/^\(RDMACH_[A-Z0-9_]*\)=.*/-u \1/p') "$bin/rdmach-info" --tunables | grep -c "^  RDMACH_")
    in_page=$(grep -c "^\.B RDMACH_" "$moved/share/man/man7/rdmach.7")
    [ "$tunables" -gt 10 ] && [ "$tunables" = "$in_page" ] || fail "rdmach.7 lists $in_page of $tunables tunables"
    ;;
wrappers)
    scratch
    expect "^$moved/include\$" "$bin/mpicc" -showme:incdirs
    expect "^-L$moved/lib -Wl,-rpath,$moved/lib -lrdmach\$" "$bin/mpicc" -showme:link
    expect "^-I/elsewhere/include\$" env RDMACH_PREFIX=/elsewhere "$bin/mpicc" -showme:compile
    expect "^gcc -I$moved/include -L" env RDMACH_CC=gcc "$bin/mpicc" -show
    expect "^clang -I" env RDMACH_CC=gcc "$bin/mpicc" -cc=clang -show
    expect "^rdmach-mpicc: rdmach [0-9.]+, MPI 4\\.1" "$bin/mpicc" -showme:version
    expect "^  -showme:compile  " "$bin/mpicc" -showme:help
    expect "^rdmach" "$bin/mpicc" -showme:libs
    expect "^$moved/lib\$" "$bin/mpif90" -showme:libdirs
    expect "^-L$moved/lib -Wl,-rpath,$moved/lib -lrdmachfort -lrdmach\$" "$bin/mpif90" -showme:link
    expect "^(/usr/bin/)?g?cc -I$moved/include x\\.c\$" "$bin/mpicc" -compile_info x.c
    out=$("$bin/mpicc" -showme:bogus 2>&1) && fail "-showme:bogus succeeded"
    grep -q "^rdmach-mpicc: unknown option -showme:bogus" <<<"$out" || fail "-showme:bogus: $out"
    "$bin/mpicc" -O2 -o hello "$src/hello.c"
    expect "$(hello_re 4)" "$bin/mpiexec" -n 4 ./hello
    "$bin/mpicxx" -x c++ -o hello_cxx "$src/hello.c"
    expect "$(hello_re 2)" "$bin/mpirun" -np 2 ./hello_cxx
    "$bin/mpif90" -o hello_f "$src/hello.f90"
    expect "$(hello_re 3)" "$bin/mpirun" -np 3 ./hello_f
    "$bin/mpif90" -o hello_f08 "$src/hello_f08.f90"
    expect "$(hello_re 2)" "$bin/mpirun" -np 2 ./hello_f08
    ;;
pkgconfig)
    scratch
    export PKG_CONFIG_PATH=$moved/lib/pkgconfig
    expect "^-I$moved/lib/pkgconfig/../../include -L$moved/lib/pkgconfig/../../lib -lrdmach *\$" \
        pkg-config --cflags --libs rdmach
    # shellcheck disable=SC2046
    cc -o hello "$src/hello.c" $(pkg-config --cflags --libs rdmach)
    expect "$(hello_re 2)" env LD_LIBRARY_PATH="$moved/lib" "$bin/mpiexec" -n 2 ./hello
    ;;
findmpi-path|findmpi-compiler)
    # C and Fortran found on PATH; C alone when named (each FindMPI run is slow)
    scratch
    langs=(C Fortran)
    if [ "$case_" = findmpi-path ]; then
        export PATH=$bin:$PATH
        args=(-DWITH_FORTRAN=ON)
    else
        langs=(C)
        args=(-DMPI_C_COMPILER="$bin/mpicc" -DMPIEXEC_EXECUTABLE="$bin/mpiexec")
    fi
    out=$(cmake -S "$src/findmpi" -B b -DSRC="$src" "${args[@]}" 2>&1) || { echo "$out"; fail "cmake"; }
    echo "$out"
    res=("MPIEXEC_EXECUTABLE $bin/mpiexec\$" "MPI_C_COMPILER $bin/mpicc\$" "MPI_C_VERSION 4\\.1\$"
         "MPI_C_LIBRARIES $moved/lib/librdmach.so\$")
    [ ${#langs[@]} = 1 ] || res+=("MPI_Fortran_COMPILER $bin/mpif90\$" "MPI_Fortran_VERSION 4\\.1\$"
                                  "MPI_Fortran_LIBRARIES $moved/lib/librdmachfort.so[[:punct:]]$moved/lib/librdmach.so\$")
    for re in "${res[@]}"; do
        grep -Eq -- "-- $re" <<<"$out" || fail "FindMPI did not report '$re'"
    done
    cmake --build b >/dev/null
    expect "$(hello_re 4)" "$bin/mpiexec" -n 4 b/hello
    [ ${#langs[@]} = 1 ] || expect "$(hello_re 2)" "$bin/mpiexec" -n 2 b/hello_f
    ;;
find-rdmach)
    scratch
    expect "rdmach_DIR $moved/lib/cmake/rdmach\$" cmake -S "$src/findrdmach" -B b -DSRC="$src" \
        -DCMAKE_PREFIX_PATH="$moved"
    cmake --build b >/dev/null
    expect "$(hello_re 3)" "$bin/mpiexec" -n 3 b/hello
    expect "$(hello_re 2)" "$bin/mpiexec" -n 2 b/hello_f
    ;;
makefile)
    scratch
    make -f "$src/Makefile.user" CC="$bin/mpicc" SRC="$src" >/dev/null
    expect "$(hello_re 4)" "$bin/mpiexec" -n 4 ./hello
    ;;
destdir)
    scratch
    DESTDIR=$PWD/root cmake --install "$build" --prefix /opt/rdmach >/dev/null
    staged=$PWD/root/opt/rdmach
    [ "$(readlink "$staged/bin/mpiexec")" = rdmachrun ] || fail "bin/mpiexec is not a symlink to rdmachrun"
    [ "$(readlink "$staged/lib/rdmach/mpich-abi/libmpi.so.12")" = libmpich.so.12 ] || fail "no libmpi.so.12 symlink"
    ! grep -rlI -- "$PWD/root" "$staged" || fail "these files name the DESTDIR"
    expect "^$staged/include\$" "$staged/bin/mpicc" -showme:incdirs
    "$staged/bin/mpicc" -o hello "$src/hello.c"
    expect "$(hello_re 2)" "$staged/bin/mpiexec" -n 2 ./hello
    ;;
autotools)
    scratch
    cp "$src/autotools/configure.ac" "$src/autotools/Makefile.in" "$src/hello.c" .
    autoreconf -i >/dev/null 2>&1 || fail "autoreconf (is autoconf-archive, with ax_mpi.m4, installed?)"
    export PATH=$bin:$PATH
    expect "^checking for mpicc\\.\\.\\. mpicc\$" ./configure
    grep -q "^CC = mpicc\$" Makefile || fail "configure did not set CC to mpicc"
    make >/dev/null
    expect "$(hello_re 3)" "$bin/mpiexec" -n 3 ./hello
    ;;
debs)
    scratch
    "$src/../../scripts/make-debs" "$build" debs >/dev/null
    export DPKG_ROOT=$PWD/root
    ma=$(gcc -print-multiarch)
    # what a Debian system has where the alternatives make their links
    mkdir -p root/etc/alternatives root/var/lib/dpkg/alternatives root/usr/bin root/usr/include/$ma \
             root/usr/lib/$ma/pkgconfig
    for pkg in rdmach librdmach-dev rdmach-mpich-abi; do
        dpkg-deb -x debs/${pkg}_*.deb root
        dpkg-deb -e debs/${pkg}_*.deb "ctl-$pkg"
        [ ! -x "ctl-$pkg/postinst" ] || "ctl-$pkg/postinst" configure
    done
    prefix=/usr/lib/$ma/rdmach
    expect "^$prefix/bin/mpicc - priority 35\$" update-alternatives --display mpi
    expect "^$prefix/bin/mpirun - priority 35\$" update-alternatives --display mpirun
    expect "^  slave mpiexec: $prefix/bin/mpiexec\$" update-alternatives --display mpirun
    update-alternatives --set mpi "$prefix/bin/mpicc" >/dev/null
    # the links are absolute inside the root: follow them there
    inroot() {
        local f=$DPKG_ROOT$1 t
        while [ -L "$f" ]; do
            t=$(readlink "$f")
            case $t in /*) f=$DPKG_ROOT$t ;; *) f=$(dirname "$f")/$t ;; esac
        done
        echo "$f"
    }
    mpicc=$(inroot /usr/bin/mpicc) mpiexec=$(inroot /usr/bin/mpiexec)
    [ "$mpicc" = "$DPKG_ROOT$prefix/bin/mpicc" ] || fail "/usr/bin/mpicc leads to $mpicc"
    expect "^-I$DPKG_ROOT$prefix/include\$" "$mpicc" -showme:compile
    "$mpicc" -o hello "$src/hello.c"
    expect "$(hello_re 3)" "$mpiexec" -n 3 ./hello
    [ "$(inroot /usr/lib/$ma/libmpi.so)" = "$DPKG_ROOT$prefix/lib/librdmach.so.0.1.0" ] ||
        fail "libmpi.so does not lead to librdmach"
    "ctl-librdmach-dev/prerm" remove
    "ctl-rdmach/prerm" remove
    ! update-alternatives --query mpi >/dev/null 2>&1 || fail "rdmach is still in the mpi alternative"
    ! update-alternatives --query mpirun >/dev/null 2>&1 || fail "rdmach is still in the mpirun alternative"
    ;;
debs-system)
    if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
        echo "install_check $case_: skipped: needs root and unshare -m"
        exit 77
    fi
    scratch
    exec unshare -m "$0" debs-system-inside "$build" "$work" "$src"
    ;;
debs-system-inside)
    cd "$work/debs-system"
    for d in usr etc var; do
        mkdir -p "ov/$d.up" "ov/$d.work"
        mount -t overlay overlay -o "lowerdir=/$d,upperdir=$PWD/ov/$d.up,workdir=$PWD/ov/$d.work" "/$d"
    done
    prefix=/usr/lib/$(gcc -print-multiarch)/rdmach
    # (man-db's and ldconfig's triggers are left for another day: nothing here needs them)
    dpkg -i --no-triggers "$work/debs/debs/"*.deb >dpkg.log 2>&1 || { cat dpkg.log; fail "dpkg -i"; }
    expect "^$prefix/bin/mpicc - priority 35\$" update-alternatives --display mpi
    update-alternatives --set mpi "$prefix/bin/mpicc"
    update-alternatives --set mpirun "$prefix/bin/mpirun"
    export PATH=/usr/sbin:/usr/bin:/sbin:/bin
    expect "^$prefix/include\$" mpicc -showme:incdirs
    mpicc -o hello "$src/hello.c"
    expect "$(hello_re 4)" mpiexec -n 4 ./hello
    mpif90 -o hello_f "$src/hello.f90"
    expect "$(hello_re 2)" mpirun -np 2 ./hello_f
    dpkg -r --no-triggers rdmach-mpich-abi librdmach-dev rdmach >>dpkg.log 2>&1 || { cat dpkg.log; fail "dpkg -r"; }
    ! update-alternatives --display mpi | grep -F "$prefix" || fail "rdmach is still in the mpi alternative"
    ! update-alternatives --display mpirun | grep -F "$prefix" || fail "rdmach is still in the mpirun alternative"
    ;;
lintian)
    # the packages the debs case made
    lintian --fail-on error "$work/debs/debs/"*.deb || fail "lintian reports errors"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "install_check ${case_%-inside}: ok"
