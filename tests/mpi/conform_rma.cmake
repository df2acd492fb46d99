# One-sided communication by the letter of the MPI standard (issue 20;
# included by tests/mpi/CMakeLists.txt): each program checks what a section
# of MPI-4.0 chapter 12 says, on shared memory at several sizes, across
# pretend nodes (RDMACH_VNODE_SIZE=1: every pair a tcp pair), over the
# network code paths on shared memory (RDMACH_RMA_PATH=rdma|am), and under
# Hydra (mpiexec.mpich).

find_program(RDMACH_CONF_RMA_HYDRA mpiexec.mpich)

# conf_rma(<program> <np> <suffix> [ENV <var=value>] [HYDRA] [ARGS ...]):
# test <program>_np<np><suffix>; HYDRA launches it with mpiexec.mpich.
function(conf_rma prog np sfx)
  cmake_parse_arguments(T "HYDRA" "ENV" "ARGS" ${ARGN})
  set(name ${prog}_np${np}${sfx})
  if(T_HYDRA)
    if(NOT RDMACH_CONF_RMA_HYDRA)
      return()
    endif()
    if(NOT TARGET ${prog})
      rdmach_program(${prog} ${prog}.c)
    endif()
    add_test(NAME ${name} COMMAND ${RDMACH_CONF_RMA_HYDRA} -n ${np} $<TARGET_FILE:${prog}> ${T_ARGS})
    set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS "mp")
  else()
    rdmach_mpi_test(${prog} NP ${np} TEST ${name} TIMEOUT 60 ARGS ${T_ARGS})
  endif()
  if(T_ENV)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${T_ENV}")
  endif()
endfunction()

set(tcp ENV RDMACH_VNODE_SIZE=1)

# Dynamic windows: attach orders, detach and attach again inside an epoch,
# flush between put and get, more regions than the node table holds.
foreach(np 1 2 3 4 8)
  conf_rma(test_conf_rma_dynamic ${np} "")
endforeach()
foreach(np 2 4)
  conf_rma(test_conf_rma_dynamic ${np} _tcp ${tcp})
endforeach()
conf_rma(test_conf_rma_dynamic 3 _regions70 ARGS 70)
conf_rma(test_conf_rma_dynamic 3 _regions70_am ENV RDMACH_RMA_PATH=am ARGS 70)

# Win_allocate_shared, contiguous and alloc_shared_noncontig; shared_query.
foreach(np 1 2 3 4 8)
  conf_rma(test_conf_rma_shared ${np} "")
endforeach()
conf_rma(test_conf_rma_shared 3 _hydra HYDRA)
# shared_query of Win_allocate memory on another (pretend) node, and with
# no node segment for Win_allocate (RDMACH_RMA_PATH=am): size 0, NULL
conf_rma(test_conf_rma_shared 4 _vnode2 ENV RDMACH_VNODE_SIZE=2)
conf_rma(test_conf_rma_shared 2 _am ENV RDMACH_RMA_PATH=am)

# Derived-datatype put/get/accumulate/get_accumulate in fence, PSCW and
# lock_all epochs, and large accumulates with flush_local, on Win_allocate
# (load/store within a node) and Win_create (single copy and packets) windows.
# 1 M ints (512 K over tcp): one operation per 4-byte block (before the V
# packets) took minutes here; the 16 M figures against MPICH come from
# bench/rma_dtype.sh.
foreach(np 1 2 3 4)
  foreach(flavor allocate create)
    conf_rma(test_conf_rma_dtype ${np} _${flavor} ARGS 1048576 1 ${flavor})
  endforeach()
endforeach()
conf_rma(test_conf_rma_dtype 8 "" ARGS 65536 1 create)
foreach(np 2 3)
  conf_rma(test_conf_rma_dtype ${np} _dynamic ARGS 1048576 1 dynamic)
endforeach()
conf_rma(test_conf_rma_dtype 3 _dynamic_am ENV RDMACH_RMA_PATH=am ARGS 1048576 1 dynamic)
conf_rma(test_conf_rma_dtype 2 _dynamic_tcp ${tcp} ARGS 524288 1 dynamic)
foreach(path rdma am)
  conf_rma(test_conf_rma_dtype 3 _${path} ENV RDMACH_RMA_PATH=${path} ARGS 1048576 1 allocate)
endforeach()
foreach(np 2 4)
  foreach(flavor allocate create)
    conf_rma(test_conf_rma_dtype ${np} _${flavor}_tcp ${tcp} ARGS 524288 1 ${flavor})
  endforeach()
endforeach()
conf_rma(test_conf_rma_dtype 2 _hydra HYDRA ARGS 1048576 1 create)

# The accumulate family and compare-and-swap on every predefined type and
# operation (allowed pairs computed like MPI_Reduce_local, the others
# refused), on every kind of window and path.
foreach(flavor allocate create dynamic)
  foreach(np 1 2 3)
    conf_rma(test_conf_rma_atomics ${np} _${flavor} ARGS ${flavor})
  endforeach()
  conf_rma(test_conf_rma_atomics 2 _${flavor}_tcp ${tcp} ARGS ${flavor})
endforeach()
foreach(path rdma am)
  conf_rma(test_conf_rma_atomics 2 _${path} ENV RDMACH_RMA_PATH=${path} ARGS create)
endforeach()
conf_rma(test_conf_rma_atomics 8 "" ARGS allocate)

# Every exported one-sided call: attributes, info, MPI_PROC_NULL, zero
# counts, request forms, lock_all/sync/flush_all, MPI_Win_test, error classes.
foreach(np 1 2 3 4 8)
  conf_rma(test_conf_rma_calls ${np} "")
endforeach()
foreach(np 2 4)
  conf_rma(test_conf_rma_calls ${np} _tcp ${tcp})
endforeach()
foreach(path rdma am)
  conf_rma(test_conf_rma_calls 3 _${path} ENV RDMACH_RMA_PATH=${path})
endforeach()
conf_rma(test_conf_rma_calls 4 _hydra HYDRA)

# Origin and result buffers at MPI_BOTTOM (datatypes of absolute addresses,
# as ARMCI-MPI's IOV transfers make them): every operation and request form
# on both window flavors; the matrix (conform_matrix.cmake) adds 1-8 ranks,
# tcp and Hydra, these the network code paths on shared memory.
foreach(path rdma am)
  conf_rma(test_conf_rma_bottom 3 _${path} ENV RDMACH_RMA_PATH=${path})
endforeach()

# Passive-target progress while the target polls its own window (lock,
# sync and fetch polls): across pretend nodes, where the others' locks and
# accumulates are packets, and on the packet path within a node.
foreach(np 2 4)
  conf_rma(test_conf_rma_poll ${np} _tcp ${tcp})
endforeach()
conf_rma(test_conf_rma_poll 3 _am ENV RDMACH_RMA_PATH=am)
conf_rma(test_conf_rma_poll 3 "")
