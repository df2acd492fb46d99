# Conformance of the exported functions no other test called, or only on the
# success path (issue 20): the deprecated MPI-1 functions still exported for
# MPICH's ABI (test_conf_legacy), and names, info and error handlers on
# every object kind (test_conf_objinfo). 1-4 ranks on shared memory; over
# tcp (RDMACH_VNODE_SIZE=1) where data crosses between ranks.
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
