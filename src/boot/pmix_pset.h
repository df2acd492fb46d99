/*
 * pmix_pset.c's readers of a PMIx server's answers about process sets, apart
 * so that tests/boot/test_pmix_pset.c can give them values of the shapes
 * OpenPMIx documents; needs pmix.h (a build with PMIx only).
 */
#ifndef RCH_BOOT_PMIX_PSET_H
#define RCH_BOOT_PMIX_PSET_H

#include <pmix.h>
#include "boot/boot.h"

/* The value of `key` in a query's results (flat, or in PMIX_QUERY_RESULTS
 * arrays; NULL if absent); the names of PMIX_QUERY_PSET_NAMES's answer (a
 * comma-separated string or an array of strings: a NULL-terminated array,
 * it and its strings malloc'd; NULL for any other value); and set `name`
 * with the members of PMIX_QUERY_PSET_MEMBERSHIP's answer added (NULL, and
 * no set, unless all are ranks of namespace nspace and this job). */
const pmix_value_t *rch_boot_pmix_find_result(const pmix_info_t *res, size_t n, const char *key);
char **rch_boot_pmix_pset_names(const pmix_value_t *v);
const struct rch_boot_pset *rch_boot_pmix_pset_add(const char *nspace, const char *name, const pmix_value_t *v);

#endif
