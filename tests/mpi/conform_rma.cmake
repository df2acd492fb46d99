# One-sided communication by the letter of the MPI standard (issue 20;
# included by tests/mpi/CMakeLists.txt): each program checks what a section
# of MPI-4.0 chapter 12 says, on shared memory at several sizes and across
# pretend nodes (RDMACH_VNODE_SIZE=1: every pair a tcp pair).

foreach(np 1 2 3 4 8)
  rdmach_mpi_test(test_conf_rma_dynamic NP ${np} TEST test_conf_rma_dynamic_np${np} TIMEOUT 60)
endforeach()
foreach(np 2 4)
  rdmach_mpi_test(test_conf_rma_dynamic NP ${np} TEST test_conf_rma_dynamic_np${np}_tcp TIMEOUT 60)
  set_tests_properties(test_conf_rma_dynamic_np${np}_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()

foreach(np 1 2 3 4 8)
  rdmach_mpi_test(test_conf_rma_shared NP ${np} TEST test_conf_rma_shared_np${np} TIMEOUT 60)
endforeach()

# Derived-datatype put/get/accumulate/get_accumulate in fence, PSCW and
# lock_all epochs, and large accumulates with flush_local, on Win_allocate
# (load/store within a node) and Win_create (single copy and packets) windows.
# 1 M ints (512 K over tcp): one operation per 4-byte block (before the V packets) took
# minutes here; the 16 M figures against MPICH come from bench/rma_dtype.sh.
foreach(np 1 2 3 4)
  foreach(flavor allocate create)
    rdmach_mpi_test(test_conf_rma_dtype NP ${np} TEST test_conf_rma_dtype_np${np}_${flavor} TIMEOUT 60
                    ARGS 1048576 1 ${flavor})
  endforeach()
endforeach()
rdmach_mpi_test(test_conf_rma_dtype NP 8 TEST test_conf_rma_dtype_np8 TIMEOUT 60 ARGS 65536 1 create)
foreach(path rdma am)
  rdmach_mpi_test(test_conf_rma_dtype NP 3 TEST test_conf_rma_dtype_np3_${path} TIMEOUT 60 ARGS 1048576 1 allocate)
  set_tests_properties(test_conf_rma_dtype_np3_${path} PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=${path}")
endforeach()
foreach(np 2 4)
  foreach(flavor allocate create)
    set(t test_conf_rma_dtype_np${np}_${flavor}_tcp)
    rdmach_mpi_test(test_conf_rma_dtype NP ${np} TEST ${t} TIMEOUT 60 ARGS 524288 1 ${flavor})
    set_tests_properties(${t} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
  endforeach()
endforeach()

# The accumulate family and compare-and-swap on every predefined type and
# operation (allowed pairs computed like MPI_Reduce_local, the others
# refused), on every kind of window and path.
foreach(flavor allocate create dynamic)
  foreach(np 1 2 3)
    rdmach_mpi_test(test_conf_rma_atomics NP ${np} TEST test_conf_rma_atomics_np${np}_${flavor} TIMEOUT 60
                    ARGS ${flavor})
  endforeach()
  set(t test_conf_rma_atomics_np2_${flavor}_tcp)
  rdmach_mpi_test(test_conf_rma_atomics NP 2 TEST ${t} TIMEOUT 60 ARGS ${flavor})
  set_tests_properties(${t} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
foreach(path rdma am)
  rdmach_mpi_test(test_conf_rma_atomics NP 2 TEST test_conf_rma_atomics_np2_${path} TIMEOUT 60 ARGS create)
  set_tests_properties(test_conf_rma_atomics_np2_${path} PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=${path}")
endforeach()
rdmach_mpi_test(test_conf_rma_atomics NP 8 TEST test_conf_rma_atomics_np8 TIMEOUT 60 ARGS allocate)

# Every exported one-sided call: attributes, info, MPI_PROC_NULL, zero
# counts, request forms, lock_all/sync/flush_all, MPI_Win_test, error classes.
foreach(np 1 2 3 4 8)
  rdmach_mpi_test(test_conf_rma_calls NP ${np} TEST test_conf_rma_calls_np${np} TIMEOUT 60)
endforeach()
foreach(np 2 4)
  rdmach_mpi_test(test_conf_rma_calls NP ${np} TEST test_conf_rma_calls_np${np}_tcp TIMEOUT 60)
  set_tests_properties(test_conf_rma_calls_np${np}_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
foreach(path rdma am)
  rdmach_mpi_test(test_conf_rma_calls NP 3 TEST test_conf_rma_calls_np3_${path} TIMEOUT 60)
  set_tests_properties(test_conf_rma_calls_np3_${path} PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=${path}")
endforeach()
