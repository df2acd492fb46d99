# The shmseg collectives (alltoall and allreduce through the node segment,
# src/coll/*_shmseg.c, coll_nodeseg.c) on the fake device (included by
# tests/coll/CMakeLists.txt).
rdmach_unit_test(test_shmseg LAYERS rch_base rch_boot rch_coll
                 SOURCES test_shmseg.c fake_dev.c LABELS coll threads)
set_tests_properties(test_shmseg PROPERTIES TIMEOUT 300)
