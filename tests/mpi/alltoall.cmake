# MPI_Alltoall(v/w) through every alltoall algorithm (included by
# tests/mpi/CMakeLists.txt). The node-aware algorithms need several nodes:
# RDMACH_COLL_VNODE_SIZE gives the collectives pretend nodes of k
# consecutive ranks while messages keep using shared memory, so uneven
# layouts run on one machine today (7 ranks in nodes of 3: 3 + 3 + 1).

# np:vnode — communicator sizes 1..9, even and uneven node sizes
set(RDMACH_A2A_LAYOUTS 1:0 2:1 3:2 4:2 5:2 6:4 7:3 8:3 9:2)
foreach(layout ${RDMACH_A2A_LAYOUTS})
  string(REPLACE ":" ";" nv ${layout})
  list(GET nv 0 np)
  list(GET nv 1 vn)
  rdmach_mpi_test(test_mpi_alltoall NP ${np} TEST test_mpi_alltoall_np${np}_cvnode${vn}
                  TIMEOUT 300 ARGS all 1)
  set_tests_properties(test_mpi_alltoall_np${np}_cvnode${vn} PROPERTIES
                       ENVIRONMENT "RDMACH_COLL_VNODE_SIZE=${vn}")
endforeach()

# Forced through the environment: every call must run the named algorithm.
rdmach_mpi_test(test_mpi_alltoall NP 4 TEST test_mpi_alltoall_env_leader TIMEOUT 120
                ARGS env leader leader 2)
set_tests_properties(test_mpi_alltoall_env_leader PROPERTIES ENVIRONMENT
                     "RDMACH_ALLTOALL=leader;RDMACH_ALLTOALLV=leader;RDMACH_COLL_VNODE_SIZE=2")
rdmach_mpi_test(test_mpi_alltoall NP 7 TEST test_mpi_alltoall_env_coreparallel TIMEOUT 180
                ARGS env coreparallel coreparallel 1)
set_tests_properties(test_mpi_alltoall_env_coreparallel PROPERTIES ENVIRONMENT
                     "RDMACH_ALLTOALL=coreparallel;RDMACH_ALLTOALLV=coreparallel;RDMACH_COLL_VNODE_SIZE=3")
rdmach_mpi_test(test_mpi_alltoall NP 3 TEST test_mpi_alltoall_env_bruck_linear TIMEOUT 120
                ARGS env bruck linear 2)
set_tests_properties(test_mpi_alltoall_env_bruck_linear PROPERTIES ENVIRONMENT
                     "RDMACH_ALLTOALL=bruck;RDMACH_ALLTOALLV=linear")

# shmseg (alltoall through the node segment) forced by the environment:
# one node of 2..9 ranks (above 2 oversubscribed: all-at-once waits), and
# uneven pretend nodes, where it does not apply and the table's choice
# runs (the program accepts that only for communicators spanning nodes).
foreach(layout 2:0 4:0 8:0 9:0 7:3 5:2)
  string(REPLACE ":" ";" nv ${layout})
  list(GET nv 0 np)
  list(GET nv 1 vn)
  rdmach_mpi_test(test_mpi_alltoall NP ${np} TEST test_mpi_alltoall_env_shmseg_np${np}_cvnode${vn}
                  TIMEOUT 180 ARGS env shmseg linear 2)
  set_tests_properties(test_mpi_alltoall_env_shmseg_np${np}_cvnode${vn} PROPERTIES ENVIRONMENT
                       "RDMACH_ALLTOALL=shmseg;RDMACH_ALLTOALLV=linear;RDMACH_COLL_VNODE_SIZE=${vn}")
endforeach()
# Many consecutive calls of alltoall and allreduce through shmseg, data
# changing every call, ranks late at random points: the double buffer must
# hold (10000 calls on 4 ranks; fewer on more ranks, all oversubscribed).
foreach(run 2:10000 4:10000 8:5000 9:5000)
  string(REPLACE ":" ";" nc ${run})
  list(GET nc 0 np)
  list(GET nc 1 calls)
  rdmach_mpi_test(test_mpi_alltoall NP ${np} TEST test_mpi_alltoall_shmseg_stress_np${np}
                  TIMEOUT 300 ARGS stress ${calls} shmseg)
  set_tests_properties(test_mpi_alltoall_shmseg_stress_np${np} PROPERTIES ENVIRONMENT
                       "RDMACH_ALLTOALL=shmseg;RDMACH_ALLREDUCE=shmseg")
endforeach()
# The same on uneven pretend nodes (3 + 3 + 1): shmseg does not apply, the
# table's algorithms must give the same results.
rdmach_mpi_test(test_mpi_alltoall NP 7 TEST test_mpi_alltoall_shmseg_stress_np7_cvnode3
                TIMEOUT 300 ARGS stress 2000)
set_tests_properties(test_mpi_alltoall_shmseg_stress_np7_cvnode3 PROPERTIES ENVIRONMENT
                     "RDMACH_ALLTOALL=shmseg;RDMACH_ALLREDUCE=shmseg;RDMACH_COLL_VNODE_SIZE=3")

# A tuning file's rows decide (alltoall_tuning.txt), and the NIC profile
# selects the built-in node-aware rows.
rdmach_mpi_test(test_mpi_alltoall NP 4 TEST test_mpi_alltoall_tuning_file TIMEOUT 60
                ARGS tuned 8=linear 100=leader 5000=pairwise)
