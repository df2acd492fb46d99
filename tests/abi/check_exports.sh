#!/bin/bash
# check_exports.sh <library>...: the libraries define (export) no function
# of the C library's allocator or memory mapping (STYLE.md rule 12): a
# definition there would replace the program's own — its sanitizer's, its
# LD_PRELOADed allocator's — for the whole process. The registration cache
# watches memory by rewriting relocations instead (src/rdma/net/net_memhook.c).
set -u
forbidden='malloc calloc realloc reallocarray free cfree memalign posix_memalign aligned_alloc valloc pvalloc
malloc_usable_size malloc_trim mallopt mmap mmap64 munmap mremap madvise posix_madvise mprotect brk sbrk
shmat shmdt dlopen dlclose __libc_malloc __libc_free __libc_calloc __libc_realloc __libc_memalign'
status=0
for lib in "$@"; do
  syms=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//') || { echo "FAIL: nm $lib"; exit 1; }
  [ -n "$syms" ] || { echo "FAIL: $lib exports nothing (not the library?)"; exit 1; }
  n=$(wc -l <<<"$syms")
  bad=$(for f in $forbidden; do grep -qx -- "$f" <<<"$syms" && echo "$f"; done)
  if [ -n "$bad" ]; then
    echo "FAIL: $lib exports $(echo $bad | tr ' ' ',')"
    status=1
  else
    echo "ok: $lib: $n exported symbols, none of the allocator/mapping functions"
  fi
done
exit $status
