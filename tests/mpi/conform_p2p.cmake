# Point-to-point by the letter of MPI-4.0 chapter 3 (issue 20): every send
# mode in every form, buffered-send sizing and detach, the non-overtaking
# rule across eager and rendezvous sizes, MPI_PROC_NULL everywhere, tag and
# rank errors, partial counts. 1-8 ranks on shared memory, 2-4 over tcp
# (RDMACH_VNODE_SIZE=1), and under Hydra.
include(${CMAKE_CURRENT_LIST_DIR}/conform_launch.cmake.inc)

foreach(np 1 2 3 4 8)
  conf_test(test_conf_p2p ${np} "")
endforeach()
foreach(np 2 3 4)
  conf_test(test_conf_p2p ${np} _tcp ENV RDMACH_VNODE_SIZE=1)
endforeach()
conf_test(test_conf_p2p 3 _hydra HYDRA)

# Generalized requests (MPI_Grequest_start/complete) with every completion
# call, cancel, free before completion, and a thread completing one while
# the main thread waits.
foreach(np 1 2)
  conf_test(test_conf_greq ${np} "")
endforeach()
conf_test(test_conf_greq 2 _hydra HYDRA)
