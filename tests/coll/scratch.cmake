# The collectives' scratch buffers kept between calls (src/coll/coll_scratch.c).
rdmach_unit_test(test_coll_scratch LAYERS rch_base rch_boot rch_coll
                 SOURCES test_coll_scratch.c fake_dev.c LABELS coll)
