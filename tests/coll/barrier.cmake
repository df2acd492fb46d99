# The barrier framework (src/coll/barrier_*.c) on the fake device: every
# backend that runs within one process, under many consecutive barriers
# with more threads than cores, and the choice of backend (included by
# tests/coll/CMakeLists.txt).
rdmach_unit_test(test_barrier_backends LAYERS rch_base rch_boot rch_coll
                 SOURCES test_barrier_backends.c fake_dev.c LABELS coll threads)
