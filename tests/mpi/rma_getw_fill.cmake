# GETW answered by put_fill (src/device/rma_getw.c, RMA_GETW_FILL=on, the
# default over shared memory): the target packs the blocks straight into the
# channel's pipeline buffers, which the origin copies out.
# _fill4k: 4 KiB pipeline chunks, so chunks end inside blocks, inside a
# repetition of the pattern and between the pack's stages; _own: the
# target's own chunks written by single copy (RMA_GETW_FILL=off).
rdmach_mpi_test(test_rma_getw NP 2 TEST test_rma_getw_fill4k TIMEOUT 60)
set_tests_properties(test_rma_getw_fill4k PROPERTIES ENVIRONMENT "RDMACH_SHM_PIPE_CHUNK=4k")
rdmach_mpi_test(test_rma_getw NP 2 TEST test_rma_getw_own TIMEOUT 60)
set_tests_properties(test_rma_getw_own PROPERTIES ENVIRONMENT "RDMACH_RMA_GETW_FILL=off")
# With single-copy writes refused every get is still a GETW (the pipeline
# needs none): fails without put_fill (then one GETW, later gets GETV).
rdmach_mpi_test(test_rma_getw_refused NP 2 TEST test_rma_getw_refused_fill TIMEOUT 60 ARGS fill)
set_tests_properties(test_rma_getw_refused_fill PROPERTIES ENVIRONMENT "RDMACH_CMA_REFUSE_WRITE=on")
# The origin dies with the answer in the pipeline, which only it drains: the
# target's put_fill fails with PEER_DEAD (rma_getw_writes_lost grows), the
# pack's state is freed after the channel's last fill call, and the live
# ranks are served.
rdmach_mpi_test(test_rma_getw_death NP 3 TEST test_rma_getw_death_fill TIMEOUT 60 ARGS lost)
