/*
 * The process sets a PMIx server defines (boot.h's rch_boot_psets), for
 * MPI_Session_get_num_psets and its kin.
 *
 * Two ways, the first that answers:
 *   1. PMIx_Query_info(PMIX_QUERY_PSET_NAMES): the names (a comma-separated
 *      string, as pmix_common.h documents it, or an array of strings), then
 *      for each PMIx_Query_info(PMIX_QUERY_PSET_MEMBERSHIP) qualified by
 *      PMIX_PSET_NAME: its members, an array of pmix_proc_t. An answer may
 *      come flat (an info whose key is the query's) or, from OpenPMIx 4 on,
 *      wrapped in PMIX_QUERY_RESULTS arrays: both are searched.
 *   2. PMIx_Get(rank, PMIX_PSET_NAMES) of every rank of the job: the sets
 *      each one is in (servers that register it as job data), if mine
 *      answers at all.
 * A set with a member outside this job's namespace is left out: rdmach's
 * groups hold ranks of its world. A member {nspace, PMIX_RANK_WILDCARD}
 * stands for every rank of that namespace. Members keep the server's order;
 * a repeated one counts once.
 *
 * Found here with Debian 12's servers: neither defines any. Slurm 22.05's
 * mpi/pmix_v4 registers no pset key and gives the server library no query
 * callback (the query fails with UNREACHABLE, PMIX_PSET_NAMES with
 * NOT-FOUND); mpirun.openmpi 4.1.4 (ORTE over OpenPMIx 4.2.2) answers
 * NOT-FOUND to both. So rdmach offers MPI's own sets there.
 */
#include "rdmach_config.h"
#if RDMACH_HAVE_PMIX
#include <pmix.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/log.h"
#include "boot/boot.h"
#include "boot/pmi_select.h"
#include "boot/pmix_pset.h"

static struct rch_boot_pset *sets;
static int nsets, read_done;

const pmix_value_t *rch_boot_pmix_find_result(const pmix_info_t *res, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(res[i].key, key) == 0)
            return &res[i].value;
        const pmix_value_t *v = &res[i].value;
        if (v->type == PMIX_DATA_ARRAY && v->data.darray && v->data.darray->type == PMIX_INFO) {
            const pmix_value_t *in = rch_boot_pmix_find_result(v->data.darray->array, v->data.darray->size, key);
            if (in)
                return in;
        }
    }
    return NULL;
}

static void sets_free(void)
{
    for (int i = 0; i < nsets; i++) {
        free(sets[i].name);
        free(sets[i].ranks);
    }
    free(sets);
    sets = NULL;
    nsets = 0;
}

/* The set `name` (made if new); NULL when out of memory. */
static struct rch_boot_pset *set_named(const char *name)
{
    for (int i = 0; i < nsets; i++)
        if (strcmp(sets[i].name, name) == 0)
            return &sets[i];
    struct rch_boot_pset *p = realloc(sets, (size_t)(nsets + 1) * sizeof(*p));
    if (!p)
        return NULL;
    sets = p;
    p = &sets[nsets];
    *p = (struct rch_boot_pset){ .name = strdup(name), .ranks = malloc((size_t)rch_boot.size * sizeof(int)) };
    if (!p->name || !p->ranks) {
        free(p->name);
        free(p->ranks);
        return NULL;
    }
    nsets++;
    return p;
}

static void add_rank(struct rch_boot_pset *s, int r)
{
    for (int i = 0; i < s->size; i++)
        if (s->ranks[i] == r)
            return;
    s->ranks[s->size++] = r;
}

const struct rch_boot_pset *rch_boot_pmix_pset_add(const char *nspace, const char *name, const pmix_value_t *v)
{
    if (!v || v->type != PMIX_DATA_ARRAY || !v->data.darray || v->data.darray->type != PMIX_PROC) {
        RCH_DEBUG("pmi", "PMIx: process set '%.64s' left out: its members are not an array of processes", name);
        return NULL;
    }
    const pmix_proc_t *procs = v->data.darray->array;
    size_t n = v->data.darray->size;
    for (size_t i = 0; i < n; i++)
        if (strcmp(procs[i].nspace, nspace) != 0 ||
            (procs[i].rank != PMIX_RANK_WILDCARD && procs[i].rank >= (pmix_rank_t)rch_boot.size)) {
            RCH_DEBUG("pmi", "PMIx: process set '%.64s' left out: member %.64s.%u is not of this job", name,
                      procs[i].nspace, (unsigned)procs[i].rank);
            return NULL;
        }
    struct rch_boot_pset *s = set_named(name);
    for (size_t i = 0; s && i < n; i++)
        if (procs[i].rank == PMIX_RANK_WILDCARD)
            for (int r = 0; r < rch_boot.size; r++)
                add_rank(s, r);
        else
            add_rank(s, (int)procs[i].rank);
    return s;
}

