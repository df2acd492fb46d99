# Puts of derived target datatypes to MPI_Win_create memory of a rank of this
# node, which the target reads through the shared-memory pipeline and
# scatters itself from RDMACH_RMA_PUTW_FROM bytes (PUTW,
# src/device/rma_putw.c): vector, vector64, periodic and aperiodic indexed,
# struct and a non-contiguous origin, below and above the threshold, in
# fence, PSCW and lock_all epochs, at 2-4 ranks; the MPI_T counter
# rma_putw_packets must show PUTW taken exactly for the large puts.
# _chunk4k: 4 KiB pipeline chunks, so chunks end inside blocks and inside a
# repetition of the pattern; _off: PUTW off (V/P packets); _am and _tcp: no
# PUTW (packets only, tcp between pretend nodes), the same bytes.
rdmach_mpi_test(test_rma_putw NP 2 TIMEOUT 120)
rdmach_mpi_test(test_rma_putw NP 3 TEST test_rma_putw_np3 TIMEOUT 120)
rdmach_mpi_test(test_rma_putw NP 4 TEST test_rma_putw_np4 TIMEOUT 120)
rdmach_mpi_test(test_rma_putw NP 2 TEST test_rma_putw_chunk4k TIMEOUT 120)
set_tests_properties(test_rma_putw_chunk4k PROPERTIES ENVIRONMENT "RDMACH_SHM_PIPE_CHUNK=4k")
rdmach_mpi_test(test_rma_putw NP 2 TEST test_rma_putw_off TIMEOUT 120)
set_tests_properties(test_rma_putw_off PROPERTIES ENVIRONMENT "RDMACH_RMA_PUTW_FROM=0")
rdmach_mpi_test(test_rma_putw NP 3 TEST test_rma_putw_am TIMEOUT 120)
set_tests_properties(test_rma_putw_am PROPERTIES ENVIRONMENT "RDMACH_RMA_PATH=am")
rdmach_mpi_test(test_rma_putw NP 2 TEST test_rma_putw_tcp TIMEOUT 120)
set_tests_properties(test_rma_putw_tcp PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
# No room in /dev/shm for the pipeline's buffers (RDMACH_SHM_PIPE_FULL): the
# origin answers the target's read with NO_MEMORY and the target reads the
# data by single copy a chunk at a time and scatters it (shm_pipe.c
# get_refused): every put still arrives, still as PUTW.
rdmach_mpi_test(test_rma_putw NP 2 TEST test_rma_putw_pipefull TIMEOUT 120)
set_tests_properties(test_rma_putw_pipefull PROPERTIES ENVIRONMENT "RDMACH_SHM_PIPE_FULL=on")
# ... and single copy not permitted (RDMACH_CMA=off): the target could not
# read the data, which the origin asks its channel before the first PUTW to
# it (drain_ready): every put goes as V/P packets and arrives, no PUTW.
rdmach_mpi_test(test_rma_putw NP 2 TEST test_rma_putw_pipefull_nocma TIMEOUT 120)
set_tests_properties(test_rma_putw_pipefull_nocma PROPERTIES ENVIRONMENT "RDMACH_SHM_PIPE_FULL=on;RDMACH_CMA=off")
