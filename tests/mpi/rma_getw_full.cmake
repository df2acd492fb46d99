# GETW answered by put_fill (src/device/rma_getw.c) when the shared-memory
# channel refuses put_fill at the call (no room in /dev/shm for the pipe
# buffers; forced by the test knob RDMACH_SHM_PIPE_FULL): the target falls
# back to chunks of its own, written by single copy; every derived-datatype
# get still returns exact data, and each one served counts in MPI_T
# rma_getw_fill_refused.
rdmach_mpi_test(test_rma_getw NP 2 TEST test_rma_getw_fill_refused TIMEOUT 60 ARGS refused)
set_tests_properties(test_rma_getw_fill_refused PROPERTIES ENVIRONMENT "RDMACH_SHM_PIPE_FULL=on")
