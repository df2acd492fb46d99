# A hang that only heartbeats can see (device/heartbeat.c): the victim is
# SIGSTOPped while rank 0 waits for it, each way a program waits, over
# shared memory and over tcp (every pair a tcp pair). RDMACH_HEARTBEAT=all
# watches every peer by heartbeats, as auto watches the ranks of other
# hosts, and RDMACH_PEER_STOP_TIMEOUT=0 silences this host's kernel-based
# stop check (shm_live.c, live.c): the error can only come from the victim's
# silence. Rank 0 must get MPI_ERR_PROC_ABORTED naming rank 1 within 10 s
# (the target is 2 s with the default HEARTBEAT_TIMEOUT of 1.5 s: the
# drill prints the time it measured). drills_death and drills_keep come
# from death.cmake.
#
# And a healthy rank that computes for longer than the timeout without
# calling MPI is not a hang: its helper thread answers for it (the compute
# cells: the other rank waits in MPI_Recv all that time, and must get the
# message).
foreach(chan shm tcp)
  if(chan STREQUAL "tcp")
    set(vnode 1)
  else()
    set(vnode 0)
  endif()
  set(env "RDMACH_VNODE_SIZE=${vnode};RDMACH_HEARTBEAT=all;RDMACH_PEER_STOP_TIMEOUT=0")
  foreach(wait recv any wait waitany barrier bcast fence test mt)
    set(t drills_death_${chan}_hang_${wait})
    add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_death.sh --
                               ${DRILLS_MPIEXEC_MPICH} -disable-auto-cleanup -n 2
                               $<TARGET_FILE:drills_keep> $<TARGET_FILE:drills_death> ${wait} stop)
    set_tests_properties(${t} PROPERTIES TIMEOUT 60 LABELS "mp;drills" ENVIRONMENT "${env}")
  endforeach()
  set(t drills_death_${chan}_compute_recv)
  add_test(NAME ${t} COMMAND ${DRILLS_MPIEXEC_MPICH} -n 2 $<TARGET_FILE:drills_death> recv compute)
  set_tests_properties(${t} PROPERTIES TIMEOUT 60 LABELS "mp;drills" ENVIRONMENT "${env}"
                       PASS_REGULAR_EXPRESSION "drills_death: PASS: rank 0 got the message"
                       FAIL_REGULAR_EXPRESSION "FAIL|failed")
endforeach()

# The same between two hosts of tests/cluster (network namespaces: own
# address, /dev/shm and hostname; label "cluster", needs root): one rank per
# host, so the heartbeats cross the hosts' bridge.
foreach(wait recv any wait waitany barrier bcast fence test mt)
  set(t drills_death_cluster_hang_${wait})
  add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_death.sh --
                             ${CMAKE_SOURCE_DIR}/tests/cluster/cluster.sh --hosts 2 --timeout 90 --
                             -hosts h1:1,h2:1 -n 2 -disable-auto-cleanup -genv RDMACH_BIND none
                             -genv RDMACH_HEARTBEAT all -genv RDMACH_PEER_STOP_TIMEOUT 0
                             $<TARGET_FILE:drills_keep> $<TARGET_FILE:drills_death> ${wait} stop)
  set_tests_properties(${t} PROPERTIES TIMEOUT 120 LABELS "cluster;drills")
endforeach()
# With the default RDMACH_HEARTBEAT=auto: ranks 0 and 1 on h1 watch rank 2
# on h2 (another node) by heartbeats, and each other through the kernel.
add_test(NAME drills_death_cluster_hang_auto_any
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_death.sh --
                 ${CMAKE_SOURCE_DIR}/tests/cluster/cluster.sh --hosts 2 --timeout 90 --
                 -hosts h1:2,h2:1 -n 3 -disable-auto-cleanup -genv RDMACH_BIND none
                 -genv RDMACH_PEER_STOP_TIMEOUT 0
                 $<TARGET_FILE:drills_keep> $<TARGET_FILE:drills_death> any stop)
set_tests_properties(drills_death_cluster_hang_auto_any PROPERTIES TIMEOUT 120 LABELS "cluster;drills")
