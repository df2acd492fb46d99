# MPI_Comm_idup is non-blocking (issue 20): a rank that receives before its
# idup from ranks that send after theirs, traffic and a collective on the
# parent while it is in flight, idups of two communicators started in
# opposite orders, eight in flight at once. 1-8 ranks on shared memory, 2-4
# over tcp (RDMACH_VNODE_SIZE=1), under Hydra.
include(${CMAKE_CURRENT_LIST_DIR}/conform_launch.cmake.inc)

foreach(np 1 2 3 4 8)
  conf_test(test_conf_idup ${np} "")
endforeach()
foreach(np 2 4)
  conf_test(test_conf_idup ${np} _tcp ENV RDMACH_VNODE_SIZE=1)
endforeach()
conf_test(test_conf_idup 3 _hydra HYDRA)
