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
