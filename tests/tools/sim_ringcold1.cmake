# rdmach-sim's eager shm record in ring lines out of the core's caches with a
# core per rank (ringcold1, tools/sim/sim_engine.c ring_cold); SIM, SIMDATA
# and EXPECT as sim.cmake sets them.

# ringcold1.txt: one_core.txt (o 100, L 200 ns, G = O = 0) with ringcold1 0.5
# ns/B. A ping-pong of 1000 B, a core per rank: each way the send's o +
# 1000 x 0.5 (0.6 us), L and the receive's o: 2 x 0.9 = 1.800 (0.800 without,
# sim_ringcold_core_per_rank). On one core (--cores 1) ringcold (0 here)
# applies instead: 2.800, as sim_oversubscribed_pingpong.
tool_test(sim_ringcold1_core_per_rank COMMAND ${EXPECT} 0 "^pingpong +pingpong +2 +1 +2 +1000 +1\\.800 "
  -- ${SIM} pingpong --ppn 2 --size 1000 --params ${SIMDATA}/ringcold1.txt)
tool_test(sim_ringcold1_not_oversubscribed COMMAND ${EXPECT} 0 "^pingpong +pingpong +2 +1 +2 +1000 +2\\.800 "
  -- ${SIM} pingpong --ppn 2 --size 1000 --cores 1 --params ${SIMDATA}/ringcold1.txt)
