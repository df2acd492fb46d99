# rdmach-noise (tools/noise) and the noise injector (src/device/noise.c);
# included by tests/tools/CMakeLists.txt, whose tool_test it uses.
rdmach_unit_test(test_noise_stats LAYERS rch_base
  SOURCES test_noise_stats.c ${CMAKE_SOURCE_DIR}/tools/noise/noise_stats.c)
target_include_directories(test_noise_stats PRIVATE ${CMAKE_SOURCE_DIR}/tools/noise)
target_link_libraries(test_noise_stats PRIVATE m)

set(NOISE $<TARGET_FILE:rdmach-noise>)

# rdmach-noise's bad options: a message naming the option, status 2, on every rank count
tool_test(noise_quantum_too_short COMMAND ${EXPECT} 2
  "^rdmach-noise: --quantum '5us': expected a duration from 10us to 100ms$" -- ${RUN} -n 2 ${NOISE} --quantum 5us)
tool_test(noise_time_not_a_number COMMAND ${EXPECT} 2 "--time 'abc': expected seconds" -- ${RUN} -n 1 ${NOISE} --time abc)
tool_test(noise_unknown_option COMMAND ${EXPECT} 2 "unknown option '--bogus'" -- ${RUN} -n 1 ${NOISE} --bogus)
tool_test(noise_expect_malformed COMMAND ${EXPECT} 2 "--expect '1ms': expected PERIOD,LENGTH" -- ${RUN} -n 1 ${NOISE} --expect 1ms)
# a short run on two pretend nodes: one row per rank, the nodes and cores ranked
tool_test(noise_reports_ranks_nodes_cores ENV RDMACH_VNODE_SIZE=1 COMMAND ${EXPECT} 0 "on 2 ranks, 2 nodes" "^ +0 [^ ]*vnode0 " "^ +1 [^ ]*vnode1 "
  "^ +1 [^ ]*vnode[01] +1 " "^ +2 [^ ]*vnode[01] +1 " "noisiest cores"
  -- ${RUN} -n 2 ${NOISE} --time 0.3 --quantum 100us --mode ftq)

