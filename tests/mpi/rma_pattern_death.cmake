# An origin that dies midway through a put or accumulate of a struct type
# carried as PUTP/ACCP packets (test_rma_pattern_death.c, src/device/rma_pat.c),
# with the target in each kind of epoch: the target's call fails naming the
# dead rank, it applied whole structs in order, and its accumulate lock is
# free for a live origin after. The pair's ring is the smallest (64 KiB,
# RDMACH_SHM_RING_BUDGET=0): the operation (3 MB) must not fit the ring with
# the target draining it, or the death comes after the last packet (rings of
# 2 MiB, 3 ranks' share of the budget, let it through whole in one CI run).
# PUTW off (RDMACH_RMA_PUTW_FROM=0): a put this large would otherwise go as
# PUTW (rma_putw_death.cmake has that case), not as PUTP packets.
foreach(op put acc)
  foreach(epoch fence pscw lockall)
    rdmach_mpi_test(test_rma_pattern_death NP 3 TEST test_rma_pattern_death_${op}_${epoch} TIMEOUT 60
                    ARGS ${op} ${epoch})
    set_tests_properties(test_rma_pattern_death_${op}_${epoch} PROPERTIES
                         ENVIRONMENT "RDMACH_SHM_RING_BUDGET=0;RDMACH_RMA_PUTW_FROM=0")
  endforeach()
endforeach()
