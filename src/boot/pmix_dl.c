/*
 * libpmix, opened when the bootstrap chooses PMIx (pmi_select.c), not
 * linked (base/dl.h): under PMI-1 and PMI-2 launchers it and what it pulls
 * in (libevent, munge, hwloc's plugins) are never loaded. RTLD_GLOBAL: its
 * MCA plugins (pmix2/lib/pmix/pmix_mca_*.so) resolve libpmix's symbols from the
 * global scope. libpmix has no symbol versions. pmix.h declares its
 * functions visibility("default"): cmake/dl_wrappers.map keeps these
 * wrappers out of librdmach's exports all the same.
 */
#include "rdmach_config.h"
#if RDMACH_HAVE_PMIX
#include <pmix.h>
#include "base/dl.h"
#include "boot/pmi_select.h"

static struct rch_base_dl pmix_dl = { .soname = "libpmix.so.2", .what = "the PMIx bootstrap", .global = 1 };

rdmach_status_t rch_boot_pmix_dl_open(void)
{
    return rch_base_dl_open(&pmix_dl);
}

RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Init, (pmix_proc_t *proc, pmix_info_t info[], size_t ninfo),
          (proc, info, ninfo))
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Finalize, (const pmix_info_t info[], size_t ninfo), (info, ninfo))
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Abort, (int status, const char msg[], pmix_proc_t procs[], size_t nprocs),
          (status, msg, procs, nprocs))
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Put, (pmix_scope_t scope, const char key[], pmix_value_t *val),
          (scope, key, val))
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Commit, (void), ())
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Fence,
          (const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[], size_t ninfo),
          (procs, nprocs, info, ninfo))
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Get,
          (const pmix_proc_t *proc, const char key[], const pmix_info_t info[], size_t ninfo, pmix_value_t **val),
          (proc, key, info, ninfo, val))
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Spawn,
          (const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[], size_t napps, pmix_nspace_t nspace),
          (job_info, ninfo, apps, napps, nspace))
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Query_info,
          (pmix_query_t queries[], size_t nqueries, pmix_info_t **results, size_t *nresults),
          (queries, nqueries, results, nresults))
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Info_load,
          (pmix_info_t *info, const char *key, const void *data, pmix_data_type_t type), (info, key, data, type))
RCH_DL_FN(pmix_dl, NULL, pmix_status_t, PMIx_Value_load, (pmix_value_t *val, const void *data, pmix_data_type_t type),
          (val, data, type))
RCH_DL_VOID(pmix_dl, NULL, PMIx_Value_destruct, (pmix_value_t *val), (val))
RCH_DL_FN(pmix_dl, NULL, const char *, PMIx_Error_string, (pmix_status_t status), (status))
RCH_DL_FN(pmix_dl, NULL, const char *, PMIx_Data_type_string, (pmix_data_type_t type), (type))
#endif
