# rdmach-sim's per-algorithm call (callalgo, tools/sim/sim_callalgo.c);
# SIM, SIMDATA and EXPECT as sim.cmake sets them.

# loggp_callalgo.txt is loggp_callc.txt (call 1000, icall 3000, callc
# barrier 250) with `callalgo barrier dissemination 400 allreduce recdbl 0`:
# the algorithm's own figure replaces its collective's callc, 0.4 us + the
# 4-rank dissemination barrier's 14 us (14.250 with callc alone), and
# replaces call for allreduce recdbl, which has no callc: 15.026 - 1 =
# 14.026; the non-blocking barrier keeps icall, 3 + 14 = 17
tool_test(sim_callalgo_overhead_loggp COMMAND ${EXPECT} 0
  "^barrier +dissemination +4 +4 +1 +8 +14\\.400 "
  -- ${SIM} barrier --ranks 4 --algos dissemination --params ${SIMDATA}/loggp_callalgo.txt)
tool_test(sim_callalgo_instead_of_call_loggp COMMAND ${EXPECT} 0
  "^allreduce +recdbl +4 +4 +1 +8 +14\\.026 "
  -- ${SIM} allreduce --ranks 4 --algos recdbl --params ${SIMDATA}/loggp_callalgo.txt)
tool_test(sim_callalgo_nbc_keeps_icall_loggp COMMAND ${EXPECT} 0
  "^barrier +nbc +4 +4 +1 +8 +17\\.000 "
  -- ${SIM} barrier --ranks 4 --algos nbc --params ${SIMDATA}/loggp_callalgo.txt)
# the fit from the probe's 2-rank loops of empty blocks (calib_callalgo.txt:
# 4 runs, the last at 90 and 95 us dropped as more than twice the fastest)
# against loggp.txt (shm o 100, L 200, orecv = o): a linear alltoall of 0
# bytes on 2 ranks is a message each way, o + L + orecv = 400 ns a call, so
# the median 650 of 640, 650, 700 leaves 250; shmseg's is the node
# segment's synchronisation, an arrival o and L after the last, 300 ns, so
# the median 410 of 400, 410, 420 leaves 110
tool_test(sim_callalgo_fit COMMAND ${EXPECT} 0
  "^alltoall linear: 3 of 4 runs kept$"
  "^callalgo alltoall linear: 650\\.0 ns a call of 0 B on 2 ranks, 400\\.0 predicted without a call: 250\\.0 ns$"
  "^callalgo alltoall shmseg: 410\\.0 ns a call of 0 B on 2 ranks, 300\\.0 predicted without a call: 110\\.0 ns$"
  -- ${SIM} callalgo --from ${SIMDATA}/calib_callalgo.txt --params ${SIMDATA}/loggp.txt
     -o ${CMAKE_CURRENT_BINARY_DIR}/calib_callalgo.params)
# --ref alltoall:shmseg against loggp_call.txt (call 1000, no alltoall callc): the
# base's call was timed on shmseg, so linear gets it plus its excess over
# shmseg's in the same runs, 1000 + 250 - 110 = 1140, and shmseg none (the
# file written has that one entry)
tool_test(sim_callalgo_fit_ref COMMAND ${EXPECT} 0
  "^callalgo alltoall linear: 1140\\.0 ns \\(the collective's call and this algorithm's excess over shmseg's\\)$"
  "^callalgo alltoall linear 1140\\.0$"
  -- sh -c "'$<TARGET_FILE:rdmach-sim>' callalgo --from '${SIMDATA}/calib_callalgo.txt' --params '${SIMDATA}/loggp_call.txt' --ref alltoall:shmseg -o '${CMAKE_CURRENT_BINARY_DIR}/calib_callalgo_ref.params' && grep '^callalgo' '${CMAKE_CURRENT_BINARY_DIR}/calib_callalgo_ref.params'")
# a triple without its figure names the line
tool_test(sim_params_bad_callalgo COMMAND ${EXPECT} 2
  "callalgo_bad\\.txt:2: callalgo takes up to 16 triples 'collective algorithm ns' \\(ns >= 0\\)$"
  -- ${SIM} barrier --params ${SIMDATA}/callalgo_bad.txt)
# --ref without the fitted collective's reference is refused, naming it
tool_test(sim_callalgo_fit_ref_missing COMMAND ${EXPECT} 1
  "^rdmach-sim callalgo: --ref bcast:binomial: alltoall: no reference \\(COLL:ALGO\\)$"
  -- ${SIM} callalgo --from ${SIMDATA}/calib_callalgo.txt --params ${SIMDATA}/loggp_call.txt --ref bcast:binomial
     -o ${CMAKE_CURRENT_BINARY_DIR}/calib_callalgo_noref.params)
# two --from files are read together: the same 4 runs twice are 8 runs, 6
# kept (the two slow ones dropped), and the median stays 650: 250 again
tool_test(sim_callalgo_fit_two_files COMMAND ${EXPECT} 0
  "^alltoall linear: 6 of 8 runs kept$"
  "^callalgo alltoall linear: 650\\.0 ns a call of 0 B on 2 ranks, 400\\.0 predicted without a call: 250\\.0 ns$"
  -- ${SIM} callalgo --from ${SIMDATA}/calib_callalgo.txt --from ${SIMDATA}/calib_callalgo.txt
     --params ${SIMDATA}/loggp.txt -o ${CMAKE_CURRENT_BINARY_DIR}/calib_callalgo_two.params)
