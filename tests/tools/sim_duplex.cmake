# The exchange's extra (duplex): a message that crossed one of its
# receiver's own to its sender, each posted before the other could have
# been received, costs its receiver the channel's duplex entry for its size;
# SIM, SIMDATA and EXPECT as sim.cmake sets them.

# duplex.txt: shm L 200, o 100 (orecv o), no per-byte costs; duplex shm 0
# 50, 1000 150, 2000 350. An exchange of 0 B: each rank posts its send
# (0-100), the other's message arrives at 300, sent at the same instant as
# the receiver's own (apart 0 < o + L + orecv = 400): 300 + orecv + 50 =
# 0.450 (0.400 without the term); 1500 B: 150 + 200 x 500 / 1000 = 250 ->
# 0.650; 3000 B, beyond the last pair, on the last segment's slope (0.2
# ns/B): 550 -> 0.950. A 2-rank dissemination barrier is such an exchange
# (0.450).
tool_test(sim_duplex_exchange COMMAND ${EXPECT} 0
  "^exchange +exchange +2 +1 +2 +0 +0\\.450 "
  "^exchange +exchange +2 +1 +2 +1500 +0\\.650 "
  "^exchange +exchange +2 +1 +2 +3000 +0\\.950 "
  -- ${SIM} exchange --ppn 2 --size 0,1500,3000 --params ${SIMDATA}/duplex.txt)
tool_test(sim_duplex_barrier COMMAND ${EXPECT} 0 "^barrier +dissemination +2 +1 +2 +8 +0\\.450 "
  -- ${SIM} barrier --ranks 2 --ppn 2 --algos dissemination --params ${SIMDATA}/duplex.txt)
# A ping-pong's reply is posted after the message it answers was received
# (apart 400, not less): no extra, 2(o + L + orecv) = 0.800 at every size;
# over net, which has no duplex line, an exchange of 1500 B is its one-way
# transfer: o + L + s G + orecv = 1000 + 5000 + 1500 + 1000 = 8.500.
tool_test(sim_duplex_not_pingpong COMMAND ${EXPECT} 0
  "^pingpong +pingpong +2 +1 +2 +0 +0\\.800 "
  "^pingpong +pingpong +2 +1 +2 +1500 +0\\.800 "
  -- ${SIM} pingpong --ppn 2 --size 0,1500 --params ${SIMDATA}/duplex.txt)
tool_test(sim_duplex_other_channel COMMAND ${EXPECT} 0 "^exchange +exchange +2 +2 +1 +1500 +8\\.500 "
  -- ${SIM} exchange --size 1500 --params ${SIMDATA}/duplex.txt)
tool_test(sim_params_bad_duplex COMMAND ${EXPECT} 2
  "duplex_bad\\.txt:2: duplex takes a channel and up to 12 pairs 'bytes ns', bytes ascending$"
  -- ${SIM} barrier --params ${SIMDATA}/duplex_bad.txt)
tool_test(sim_params_duplex_no_channel COMMAND ${EXPECT} 2
  "duplex_chan_bad\\.txt:1: duplex needs a channel \\(shm or net\\), got '0'$"
  -- ${SIM} barrier --params ${SIMDATA}/duplex_chan_bad.txt)

# calibrate fits the duplex from the probe's exchanges against loggp.txt
# (calib_exchange.txt: calib_unexp.txt with exchange lines). Over shm the
# engine's exchange is o + L + orecv = 400 ns at 0 and 1024 B (G and O 0):
# 450 and 700 measured leave 50 and 300. Over net (offload, G 1 ns/B) it
# is 7000 and 8024 ns: 9000 and 9024 leave 2000 and 1000. An output
# without exchanges leaves none.
tool_test(sim_calibrate_duplex_fit COMMAND ${EXPECT} 0
  "^shm: exchange measured / the engine's without duplex \\(ns\\): 0 B 450 / 400 1024 B 700 / 400$"
  "^duplex shm 0 50 1024 300 \\(ns more for a message that crossed one of its receiver's: an exchange\\)$"
  "^duplex net 0 2000 1024 1000 \\(ns more"
  -- ${SIM} calibrate --from ${SIMDATA}/calib_exchange.txt --params ${SIMDATA}/loggp.txt
     -o ${CMAKE_CURRENT_BINARY_DIR}/calib_exchange.params)
tool_test(sim_calibrate_duplex_old_output COMMAND ${EXPECT} 0
  "^shm: no exchange measured \\(an older output\\): duplex none$"
  -- ${SIM} calibrate --from ${SIMDATA}/calib_saved.txt -o ${CMAKE_CURRENT_BINARY_DIR}/calib_old_duplex.params)
