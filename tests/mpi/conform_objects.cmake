# Conformance of the exported functions no other test called, or only on the
# success path (issue 20): the deprecated MPI-1 functions still exported for
# MPICH's ABI (test_conf_legacy); the error class and message of invalid
# arguments across the API's families, with their success paths
# (test_conf_argcheck); names, info, attributes and error handlers of
# windows, datatypes and sessions, user error codes, Request_get_status_*,
# process and communicator buffers, (I)Sendrecv_replace with a derived type
# (test_conf_objects). 1-4 ranks on shared memory; over tcp
# (RDMACH_VNODE_SIZE=1) where data crosses between ranks.
include(${CMAKE_CURRENT_LIST_DIR}/conform_launch.cmake.inc)

foreach(np 1 2 4)
  conf_test(test_conf_legacy ${np} "")
endforeach()
conf_test(test_conf_legacy 3 _tcp ENV RDMACH_VNODE_SIZE=1)

foreach(np 1 2 4)
  conf_test(test_conf_argcheck ${np} "")
endforeach()

foreach(np 1 2 4)
  conf_test(test_conf_objects ${np} "")
endforeach()
conf_test(test_conf_objects 3 _tcp ENV RDMACH_VNODE_SIZE=1)
