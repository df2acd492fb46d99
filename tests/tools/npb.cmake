# bench/npb's own argument checking (NPB itself is not in the repository, so
# no test runs it): a clear message and exit status 2, before anything is built.
set(NPB ${CMAKE_SOURCE_DIR}/bench/npb)
tool_test(npb_no_npb_dir COMMAND ${EXPECT} 2
  "^bench/npb: error: --npb-dir is required: the path of a copy of NPB 3.4 you have" -- ${NPB})
# a directory that is not NPB3.4-MPI: refused, naming what it lacks
tool_test(npb_not_an_npb_tree COMMAND ${EXPECT} 2
  "is not an NPB 3.4 MPI tree \\(NPB3.4-MPI\\): missing Makefile, config/make.def.template, sys/setparams.c, .*, IS, FT$"
  -- ${NPB} --npb-dir ${CMAKE_CURRENT_SOURCE_DIR})
tool_test(npb_npb_dir_not_a_directory COMMAND ${EXPECT} 2
  "--npb-dir: /nonexistent/NPB3.4-MPI is not a directory$" -- ${NPB} --npb-dir /nonexistent/NPB3.4-MPI)
tool_test(npb_unknown_benchmark COMMAND ${EXPECT} 2
  "--benchmarks: unknown dt; known: is, ft, cg, mg, lu, bt, sp, ep$"
  -- ${NPB} --npb-dir /nonexistent --benchmarks is,dt)
tool_test(npb_unknown_class COMMAND ${EXPECT} 2 "--class: 'is:Q': unknown class 'Q'"
  -- ${NPB} --npb-dir /nonexistent --class is:Q)
tool_test(npb_class_of_unselected_benchmark COMMAND ${EXPECT} 2
  "--class: 'cg:A' names benchmark 'cg', which --benchmarks does not select"
  -- ${NPB} --npb-dir /nonexistent --class is:B,cg:A)
tool_test(npb_bad_ranks COMMAND ${EXPECT} 2 "--ranks: '2,0': each count must be between 1 and 1024"
  -- ${NPB} --npb-dir /nonexistent --ranks 2,0)
# the run's time from NPB's 'Mop/s total' (its printed time has 0.01 s steps)
tool_test(npb_refine_times COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/test_npb_refine.py)