char **rch_boot_pmix_pset_names(const pmix_value_t *v)
{
    char **names = NULL;
    size_t n = 0;
    if (v && v->type == PMIX_STRING && v->data.string) {
        char *list = strdup(v->data.string), *save = NULL;
        names = list ? calloc(strlen(list) / 2 + 2, sizeof(char *)) : NULL;   /* at most one a character and comma */
        for (char *t = names ? strtok_r(list, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
            names[n++] = strdup(t);
        free(list);
    } else if (v && v->type == PMIX_DATA_ARRAY && v->data.darray && v->data.darray->type == PMIX_STRING) {
        char *const *in = v->data.darray->array;
        names = calloc(v->data.darray->size + 1, sizeof(char *));
        for (size_t i = 0; names && i < v->data.darray->size; i++)
            if (in[i])
                names[n++] = strdup(in[i]);
    }
    /* (a strdup that failed ends the list there) */
    return names;
}

/* The queries are OpenPMIx 4's (pmix_common.h): an older library has way 2 at most. */
#if defined(PMIX_QUERY_PSET_NAMES) && defined(PMIX_QUERY_PSET_MEMBERSHIP) && defined(PMIX_PSET_NAME)
static pmix_status_t query(const char *key, const char *pset, pmix_info_t **res, size_t *nres)
{
    char *keys[2] = { (char *)key, NULL };
    pmix_info_t qual;
    pmix_query_t q;
    memset(&q, 0, sizeof(q));
    q.keys = keys;
    if (pset) {
        PMIX_INFO_LOAD(&qual, PMIX_PSET_NAME, pset, PMIX_STRING);
        q.qualifiers = &qual;
        q.nqual = 1;
    }
    *res = NULL;
    *nres = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    if (pset)
        PMIX_INFO_DESTRUCT(&qual);
    return rc;
}

static void membership(const char *nspace, const char *name)
{
    pmix_info_t *res;
    size_t n;
    pmix_status_t rc = query(PMIX_QUERY_PSET_MEMBERSHIP, name, &res, &n);
    if (rc == PMIX_SUCCESS)
        rch_boot_pmix_pset_add(nspace, name, rch_boot_pmix_find_result(res, n, PMIX_QUERY_PSET_MEMBERSHIP));
    else
        RCH_DEBUG("pmi", "PMIx: process set '%.64s' left out: its membership query gave %s", name,
                  PMIx_Error_string(rc));
    PMIX_INFO_FREE(res, n);
}

/* Way 1; the server's answer to the names query. */
static pmix_status_t by_query(const char *nspace)
{
    pmix_info_t *res;
    size_t n;
    pmix_status_t rc = query(PMIX_QUERY_PSET_NAMES, NULL, &res, &n);
    char **names = rc == PMIX_SUCCESS ? rch_boot_pmix_pset_names(rch_boot_pmix_find_result(res, n,
                                                                                           PMIX_QUERY_PSET_NAMES))
                                      : NULL;
    if (rc == PMIX_SUCCESS && !names)
        rc = PMIX_ERR_BAD_PARAM;   /* an answer of another shape */
    PMIX_INFO_FREE(res, n);
    for (size_t i = 0; names && names[i]; i++) {
        membership(nspace, names[i]);
        free(names[i]);
    }
    free(names);
    return rc;
}
#else
static pmix_status_t by_query(const char *nspace)
{
    (void)nspace;
    return PMIX_ERR_NOT_SUPPORTED;
}
#endif

/* Way 2; the status of my own rank's get. */
#ifdef PMIX_PSET_NAMES
static pmix_status_t by_get(const char *nspace)
{
    pmix_info_t opt;
    bool yes = true;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_status_t mine = PMIX_SUCCESS;
    for (int k = 0; k < rch_boot.size; k++) {
        int r = (rch_boot.rank + k) % rch_boot.size;   /* mine first: it says whether the server has them */
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        PMIX_LOAD_PROCID(&p, nspace, (pmix_rank_t)r);
        pmix_status_t rc = PMIx_Get(&p, PMIX_PSET_NAMES, &opt, 1, &v);
        if (k == 0 && (mine = rc) != PMIX_SUCCESS)
            break;
        if (rc == PMIX_SUCCESS && v->type == PMIX_DATA_ARRAY && v->data.darray &&
            v->data.darray->type == PMIX_STRING) {
            char **names = v->data.darray->array;
            for (size_t i = 0; i < v->data.darray->size; i++) {
                struct rch_boot_pset *s = set_named(names[i]);
                if (s)
                    add_rank(s, r);
            }
        }
        if (v)
            PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&opt);
    /* members in job order: ascending */
    for (int i = 0; i < nsets; i++)
        for (int a = 1; a < sets[i].size; a++)
            for (int b = a; b > 0 && sets[i].ranks[b - 1] > sets[i].ranks[b]; b--) {
                int t = sets[i].ranks[b];
                sets[i].ranks[b] = sets[i].ranks[b - 1];
                sets[i].ranks[b - 1] = t;
            }
    return mine;
}
#else
static pmix_status_t by_get(const char *nspace)
{
    (void)nspace;
    return PMIX_ERR_NOT_SUPPORTED;
}
#endif

void rch_boot_pmix_psets(const struct rch_boot_pset **out, int *n)
{
    if (!read_done) {
        read_done = 1;
        const char *nspace = rch_boot_pmix_nspace();
        pmix_status_t q = by_query(nspace), g = PMIX_SUCCESS;
        if (nsets == 0)
            g = by_get(nspace);
        if (nsets == 0)
            RCH_DEBUG("pmi", "PMIx: the server defines no process sets (query of PMIX_QUERY_PSET_NAMES: %s, "
                      "PMIX_PSET_NAMES of my rank: %s)", PMIx_Error_string(q), PMIx_Error_string(g));
        for (int i = 0; i < nsets; i++)
            RCH_DEBUG("pmi", "PMIx: process set '%.64s' of %d processes from the server", sets[i].name,
                      sets[i].size);
    }
    *out = sets;
    *n = nsets;
}

void rch_boot_pmix_psets_free(void)
{
    sets_free();
    read_done = 0;
}
#endif
