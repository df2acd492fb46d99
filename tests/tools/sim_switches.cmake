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
# sim_barrier3(NAME PARAMS REGEX...): the 3-rank barrier on one core, its
# counts printed (--switches on)
function(sim_barrier3 name params)
  tool_test(${name} COMMAND ${EXPECT} 0 ${ARGN}
    -- ${SIM} barrier --ranks 3 --ppn 3 --cores 1 --algos dissemination --switches on --params ${SIMDATA}/${params})
endfunction()
sim_barrier3(sim_end_turns_none one_core_handoff.txt "^barrier +dissemination +3 +1 +3 +8 +6\\.800 ")
sim_barrier3(sim_end_turns end_turns.txt "^barrier +dissemination +3 +1 +3 +8 +9\\.800 "
  "^ +\\(per call over all ranks: 3\\.00 waits that handed their core off, 3\\.00 context switches back, 4\\.00 turns of waiting ranks\\)$")
sim_barrier3(sim_end_turns_cap end_turns_1.txt "^barrier +dissemination +3 +1 +3 +8 +8\\.800 ")
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

# turnorder cycle: the ranks of a core take turns in a fixed cycle (the
# kernel's order in a sched_switch trace, rdmach-sim turns below), a turn of
# segswitch each (switch where the file has none: 1.0 us here), a rank with
# work running until its wait finds nothing; a rank whose wait finds nothing
# while a core-mate has a message it has not polled yet (its pending flag)
# yields inside the shm pass and again in the wait: its next turn only
# yields. The 3-rank barrier of sim_end_turns_none on one core (cycle.txt:
# its parameters, the cycle by index): rank 0's turn (switch to 1.0) sends
# round 1 (1.1) and waits; rank 1's (to 2.1) takes it, sends both rounds
# (2.4: to 2 at 2.5, to 0 at 2.6) and waits; rank 2's (to 3.4) takes rank
# 1's, sends both rounds (3.7: to 0 at 3.8, to 1 at 3.9) and waits, rank
# 0's flag up (2.6): its next turn only yields. Rank 0's turn at 3.7 finds
# nothing (4.7); the two receives at 3.8 and 3.9 take the core 0.1 each
# (4.9); rank 1's turn (5.9) ends its barrier, rank 0's flag up (3.8);
# rank 2 only yields (6.9); rank 0's turn (7.9) takes both messages (8.0),
# sends round 2 (8.1, at rank 2 8.3) and ends; rank 1 only yields (9.1);
# rank 2's receive (9.2); its turn (10.2) ends: 10.2 us, 3 waits that
# handed the core off, 6 turns with work. The queue model (cycle_queue.txt)
# gives the 6.8 of sim_end_turns_none.
sim_barrier3(sim_cycle_barrier cycle.txt "^barrier +dissemination +3 +1 +3 +8 +10\\.200 "
  "^ +\\(per call over all ranks: 3\\.00 waits that handed their core off, 6\\.00 context switches back, ")
sim_barrier3(sim_cycle_queue cycle_queue.txt "^barrier +dissemination +3 +1 +3 +8 +6\\.800 ")
# two ranks a core: no cycle (a waiter spins on its partner of the other
# core): the 3.2 us of sim_end_turns_two_a_core
tool_test(sim_cycle_two_a_core COMMAND ${EXPECT} 0 "^bcast +binomial +4 +1 +4 +8 +3\\.200 "
  -- ${SIM} bcast --ranks 4 --ppn 4 --cores 2 --algos binomial --size 8 --params ${SIMDATA}/cycle.txt)
tool_test(sim_cycle_bad COMMAND ${EXPECT} 2
  "cycle_bad.txt:2: turnorder must be 'queue' or 'cycle \\[N\\]' \\(N: the orders drawn, 0-1000; 0: by index\\)"
  -- ${SIM} barrier --ranks 3 --params ${SIMDATA}/cycle_bad.txt)
# rdmach-sim turns on a hand-made trace of 3 ranks on CPU 0 (pids 101-103,
# turns_run.txt; window 10.000 to 10.001 s; the first and last lines are
# outside it): rank 0 yields to 1 (no length: its turn began before the
# window; 1 is seen first, not asked), 1 yields to 2 after 1.2 us (2 seen
# first), 2 yields to 0 after 1.2 us (0 left longest ago: cycle), 0 is
# preempted (R+, no yield) after 1.4 us and 1 runs (1 left before 2:
# cycle), 1 sleeps (S) to a kworker, which gives the CPU to 0 (2 left
# longer ago: other), 0 yields to 2 after 1.2 us (cycle). Switches away
# from a rank: 6 (0.02 per call of the probe's 300); yield 4, preempt 1,
# sleep 1; cycle 3 of 4; the median of 1200, 1200, 1200 and 1400 ns;
# the order ranks first got CPU 0 in the window: 1 2 0.
tool_test(sim_turns_trace COMMAND ${EXPECT} 0 "^turns cpu 0 order 1 2 0$"
  "^turns switches 6 per_call 0\\.02 window_ms 1\\.000$" "^turns end yield 4 preempt 1 runnable 0 sleep 1$"
  "^turns next cycle 3 other 1 fraction 0\\.750$" "^turns turn_ns median 1200$"
  -- ${SIM} turns --trace ${SIMDATA}/turns_trace.txt --run ${SIMDATA}/turns_run.txt)
tool_test(sim_turns_no_run COMMAND ${EXPECT} 1
  "turns_trace.txt has no collsw_pid lines or no collsw_window line \\(the output of rdmach-sim-probe --collsw\\)"
  -- ${SIM} turns --trace ${SIMDATA}/turns_trace.txt --run ${SIMDATA}/turns_trace.txt)
tool_test(sim_turns_bad_trace COMMAND ${EXPECT} 1
  "turns_bad.txt:2: not a perf script line \\(COMM PID \\[CPU\\] TIME: EVENT: ...\\)"
  -- ${SIM} turns --trace ${SIMDATA}/turns_bad.txt --run ${SIMDATA}/turns_run.txt)
# the probe prints what turns needs: each rank's pid and the blocks' window
tool_test(sim_probe_collsw_pids
  ENV "RDMACH_BIND=none;RDMACH_BARRIER=dissemination"
  COMMAND ${EXPECT} 0 "^collsw_pid 0 [0-9]+$" "^collsw_pid 2 [0-9]+$" "^collsw_window [0-9]+\\.[0-9]{9} [0-9]+\\.[0-9]{9}$"
  -- taskset -c 0 ${RUN} -n 3 $<TARGET_FILE:rdmach-sim-probe> --collsw barrier dissemination 0)
