# An origin that dies midway through a put or accumulate of a struct type
# carried as PUTP/ACCP packets (test_rma_pattern_death.c, src/device/rma_pat.c),
# with the target in each kind of epoch: the target's call fails naming the
# dead rank, it applied whole structs in order, and its accumulate lock is
# free for a live origin after.
foreach(op put acc)
  foreach(epoch fence pscw lockall)
    rdmach_mpi_test(test_rma_pattern_death NP 3 TEST test_rma_pattern_death_${op}_${epoch} TIMEOUT 60
                    ARGS ${op} ${epoch})
  endforeach()
endforeach()
