# /dev/shm fills up during a run (issue 21, 8): a 4 MiB MPI_Sendrecv whose
# rendezvous finds no room for the pipe buffers is copied by single copy, or
# (RDMACH_CMA=off) fails on both ranks with MPI_ERR_NO_MEM naming the cause.
# In a private 12 MiB /dev/shm (in_small_shm.sh; skipped without root).
rdmach_program(test_mpi_shm_full test_mpi_shm_full.c)
foreach(mode ok fail)
  set(t test_mpi_shm_full_${mode})
  add_test(NAME ${t} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/in_small_shm.sh 12 --
                             ${RDMACH_RUN} -n 2 $<TARGET_FILE:test_mpi_shm_full> ${mode})
  set_tests_properties(${t} PROPERTIES TIMEOUT 60 LABELS "mp" SKIP_RETURN_CODE 77)
endforeach()
set_tests_properties(test_mpi_shm_full_fail PROPERTIES ENVIRONMENT "RDMACH_CMA=off")
