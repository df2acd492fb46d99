# The listener flood drill (flood.sh): a 4-rank job over libfabric tcp, every
# pair a tcp pair, under ulimit -n 1024, while a stranger holds 2,000 silent
# connections to each rank's listener (more descriptors than the rank may
# open) and makes 2,500 junk connection attempts to each (10,000 in all).
# The job must finish with every result right and fewer than 100 log lines.
# The full target (5,000 silent connections to each listener, 100,000 junk
# attempts in all) is run by hand:
#   tests/drills/flood.sh build/tools/rdmachrun build/tests/drills/flood_job \
#       build/tests/drills/flood 4 5000 25000 100 900
if(NOT RDMACH_HAVE_OFI)
  return()
endif()
add_executable(flood flood.c)
target_include_directories(flood PRIVATE ${RDMACH_INCLUDES})
rdmach_program(flood_job flood_job.c)
add_test(NAME drill_listener_flood
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/flood.sh $<TARGET_FILE:rdmachrun> $<TARGET_FILE:flood_job>
                 $<TARGET_FILE:flood> 4 2000 2500 100 60)
set_tests_properties(drill_listener_flood PROPERTIES TIMEOUT 120 LABELS "net;job;drill")
# The same with ulimit -n 70, fewer descriptors than the rank's own and the
# listener's bound (64) together: the rank runs out of descriptors, and its
# reserve (RDMACH_NET_FD_RESERVE, and the guard's own spare for reading the
# epoll set) must keep its connections and the guard going. Without the
# guard's spare the guard could not look, and a connection timed out.
add_test(NAME drill_listener_flood_fd_starved
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/flood.sh $<TARGET_FILE:rdmachrun> $<TARGET_FILE:flood_job>
                 $<TARGET_FILE:flood> 4 1000 2500 100 60 70)
set_tests_properties(drill_listener_flood_fd_starved PROPERTIES TIMEOUT 120 LABELS "net;job;drill")
