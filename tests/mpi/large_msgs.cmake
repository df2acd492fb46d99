# Large messages within a node by each strategy the shared-memory channel
# can choose (docs/TUNING.md, rdmach-info's "Messages within a node"): every
# pair exchanges random sizes up to 16 MiB, every byte checked.
#   single copy for every rendezvous (SHM_CMA_FROM=0), the pipeline with
#   streaming stores into the receive buffer (SHM_NT_FROM=1), and a
#   threshold in the middle of the sizes (both, switching at 1 MiB).
foreach(v "cma:RDMACH_SHM_CMA_FROM=0"
          "nt:RDMACH_SHM_CMA_FROM=1g;RDMACH_SHM_NT_FROM=1"
          "split:RDMACH_SHM_CMA_FROM=1m;RDMACH_SHM_NT_FROM=64k")
  string(REGEX MATCH "^[^:]*" name "${v}")
  string(REGEX REPLACE "^[^:]*:" "" env "${v}")
  rdmach_mpi_test(test_mpi_pairs NP 4 TEST test_mpi_pairs_shm_${name} TIMEOUT 120 ARGS 77)
  set_tests_properties(test_mpi_pairs_shm_${name} PROPERTIES ENVIRONMENT "${env}")
endforeach()

# rdmach-tune --p2p end to end: measure (small sizes, one run), write the
# tunable lines (the tool loads the file back itself), and run with it.
add_test(NAME test_rdmach_tune_p2p_file
         COMMAND sh -c "\"$1\" -n 2 \"$2\" --p2p --sizes 64k,256k --reps 1 -o \"$3\" && grep -q '^tunable SHM_CMA_FROM ' \"$3\" && grep -q '^tunable SHM_NT_FROM ' \"$3\" && RDMACH_TUNING_FILE=\"$3\" \"$1\" -n 4 \"$4\" 5"
                 sh ${RDMACH_RUN} $<TARGET_FILE:rdmach-tune>
                 ${CMAKE_CURRENT_BINARY_DIR}/rdmach-tune-p2p.txt $<TARGET_FILE:test_mpi_pairs>)
set_tests_properties(test_rdmach_tune_p2p_file PROPERTIES TIMEOUT 180 LABELS "mp")
