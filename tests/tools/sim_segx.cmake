# rdmach-sim's node segment data other cores read (segx, tools/sim/sim_segx.c);
# SIM, SIMDATA and EXPECT as sim.cmake sets them.

# shmseg allreduce of 1000 B on 2 ranks, a core each, 3 calls (seg_cross.txt:
# o 0.1, L 0.2 us, copy 0.25, gamma 0.5, a copy across cores G + O 0.5 ns/B,
# a reduction across cores 0.5 + 0.5 - 0.25 = 0.75). A call: deposit (0.25)
# and arrival (o) at 0.35, release L later (0.55), then rank 0 copies row 1
# out (0.5) and reduces its own row 0 (0.5), rank 1 copies its own row 1
# (0.25) and reduces row 0 (0.75): 1.0 each, 1.55 a call, 4.650 for 3
# without the term. The rows' parity alternates by call, so call 3 is the
# first to deposit into data (the parity of call 1) that the other core and
# the writer's own core read: with dep 0.25 beyond free 200 each deposit
# costs (1000 - 200) x 0.25 = 0.2 more, both ranks at once: 4.850.
tool_test(sim_segx_deposit COMMAND ${EXPECT} 0 "^allreduce +shmseg +2 +1 +2 +1000 +4\\.850 +1\\.617 "
  -- ${SIM} allreduce --ranks 2 --ppn 2 --size 1000 --algos shmseg --iters 3 --params ${SIMDATA}/segx_dep.txt)
# A bcast's root never reads the data it deposits: its lines are not shared
# by its core, no dep (data only other cores read is far's). shmseg bcast of
# 1000 B on 2 ranks, 3 calls: the root deposits (0.25) and arrives (0.35),
# release 0.55, the other copies out across cores (0.5): 1.05; call 2: the
# root, released at 0.55, arrives at 0.90, the other at 1.15, release 1.35,
# copy out 1.85; call 3: release 2.15, 2.650, as without segx.
tool_test(sim_segx_bcast_root_unread COMMAND ${EXPECT} 0 "^bcast +shmseg +2 +1 +2 +1000 +2\\.650 "
  -- ${SIM} bcast --ranks 2 --ppn 2 --size 1000 --algos shmseg --iters 3 --params ${SIMDATA}/segx_dep.txt)
# ... with far 1.0 beyond free 200 (segx_far.txt, the probe's DEP_O): call 3
# deposits into the data of call 1, which only the other core read: the
# root, released at 1.35, deposits 0.25 + 800 x 1.0 ns and arrives at 2.50,
# after the other (1.95): release 2.70, the copy out 3.200.
tool_test(sim_segx_bcast_root_far COMMAND ${EXPECT} 0 "^bcast +shmseg +2 +1 +2 +1000 +3\\.200 "
  -- ${SIM} bcast --ranks 2 --ppn 2 --size 1000 --algos shmseg --iters 3 --params ${SIMDATA}/segx_far.txt)
# far does not apply where the writer's core read the data too (dep's): the
# allreduce's rows are read on both cores, 4.650 as without segx.
tool_test(sim_segx_far_not_shared COMMAND ${EXPECT} 0 "^allreduce +shmseg +2 +1 +2 +1000 +4\\.650 "
  -- ${SIM} allreduce --ranks 2 --ppn 2 --size 1000 --algos shmseg --iters 3 --params ${SIMDATA}/segx_far.txt)
# The reads on the writer's core (own 0.5, red 0.5): in each call one of
# the two reads of a row (rank 0's copy of row 1, rank 1's reduction of row
# 0) comes first in whichever order the engine runs the ranks, so each
# rank's read of its own row costs 1000 x 0.5 more where it comes second:
# one rank 1.5 after the release, the other 1.0 (order: 0 first, rank 1's
# copy 0.75 + its reduction 0.75; 1 first, rank 0's reduction 1.0 + its
# copy 0.5): call 1 ends at 0.55 + 1.5 = 2.05, call 2 at 2.60 + 1.5 =
# 4.10; in call 3 the previous reads of the parity count (the loop's steady
# state): both own reads pay, each rank 1.5: release 4.65, 6.150.
tool_test(sim_segx_own_reads COMMAND ${EXPECT} 0 "^allreduce +shmseg +2 +1 +2 +1000 +6\\.150 +2\\.050 "
  -- ${SIM} allreduce --ranks 2 --ppn 2 --size 1000 --algos shmseg --iters 3 --params ${SIMDATA}/segx_own.txt)
# a segx line with an unknown word names it
tool_test(sim_segx_bad_key COMMAND ${EXPECT} 2 "segx_bad\\.txt:4: unknown parameter .cold."
  -- ${SIM} allreduce --ranks 2 --algos shmseg --params ${SIMDATA}/segx_bad.txt)
