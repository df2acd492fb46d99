# The hand-offs and switches of an oversubscribed node, counted on both
# sides: rdmach-sim --switches on (the engine's) and rdmach-sim-probe
# --collsw (the library's, getrusage per rank in the validation's loop);
# SIM, SIMDATA, EXPECT and RUN as sim.cmake and CMakeLists.txt set them.

# A binomial bcast of 8 B from rank 0 on 8 ranks of 2 cores, 20 calls
# (switch_count.txt: switch 100 us, longer than any rank's burst, so no
# rank waits twice; o 100, L 200, no call cost). Core 1 holds ranks 1, 3,
# 5, 7, all leaves: the engine starts ranks of equal time from the highest,
# so 7, 5, 3 and 1 each post their receive, find nothing and hand the core
# off (4). Core 0: the root never waits (eager sends), sends its 60
# messages (6 us) and ends; the core goes to rank 6 (queued 6, 4, 2), whose
# message from 4 is not there (5). Each of the 5 comes back once (5
# switches): rank 1 at its first message with 3 core-mates waiting (half a
# turn each: 1.5), 6 with none on core 0, and 5, 3, 7 after rank 1 ended,
# their messages there, none of them waiting any more (0). Per call: 5/20 =
# 0.25 hand-offs, 0.25 switches, 1.5/20 = 0.075 turns.
tool_test(sim_switch_count_bcast COMMAND ${EXPECT} 0
  "^ +\\(per call over all ranks: 0\\.25 waits that handed their core off, 0\\.25 context switches back, 0\\.0[78] turns of waiting ranks\\)$"
  -- ${SIM} bcast --ranks 8 --ppn 8 --cores 2 --algos binomial --size 8 --iters 20 --switches on
     --params ${SIMDATA}/switch_count.txt)
tool_test(sim_switch_count_bad COMMAND ${EXPECT} 2 "^rdmach-sim: --switches 'yes': expected on or off$"
  -- ${SIM} bcast --ranks 8 --switches yes)
# The library's side: a line for the case (3 ranks: COLL ALGO B N MIN MED)
# and one per rank with its switches, sleeps in the device included.
tool_test(sim_probe_collsw_lines
  ENV "RDMACH_BIND=none;RDMACH_BARRIER=dissemination"
  COMMAND ${EXPECT} 0 "^collsw barrier dissemination 0 3 [0-9]+ [0-9]+$"
  "^collsw_rank 0 invol [0-9]+\\.[0-9][0-9] vol [0-9]+\\.[0-9][0-9] sleeps [0-9]+\\.[0-9][0-9]$"
  "^collsw_rank 2 invol "
  -- taskset -c 0 ${RUN} -n 3 $<TARGET_FILE:rdmach-sim-probe> --collsw barrier dissemination 0)

# endturns: a rank whose program ended waits in the next call and gives
# each later hand-off of its core a turn (segswitch; switch where the file
# has none), until it has given endturns (rdmach-sim-probe --waiters). A
# dissemination barrier on 3 ranks of one core, once (one_core_handoff.txt:
# o 100, L 200, switch 1000, hand-off 500, no endturns): rank 0 sends (0.1),
# waits for rank 2 and hands off (0.6); rank 2 sends (0.7), waits for
# rank 1's first round and hands off (1.2); rank 1 receives, sends both
# rounds and waits for rank 2's second (1.6, hand-off to 2.1); rank 0
# switches back with half a turn for rank 1 waiting (2.1 + 1.0 + 0.5),
# finishes its rounds and ends (3.9); rank 2 switches back with half a turn
# for rank 1 (5.4) and ends (5.6); rank 1 switches back (6.6) and ends: 6.8
# (test sim_end_turns_none). With endturns 5 rank 2's switch back also
# gives the ended rank 0 a turn (1.0: it ends at 6.6), and rank 1's gives
# ranks 0 and 2 one each (2.0): 9.8; with endturns 1 rank 0 has had its
# one turn when rank 1 switches back: 8.8.
tool_test(sim_end_turns_none COMMAND ${EXPECT} 0 "^barrier +dissemination +3 +1 +3 +8 +6\\.800 "
  -- ${SIM} barrier --ranks 3 --ppn 3 --cores 1 --algos dissemination --params ${SIMDATA}/one_core_handoff.txt)
tool_test(sim_end_turns COMMAND ${EXPECT} 0 "^barrier +dissemination +3 +1 +3 +8 +9\\.800 "
  "^ +\\(per call over all ranks: 3\\.00 waits that handed their core off, 3\\.00 context switches back, 4\\.00 turns of waiting ranks\\)$"
  -- ${SIM} barrier --ranks 3 --ppn 3 --cores 1 --algos dissemination --switches on --params ${SIMDATA}/end_turns.txt)
tool_test(sim_end_turns_cap COMMAND ${EXPECT} 0 "^barrier +dissemination +3 +1 +3 +8 +8\\.800 "
  -- ${SIM} barrier --ranks 3 --ppn 3 --cores 1 --algos dissemination --params ${SIMDATA}/end_turns_1.txt)
# two ranks a core: a waiter spins on its partner of the other core, a rank
# that ended too (no turns): a 4-rank bcast on 2 cores takes the 3.2 us it
# takes without the key (each turn would add 1.0)
tool_test(sim_end_turns_two_a_core COMMAND ${EXPECT} 0 "^bcast +binomial +4 +1 +4 +8 +3\\.200 "
  -- ${SIM} bcast --ranks 4 --ppn 4 --cores 2 --algos binomial --size 8 --params ${SIMDATA}/end_turns.txt)
tool_test(sim_end_turns_two_a_core_none COMMAND ${EXPECT} 0 "^bcast +binomial +4 +1 +4 +8 +3\\.200 "
  -- ${SIM} bcast --ranks 4 --ppn 4 --cores 2 --algos binomial --size 8 --params ${SIMDATA}/one_core_handoff.txt)
tool_test(sim_end_turns_bad COMMAND ${EXPECT} 2 "end_turns_bad.txt:3: endturns needs one non-negative number \\(turns\\)"
  -- ${SIM} bcast --ranks 4 --params ${SIMDATA}/end_turns_bad.txt)
# The library's side of endturns: on one core, 2 waiters that nothing
# reaches sleep (after their yields) while ranks 0 and 1 ping-pong: at least
# once each (once each on a quiet machine; a loaded one wakes them on the
# liveness rounds, and they sleep again); the round trips are printed
# (their figures are the machine's)
tool_test(sim_probe_waiters_sleep_once
  ENV "RDMACH_BIND=none"
  COMMAND ${EXPECT} 0 "^waiters 4 [0-9]+ [0-9]+ [0-9]+ ([2-9]|[1-9][0-9]+)$"
  -- taskset -c 0 ${RUN} -n 4 $<TARGET_FILE:rdmach-sim-probe> --waiters)
# calibrate writes endturns from the library's RDMACH_YIELD_COUNT_OVERSUB
# (20 by default; the environment's setting where it is given)
tool_test(sim_calibrate_endturns
  ENV "RDMACH_YIELD_COUNT_OVERSUB=7"
  COMMAND ${EXPECT} 0 "^endturns 7 \\(RDMACH_YIELD_COUNT_OVERSUB: a waiting rank's yields before it sleeps\\)$"
  -- ${SIM} calibrate --from ${SIMDATA}/calib_saved.txt -o ${CMAKE_CURRENT_BINARY_DIR}/calib_endturns.params)
