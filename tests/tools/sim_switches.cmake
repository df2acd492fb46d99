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
