# callalgo for allgather and reduce_scatter (rdmach-sim-probe --algocall 8
# allgather|reduce_scatter); SIM, SIMDATA and EXPECT as sim.cmake sets them.

# A 2-rank ring allgather of 8 B (loggp.txt: o 100, L 200, copy 0.25 ns/B):
# the own block's copy (0.002), a message each way, o + L + orecv: 0.402 us;
# with callalgo allgather ring 400 (callalgo_allgather.txt) its call costs
# 0.4 in place of call's 1.0: 0.802; recdbl, not given, keeps call: 1.402
tool_test(sim_callalgo_allgather COMMAND ${EXPECT} 0 "^allgather +ring +2 +1 +2 +8 +0\\.802 "
  "^allgather +recdbl +2 +1 +2 +8 +1\\.402 "
  -- ${SIM} allgather --ranks 2 --ppn 2 --algos ring,recdbl --size 8 --params ${SIMDATA}/callalgo_allgather.txt)
