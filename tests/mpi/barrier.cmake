# MPI_Barrier through every barrier backend as processes (included by
# tests/mpi/CMakeLists.txt): nobody leaves before all arrived, many
# consecutive barriers, 8 ranks on this 2-core machine (oversubscribed).
# ARGS: the backend MPI_COMM_WORLD must end up with, and the rounds.

foreach(backend dissemination shm hwsim)
  foreach(np 2 3 8)
    rdmach_mpi_test(test_mpi_barrier NP ${np} TEST test_mpi_barrier_${backend}_np${np} TIMEOUT 180
                    ARGS ${backend} 400)
    set_tests_properties(test_mpi_barrier_${backend}_np${np} PROPERTIES
                         ENVIRONMENT "RDMACH_BARRIER=${backend}")
  endforeach()
endforeach()

# shm on an oversubscribed node waits for all ranks at once and yields its
# core only to a missing rank bound to the same core (barrier_seg.c,
# rch_coll_bar_wait_all). The branches the default run (ranks bound to
# cores, polls while only other cores' ranks are missing) does not take:
# ranks not bound (every missing rank may need my core: always yield), no
# polling for other cores' ranks, and a sleep after the first yield.
foreach(variant "unbound:RDMACH_BIND=none" "nospin:RDMACH_BARRIER_REMOTE_SPIN=0"
                "sleep:RDMACH_BARRIER_YIELD=0")
  string(REPLACE ":" ";" kv ${variant})
  list(GET kv 0 name)
  list(GET kv 1 env)
  rdmach_mpi_test(test_mpi_barrier NP 5 TEST test_mpi_barrier_shm_np5_${name} TIMEOUT 180
                  ARGS shm 300)
  set_tests_properties(test_mpi_barrier_shm_np5_${name} PROPERTIES
                       ENVIRONMENT "RDMACH_BARRIER=shm;${env}")
endforeach()

# hier: pretend nodes (the collectives' layout only), even and uneven.
foreach(layout 8:3 5:2 4:2)
  string(REPLACE ":" ";" nv ${layout})
  list(GET nv 0 np)
  list(GET nv 1 vn)
  rdmach_mpi_test(test_mpi_barrier NP ${np} TEST test_mpi_barrier_hier_np${np}_cvnode${vn}
                  TIMEOUT 180 ARGS hier 400)
  set_tests_properties(test_mpi_barrier_hier_np${np}_cvnode${vn} PROPERTIES
                       ENVIRONMENT "RDMACH_BARRIER=hier;RDMACH_COLL_VNODE_SIZE=${vn}")
endforeach()

# The automatic choice: shm on one node, hier across (pretend) nodes.
rdmach_mpi_test(test_mpi_barrier NP 4 TEST test_mpi_barrier_auto_np4 TIMEOUT 120 ARGS shm 400)
rdmach_mpi_test(test_mpi_barrier NP 8 TEST test_mpi_barrier_auto_np8_cvnode4 TIMEOUT 180 ARGS hier 400)
set_tests_properties(test_mpi_barrier_auto_np8_cvnode4 PROPERTIES ENVIRONMENT "RDMACH_COLL_VNODE_SIZE=4")

# ppdev configured with a port this machine does not have: every rank falls
# back to dissemination (and says why), and the barrier still holds.
rdmach_mpi_test(test_mpi_barrier NP 3 TEST test_mpi_barrier_ppdev_fallback TIMEOUT 120
                ARGS dissemination 200)
set_tests_properties(test_mpi_barrier_ppdev_fallback PROPERTIES
                     ENVIRONMENT "RDMACH_BARRIER=ppdev;RDMACH_PPDEV=/dev/rdmach-test-no-parport;RDMACH_COLL_VNODE_SIZE=1"
                     PASS_REGULAR_EXPRESSION "open\\(/dev/rdmach-test-no-parport\\): No such file or directory.*")
# ... and only the configured case: the output must also report success.
add_test(NAME test_mpi_barrier_ppdev_fallback_ok
         COMMAND ${RDMACH_RUN} -n 3 $<TARGET_FILE:test_mpi_barrier> dissemination 200)
set_tests_properties(test_mpi_barrier_ppdev_fallback_ok PROPERTIES TIMEOUT 120 LABELS "mp"
                     ENVIRONMENT "RDMACH_BARRIER=ppdev;RDMACH_PPDEV=/dev/rdmach-test-no-parport;RDMACH_COLL_VNODE_SIZE=1")

# A backend name that does not exist stops MPI_Init, naming what is accepted.
add_test(NAME test_mpi_barrier_unknown_backend
         COMMAND ${CMAKE_COMMAND} -E env RDMACH_BARRIER=fastest
                 ${CMAKE_CURRENT_SOURCE_DIR}/expect_fail.sh
                 "RDMACH_BARRIER: 'fastest' is not valid; accepted: auto.dissemination.shm.hier.hwsim.ppdev.ofi"
                 ${RDMACH_RUN} -n 2 $<TARGET_FILE:test_mpi_barrier> any 10)
set_tests_properties(test_mpi_barrier_unknown_backend PROPERTIES TIMEOUT 60 LABELS "mp")

# libfabric's fi_barrier (forced: this machine's only provider with
# FI_COLLECTIVE is tcp;ofi_rxm, whose collectives are software).
if(RDMACH_HAVE_OFI)
  foreach(np 2 3)
    rdmach_mpi_test(test_mpi_barrier NP ${np} TEST test_mpi_barrier_ofi_np${np} TIMEOUT 180 ARGS ofi 200)
    set_tests_properties(test_mpi_barrier_ofi_np${np} PROPERTIES ENVIRONMENT "RDMACH_BARRIER=ofi")
  endforeach()
endif()

# Real pretend nodes (RDMACH_VNODE_SIZE: no shared memory between them, the
# leaders' messages take the network channel), once the device has one.
file(READ ${CMAKE_SOURCE_DIR}/src/device/select.c rdmach_h12_select_text)
string(FIND "${rdmach_h12_select_text}" "rch_rdma_select" rdmach_h12_net)
if(rdmach_h12_net GREATER -1)
  rdmach_mpi_test(test_mpi_barrier NP 4 TEST test_mpi_barrier_hier_np4_vnode2 TIMEOUT 180 ARGS hier 200)
  set_tests_properties(test_mpi_barrier_hier_np4_vnode2 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=2")
  rdmach_mpi_test(test_mpi_nbc NP 5 TEST test_mpi_nbc_np5_vnode3 TIMEOUT 300 ARGS 1)
  set_tests_properties(test_mpi_nbc_np5_vnode3 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=3")
  rdmach_mpi_test(test_mpi_neighbor NP 4 TEST test_mpi_neighbor_np4_vnode2 TIMEOUT 180 ARGS 2)
  set_tests_properties(test_mpi_neighbor_np4_vnode2 PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=2")
endif()
