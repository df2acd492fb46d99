# The MPI-4 large-count (_c) functions (src/mpi/large.c, the wrappers
# src/binding/gen_large.py generates from mpi_api.txt).
#   test_mpi_bigcount_p2p   2^31 + 4096 bytes through MPI_Send_c/MPI_Recv_c
#                           over shared memory (4 GiB of buffers)
#   test_mpi_bigcount_coll  MPI_Bcast_c and MPI_Allreduce_c of 2^31 + 8
#                           elements (2 GiB buffers, in place)
#   test_mpi_bigcount_userop the same MPI_Allreduce_c with an MPI_Op_create_c
#                           operation: it sees MPI_UINT8_T, not the library's
#                           type of 2^31 + 8 of them
#   test_mpi_bigcount_api   the _c forms with small counts, types and statuses
#                           over 2^31, error classes (also over tcp)
# The large ones hold several GiB: RESOURCE_LOCK keeps ctest -j from running
# them together.
rdmach_mpi_test(test_mpi_bigcount NP 2 TEST test_mpi_bigcount_p2p TIMEOUT 180 ARGS p2p)
rdmach_mpi_test(test_mpi_bigcount NP 2 TEST test_mpi_bigcount_coll TIMEOUT 180 ARGS coll)
rdmach_mpi_test(test_mpi_bigcount NP 2 TEST test_mpi_bigcount_userop TIMEOUT 180 ARGS userop)
set_tests_properties(test_mpi_bigcount_p2p test_mpi_bigcount_coll test_mpi_bigcount_userop PROPERTIES
                     RESOURCE_LOCK bigcount_memory)
foreach(np 1 2 3)
  rdmach_mpi_test(test_mpi_bigcount NP ${np} TEST test_mpi_bigcount_api_np${np} TIMEOUT 60 ARGS api)
endforeach()
# The same over tcp (every pair a tcp pair).
foreach(np 2 3)
  rdmach_mpi_test(test_mpi_bigcount NP ${np} TEST test_mpi_bigcount_api_tcp_np${np} TIMEOUT 60 ARGS api)
  set_tests_properties(test_mpi_bigcount_api_tcp_np${np} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
endforeach()
