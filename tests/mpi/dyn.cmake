# Dynamic processes (src/mpi/dyn_*.c, the sock channel src/rdma/sock): see
# test_mpi_dyn.c for what each mode checks.
rdmach_mpi_test(test_mpi_dyn NP 2 TEST test_mpi_dyn_errors TIMEOUT 60 ARGS errors)
rdmach_mpi_test(test_mpi_dyn NP 3 TEST test_mpi_dyn_join TIMEOUT 60 ARGS join)
rdmach_mpi_test(test_mpi_dyn NP 2 TEST test_mpi_dyn_spawn TIMEOUT 60 ARGS spawn)
rdmach_mpi_test(test_mpi_dyn NP 2 TEST test_mpi_dyn_spawn_multiple TIMEOUT 60 ARGS multiple)
rdmach_mpi_test(test_mpi_dyn NP 2 TEST test_mpi_dyn_workers TIMEOUT 60 ARGS workers 3)
# MPI_Intercomm_create across jobs: the spawned job and parents it never met.
rdmach_mpi_test(test_mpi_dyn NP 3 TEST test_mpi_dyn_iccreate TIMEOUT 60 ARGS iccreate)
rdmach_mpi_test(test_mpi_dyn NP 3 TEST test_mpi_dyn_iccreate_net TIMEOUT 60 ARGS iccreate)
set_tests_properties(test_mpi_dyn_iccreate_net PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
set_tests_properties(test_mpi_dyn_spawn test_mpi_dyn_spawn_multiple test_mpi_dyn_workers test_mpi_dyn_iccreate
                     test_mpi_dyn_iccreate_net PROPERTIES
                     PASS_REGULAR_EXPRESSION "dyn (spawn|multiple|workers|iccreate): ok")
# MPI_THREAD_MULTIPLE: 4 threads of every rank spawn at once, or accept and
# connect in pairs at once (at 1 rank a thread connects to another of its
# own process); every intercommunicator must carry only its own messages
# (test_mpi_dyn_threads.c). Shared memory at 1-4 ranks, tcp between pretend
# nodes (each process a node of its own: the other job's processes attach
# over the network channel too).
foreach(np 1 2 4)
  rdmach_mpi_test(test_mpi_dyn_threads NP ${np} TEST test_mpi_dyn_threads_spawn_np${np} TIMEOUT 120 ARGS spawn)
  rdmach_mpi_test(test_mpi_dyn_threads NP ${np} TEST test_mpi_dyn_threads_connect_np${np} TIMEOUT 120 ARGS connect)
  list(APPEND dyn_threads_tests test_mpi_dyn_threads_spawn_np${np} test_mpi_dyn_threads_connect_np${np})
endforeach()
# over tcp each spawned process opens the network channel: 6 rounds, not 10 (about 4 s)
rdmach_mpi_test(test_mpi_dyn_threads NP 2 TEST test_mpi_dyn_threads_spawn_net TIMEOUT 120 ARGS spawn 6)
rdmach_mpi_test(test_mpi_dyn_threads NP 2 TEST test_mpi_dyn_threads_connect_net TIMEOUT 120 ARGS connect)
set_tests_properties(test_mpi_dyn_threads_spawn_net test_mpi_dyn_threads_connect_net PROPERTIES
                     ENVIRONMENT "RDMACH_VNODE_SIZE=1")
list(APPEND dyn_threads_tests test_mpi_dyn_threads_spawn_net test_mpi_dyn_threads_connect_net)
target_link_libraries(test_mpi_dyn_threads PRIVATE Threads::Threads)
set_tests_properties(${dyn_threads_tests} PROPERTIES PASS_REGULAR_EXPRESSION "dyn threads (spawn|connect): ok")
set_property(TEST ${dyn_threads_tests} APPEND PROPERTY LABELS threads)
# Two rdmachrun jobs started one after the other: accept/connect, the name
# published by one and looked up by the other, a stranger refused.
add_test(NAME test_mpi_dyn_connect_accept
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/dyn_pair.sh $<TARGET_FILE:test_mpi_dyn> ${RDMACH_RUN})
set_tests_properties(test_mpi_dyn_connect_accept PROPERTIES TIMEOUT 60 LABELS "mp"
                     PASS_REGULAR_EXPRESSION "dyn client: ok")
# The parents' and the children's own ranks over the network channel (a tcp
# pair each): the other job's processes are attached to it too (after the
# handshake on a socket, src/mpi/dyn_connect.c); _sock: RDMACH_DYN_NET=0
# keeps them on the sock channel.
rdmach_mpi_test(test_mpi_dyn NP 2 TEST test_mpi_dyn_spawn_net TIMEOUT 60 ARGS spawn)
rdmach_mpi_test(test_mpi_dyn NP 2 TEST test_mpi_dyn_spawn_net_sock TIMEOUT 60 ARGS spawn)
add_test(NAME test_mpi_dyn_connect_accept_net
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/dyn_pair.sh $<TARGET_FILE:test_mpi_dyn> ${RDMACH_RUN})
set_tests_properties(test_mpi_dyn_spawn_net test_mpi_dyn_connect_accept_net PROPERTIES
                     ENVIRONMENT "RDMACH_VNODE_SIZE=1" PASS_REGULAR_EXPRESSION "dyn (spawn|client): ok")
set_tests_properties(test_mpi_dyn_spawn_net_sock PROPERTIES
                     ENVIRONMENT "RDMACH_VNODE_SIZE=1;RDMACH_DYN_NET=0" PASS_REGULAR_EXPRESSION "dyn spawn: ok")

# The same under Hydra, whose PMI-1 server implements spawn.
find_program(DYN_MPIEXEC_MPICH mpiexec.mpich)
if(DYN_MPIEXEC_MPICH)
  foreach(mode spawn multiple iccreate)
    add_test(NAME test_mpi_dyn_${mode}_hydra COMMAND ${DYN_MPIEXEC_MPICH} -n 2 $<TARGET_FILE:test_mpi_dyn> ${mode})
    set_tests_properties(test_mpi_dyn_${mode}_hydra PROPERTIES TIMEOUT 60 LABELS "mp"
                         PASS_REGULAR_EXPRESSION "dyn ${mode}: ok")
  endforeach()
  # Hydra also answers PMI-2 (RDMACH_PMI=pmi2): the spawn is PMI-2's (the
  # command Slurm's plugin serves too, src/boot/pmi2_client.c), and the
  # children know they were spawned from fullinit's spawner-jobid.
  foreach(mode spawn multiple workers)
    add_test(NAME test_mpi_dyn_${mode}_hydra_pmi2 COMMAND ${DYN_MPIEXEC_MPICH} -n 2 $<TARGET_FILE:test_mpi_dyn> ${mode} 4)
    set_tests_properties(test_mpi_dyn_${mode}_hydra_pmi2 PROPERTIES TIMEOUT 60 LABELS "mp"
                         ENVIRONMENT "RDMACH_PMI=pmi2" PASS_REGULAR_EXPRESSION "dyn ${mode}: ok")
  endforeach()
  add_test(NAME test_mpi_dyn_connect_accept_hydra
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/dyn_pair.sh $<TARGET_FILE:test_mpi_dyn> ${DYN_MPIEXEC_MPICH})
  set_tests_properties(test_mpi_dyn_connect_accept_hydra PROPERTIES TIMEOUT 60 LABELS "mp"
                       PASS_REGULAR_EXPRESSION "dyn client: ok")
endif()

# Under PMIx (a build with libpmix-dev): Open MPI's mpirun.openmpi serves
# PMIx_Spawn (src/boot/pmix.c). ompi_watch.sh: see tests/boot.
find_program(DYN_MPIRUN_OPENMPI mpirun.openmpi)
if(RDMACH_HAVE_PMIX AND DYN_MPIRUN_OPENMPI)
  foreach(mode spawn multiple)
    add_test(NAME test_mpi_dyn_${mode}_pmix
             COMMAND ${CMAKE_SOURCE_DIR}/tests/boot/ompi_watch.sh ${DYN_MPIRUN_OPENMPI} --oversubscribe -n 2
                     $<TARGET_FILE:test_mpi_dyn> ${mode})
    set_tests_properties(test_mpi_dyn_${mode}_pmix PROPERTIES TIMEOUT 60 LABELS "mp"
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
                         PASS_REGULAR_EXPRESSION "dyn ${mode}: ok")
  endforeach()
endif()

# MPI_Comm_disconnect closes the connections no other communicator uses.
rdmach_mpi_test(test_mpi_dyn_close NP 2 TIMEOUT 60)
set_tests_properties(test_mpi_dyn_close PROPERTIES PASS_REGULAR_EXPRESSION "dyn close: ok")

# A spawned job that ends before connecting fails the spawn at once.
rdmach_mpi_test(test_mpi_dyn_exit NP 2 TIMEOUT 90)
set_tests_properties(test_mpi_dyn_exit PROPERTIES PASS_REGULAR_EXPRESSION "dyn exit: ok")
rdmach_mpi_test(test_mpi_dyn_exit NP 2 TEST test_mpi_dyn_timeout TIMEOUT 90 ARGS timeout)
set_tests_properties(test_mpi_dyn_timeout PROPERTIES ENVIRONMENT "RDMACH_DYN_TIMEOUT_MS=1000"
                     PASS_REGULAR_EXPRESSION "dyn timeout: ok")
