# A blocking MPI_Mprobe whose wait reaches the device's blocking phase
# (spin and yield phases at 0): every message it matches there is received
# once (src/device/progress.c: a wait ends where its condition held, and
# never tests it again). A message lost that way leaves the probe waiting:
# the TIMEOUT fails the test. Over shared memory, over the network channel
# (every pair a tcp pair), and between the groups of an intercommunicator.
set(MPROBE_WAIT_PHASES
    "RDMACH_SPIN_COUNT=0;RDMACH_YIELD_COUNT=0;RDMACH_SPIN_COUNT_OVERSUB=0;RDMACH_YIELD_COUNT_OVERSUB=0")
foreach(np 2 3)
  rdmach_mpi_test(test_mpi_mprobe_wait NP ${np} TEST test_mpi_mprobe_wait_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_mprobe_wait_np${np} PROPERTIES ENVIRONMENT "${MPROBE_WAIT_PHASES}")
  rdmach_mpi_test(test_mpi_mprobe_wait NP ${np} TEST test_mpi_mprobe_wait_net_np${np} TIMEOUT 60)
  set_tests_properties(test_mpi_mprobe_wait_net_np${np} PROPERTIES
                       ENVIRONMENT "${MPROBE_WAIT_PHASES};RDMACH_VNODE_SIZE=1")
endforeach()
rdmach_mpi_test(test_mpi_mprobe_wait NP 4 TEST test_mpi_mprobe_wait_inter_np4 TIMEOUT 60 ARGS inter)
set_tests_properties(test_mpi_mprobe_wait_inter_np4 PROPERTIES ENVIRONMENT "${MPROBE_WAIT_PHASES}")
rdmach_mpi_test(test_mpi_mprobe_wait NP 4 TEST test_mpi_mprobe_wait_inter_net_np4 TIMEOUT 60 ARGS inter)
set_tests_properties(test_mpi_mprobe_wait_inter_net_np4 PROPERTIES
                     ENVIRONMENT "${MPROBE_WAIT_PHASES};RDMACH_VNODE_SIZE=1")
