# rdmach-sim's L2 term for the local copies (l2, tools/sim/sim_engine.c
# l2_copy_ns); SIM, SIMDATA and EXPECT as sim.cmake sets them.

# A 2-rank pairwise alltoall of 1000 B, 2 calls, a core per rank (l3_fits.txt:
# o 100, L 200 ns, G O 0, copy 0.25 ns/B, an L3 of 8000 B that holds every
# buffer; 1.300 as sim_l3_fits): each rank's local copy (its own block, send
# block to receive block) uses 2 buffers of 1000 B, the only ones in its
# core's L2 stack. In call 2 each was last used 1000 B of the other ago:
# 2000 B with itself, beyond an L2 of 1500 B (l2_small.txt) and in the L3:
# half the excess of 0.75 over 0.25 ns/B per byte of each, 2 x 1000 x 0.25 =
# 0.5 us more on each rank's copy, both at once: 1.800. With an L2 of 2500 B
# (l2_fits.txt) both fit: 1.300.
tool_test(sim_l2_beyond COMMAND ${EXPECT} 0 "^alltoall +pairwise +2 +1 +2 +1000 +1\\.800 "
  -- ${SIM} alltoall --ranks 2 --ppn 2 --algos pairwise --size 1000 --iters 2 --params ${SIMDATA}/l2_small.txt)
tool_test(sim_l2_fits COMMAND ${EXPECT} 0 "^alltoall +pairwise +2 +1 +2 +1000 +1\\.300 "
  -- ${SIM} alltoall --ranks 2 --ppn 2 --algos pairwise --size 1000 --iters 2 --params ${SIMDATA}/l2_fits.txt)