set_tests_properties(test_mpi_alltoall_tuning_file PROPERTIES ENVIRONMENT
                     "RDMACH_TUNING_FILE=${CMAKE_CURRENT_SOURCE_DIR}/alltoall_tuning.txt")
rdmach_mpi_test(test_mpi_alltoall NP 4 TEST test_mpi_alltoall_profile_offload TIMEOUT 60
                ARGS tuned 8=leader 4096=leader)
set_tests_properties(test_mpi_alltoall_profile_offload PROPERTIES ENVIRONMENT
                     "RDMACH_NIC_PROFILE=offload;RDMACH_COLL_VNODE_SIZE=2")
rdmach_mpi_test(test_mpi_alltoall NP 4 TEST test_mpi_alltoall_profile_onload TIMEOUT 60
                ARGS tuned 8=bruck 4096=coreparallel)
set_tests_properties(test_mpi_alltoall_profile_onload PROPERTIES ENVIRONMENT
                     "RDMACH_NIC_PROFILE=onload;RDMACH_COLL_VNODE_SIZE=2")

# Bad configuration stops MPI_Init with a message naming the cause.
add_test(NAME test_mpi_alltoall_tuning_file_malformed
         COMMAND ${CMAKE_COMMAND} -E env
                 RDMACH_TUNING_FILE=${CMAKE_CURRENT_SOURCE_DIR}/alltoall_tuning_bad.txt
                 ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh
                 "alltoall_tuning_bad.txt:4: 'fastest' is not an algorithm of alltoall"
                 ${RDMACH_RUN} -n 2 $<TARGET_FILE:test_mpi_alltoall> all 1)
add_test(NAME test_mpi_alltoall_unknown_algorithm
         COMMAND ${CMAKE_COMMAND} -E env RDMACH_ALLTOALL=fastest
                 ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh
                 "RDMACH_ALLTOALL=fastest: alltoall: 'fastest' is not an algorithm of alltoall; accepted: pairwise.bruck.linear.leader.coreparallel.shmseg.adaptive.auto"
                 ${RDMACH_RUN} -n 2 $<TARGET_FILE:test_mpi_alltoall> all 1)
set_tests_properties(test_mpi_alltoall_tuning_file_malformed test_mpi_alltoall_unknown_algorithm
                     PROPERTIES TIMEOUT 60 LABELS "mp")

# Real pretend nodes (RDMACH_VNODE_SIZE: ranks of different nodes share no
# memory, so messages between them take the network channel). Registered
# once the device selects a network channel for peers on other nodes (its
# select.c calls src/rdma's rch_rdma_select); until then those peers are
# unreachable. CMake re-checks whenever select.c changes.
set(RDMACH_DEV_SELECT ${CMAKE_SOURCE_DIR}/src/device/select.c)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${RDMACH_DEV_SELECT})
file(READ ${RDMACH_DEV_SELECT} rdmach_dev_select_text)
string(FIND "${rdmach_dev_select_text}" "rch_rdma_select" rdmach_net_integrated)
if(rdmach_net_integrated GREATER -1)
  foreach(layout 4:2 7:3 8:4)
    string(REPLACE ":" ";" nv ${layout})
    list(GET nv 0 np)
    list(GET nv 1 vn)
    rdmach_mpi_test(test_mpi_alltoall NP ${np} TEST test_mpi_alltoall_np${np}_vnode${vn}
                    TIMEOUT 300 ARGS all 1)
    set_tests_properties(test_mpi_alltoall_np${np}_vnode${vn} PROPERTIES
                         ENVIRONMENT "RDMACH_VNODE_SIZE=${vn}")
  endforeach()
  # the profile override on real nodes: offload -> leader-based at every size
  rdmach_mpi_test(test_mpi_alltoall NP 4 TEST test_mpi_alltoall_vnode_offload TIMEOUT 60
                  ARGS tuned 8=leader 4096=leader)
  set_tests_properties(test_mpi_alltoall_vnode_offload PROPERTIES ENVIRONMENT
                       "RDMACH_NIC_PROFILE=offload;RDMACH_VNODE_SIZE=2")
else()
  message(STATUS "tests/mpi/alltoall.cmake: no network channel in the device yet: "
                 "the RDMACH_VNODE_SIZE alltoall tests are not registered")
endif()

# rdmach-tune end to end: measure on 4 ranks in 2 pretend nodes, write a
# file (the tool loads it back itself), then run every alltoall algorithm
# and the automatic choice with that file in force.
add_test(NAME test_rdmach_tune_file_drives_alltoall
         COMMAND sh -c "RDMACH_COLL_VNODE_SIZE=2 \"$1\" -n 4 \"$2\" --colls alltoall,alltoallv --sizes 8,1k,16k --reps 1 --iters 5 -o \"$3\" && grep -q '^alltoall ' \"$3\" && RDMACH_COLL_VNODE_SIZE=2 RDMACH_TUNING_FILE=\"$3\" \"$1\" -n 4 \"$4\" all 1"
                 sh ${RDMACH_RUN} $<TARGET_FILE:rdmach-tune>
                 ${CMAKE_CURRENT_BINARY_DIR}/rdmach-tune-test.txt $<TARGET_FILE:test_mpi_alltoall>)
set_tests_properties(test_rdmach_tune_file_drives_alltoall PROPERTIES TIMEOUT 180 LABELS "mp")
