# rdmach-noise (tools/noise) and the noise injector (src/device/noise.c);
# included by tests/tools/CMakeLists.txt, whose tool_test it uses.
rdmach_unit_test(test_noise_stats LAYERS rch_base
  SOURCES test_noise_stats.c ${CMAKE_SOURCE_DIR}/tools/noise/noise_stats.c)
target_include_directories(test_noise_stats PRIVATE ${CMAKE_SOURCE_DIR}/tools/noise)
target_link_libraries(test_noise_stats PRIVATE m)
# the judgement of an injected train among other detours of its length
rdmach_unit_test(test_noise_report LAYERS rch_base
  SOURCES test_noise_report.c ${CMAKE_SOURCE_DIR}/tools/noise/noise_report.c
          ${CMAKE_SOURCE_DIR}/tools/noise/noise_stats.c ${CMAKE_SOURCE_DIR}/src/device/noise.c)
target_include_directories(test_noise_report PRIVATE ${CMAKE_SOURCE_DIR}/tools/noise)
target_link_libraries(test_noise_report PRIVATE m)

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
  -- ${RUN} -n 2 ${NOISE} --time 0.3 --quantum 100us --mode ftq --no-csv)


# The injector: its parser, then its detours measured by rdmach-noise. The
# machine these run on is loaded (ranks are preempted for milliseconds), so
# --expect judges only detours within 50% of the asked length: their median
# length and the period of their train must be within 10% of what was asked.
rdmach_unit_test(test_noise_inject LAYERS rch_base
  SOURCES test_noise_inject.c ${CMAKE_SOURCE_DIR}/src/device/noise.c)
tool_test(noise_injected_detours_found ENV RDMACH_NOISE=1ms,50us COMMAND ${EXPECT} 0
  "^injected noise: RDMACH_NOISE=1ms,50us: a 50.0 us detour every 1000.0 us"
  "^expect rank 0: .*: ok$" "^expect rank 1: .*: ok$"
  -- ${RUN} -n 2 ${NOISE} --time 2 --expect 1ms,50us --no-csv)
tool_test(noise_injected_on_listed_ranks_only ENV RDMACH_NOISE=2ms,100us,unsync,1 COMMAND ${EXPECT} 0
  "^expect rank 0: no noise injected on it" "^expect rank 1: .*: ok$"
  -- ${RUN} -n 2 ${NOISE} --time 2 --expect 2ms,100us --no-csv)
# with the injector on and no --expect, the tool judges its detours against
# the injected signature by itself (the exit status stays --expect's)
tool_test(noise_injector_judged_without_expect ENV RDMACH_NOISE=1ms,50us COMMAND ${EXPECT} 0
  "^expect rank 0: .*: ok$" "^expect rank 1: .*: ok$"
  -- ${RUN} -n 2 ${NOISE} --time 2 --no-csv)
# without the injector the same check fails: it is not met by any noise
tool_test(noise_no_injection_not_found COMMAND ${EXPECT} 1 "^expect rank 0: .*NOT FOUND$"
  -- ${RUN} -n 2 ${NOISE} --time 1 --expect 1ms,50us --no-csv)
tool_test(noise_injector_bad_value ENV RDMACH_NOISE=1ms,2ms COMMAND ${EXPECT} nonzero
  "RDMACH_NOISE: '1ms,2ms' is not valid \\(the duration must be above 0 and below the period\\)"
  -- ${RUN} -n 2 ${NOISE} --time 1 --no-csv)

# --coll: barrier and allreduce with the injector paused and running in turn;
# detours must land only in the batches with noise.
tool_test(noise_coll_with_and_without_injection ENV RDMACH_NOISE=1ms,50us RDMACH_VNODE_SIZE=1 COMMAND ${EXPECT} 0
  "^injected noise: RDMACH_NOISE=1ms,50us"
  "^barrier +off +[0-9]+ " "^barrier +injected +[0-9]+ " "^allreduce 8 B +off " "^allreduce 4 KiB +injected "
  "^detours injected over all ranks: [1-9][0-9]* during the batches with noise, 0 during those without$"
  -- ${RUN} -n 2 ${NOISE} --coll 5)
tool_test(noise_coll_bad_count COMMAND ${EXPECT} 2 "--coll 'x': expected a number of batches" -- ${RUN} -n 1 ${NOISE} --coll x)

# the raw data and the plots (or why there are none) by default
tool_test(noise_writes_csv_and_plots COMMAND ${EXPECT} 0 "^(plots: |plots not made: )" "^rank,node,host,core," "^start_ns,length_ns$"
  -- bash -c "rm -rf noise-csv && ${RUN} -n 2 ${NOISE} --time 0.3 --csv noise-csv && head -1 noise-csv/summary.csv && head -1 noise-csv/detours_rank1.csv")
