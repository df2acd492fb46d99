/* What src/boot/pmix_pset.c makes of a PMIx server's answers about process
 * sets, in the shapes OpenPMIx 4's pmix_common.h documents: the answers are
 * built here as values (no server defines process sets on Debian 12: see
 * pmix_pset.c; the queries themselves run against the real servers in
 * boot_openmpi_pmix_session_psets and slurm_srun_pmix_session_psets). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "boot/boot.h"
#include "boot/pmi_select.h"
#include "boot/pmix_pset.h"

#define NS "job-7"

static pmix_value_t procs_value(pmix_data_array_t *da, pmix_proc_t *procs, size_t n)
{
    *da = (pmix_data_array_t){ .type = PMIX_PROC, .size = n, .array = procs };
    pmix_value_t v = { .type = PMIX_DATA_ARRAY };
    v.data.darray = da;
    return v;
}

static pmix_proc_t proc(const char *ns, pmix_rank_t r)
{
    pmix_proc_t p;
    memset(&p, 0, sizeof(p));
    strcpy(p.nspace, ns);
    p.rank = r;
    return p;
}

static void fini(void)
{
    rch_boot_pmix_psets_free();
}

TestSuite(pmix_pset, .init = NULL, .fini = fini);

Test(pmix_pset, result_found_flat_and_in_query_results)
{
    pmix_info_t flat[2];
    memset(flat, 0, sizeof(flat));
    strcpy(flat[0].key, "pmix.other");
    strcpy(flat[1].key, PMIX_QUERY_PSET_NAMES);
    cr_assert_eq(rch_boot_pmix_find_result(flat, 2, PMIX_QUERY_PSET_NAMES), &flat[1].value);
    cr_assert_null(rch_boot_pmix_find_result(flat, 1, PMIX_QUERY_PSET_NAMES));
    /* OpenPMIx 4: {PMIX_QUERY_RESULTS: [{PMIX_QUERY_QUALIFIERS: ...}, {key: value}]} */
    pmix_info_t inner[2], outer;
    memset(inner, 0, sizeof(inner));
    memset(&outer, 0, sizeof(outer));
    strcpy(inner[0].key, PMIX_QUERY_QUALIFIERS);
    strcpy(inner[1].key, PMIX_QUERY_PSET_MEMBERSHIP);
    pmix_data_array_t da = { .type = PMIX_INFO, .size = 2, .array = inner };
    strcpy(outer.key, PMIX_QUERY_RESULTS);
    outer.value.type = PMIX_DATA_ARRAY;
    outer.value.data.darray = &da;
    cr_assert_eq(rch_boot_pmix_find_result(&outer, 1, PMIX_QUERY_PSET_MEMBERSHIP), &inner[1].value);
    cr_assert_null(rch_boot_pmix_find_result(&outer, 1, PMIX_QUERY_PSET_NAMES));
}

static void check_names(char **names, const char *const *want, int n)
{
    cr_assert_not_null(names);
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(names[i], want[i]);
        free(names[i]);
    }
    cr_assert_null(names[n], "more than %d names", n);
    free(names);
}

Test(pmix_pset, names_from_a_comma_list_or_an_array_of_strings)
{
    static const char *const want[] = { "app://ocean", "app://atmosphere", "x" };
    pmix_value_t v = { .type = PMIX_STRING };
    v.data.string = "app://ocean,app://atmosphere,x";
    check_names(rch_boot_pmix_pset_names(&v), want, 3);
    v.data.string = "";
    check_names(rch_boot_pmix_pset_names(&v), want, 0);
    char *arr[] = { "app://ocean", "app://atmosphere" };
    pmix_data_array_t da = { .type = PMIX_STRING, .size = 2, .array = arr };
    pmix_value_t a = { .type = PMIX_DATA_ARRAY };
    a.data.darray = &da;
    check_names(rch_boot_pmix_pset_names(&a), want, 2);
    pmix_value_t other = { .type = PMIX_UINT32 };
    cr_assert_null(rch_boot_pmix_pset_names(&other));
    cr_assert_null(rch_boot_pmix_pset_names(NULL));
}

Test(pmix_pset, members_in_the_servers_order_once_each)
{
    rch_boot.size = 4;
    pmix_proc_t p[] = { proc(NS, 2), proc(NS, 0), proc(NS, 2), proc(NS, 3) };
    pmix_data_array_t da;
    pmix_value_t v = procs_value(&da, p, 4);
    const struct rch_boot_pset *s = rch_boot_pmix_pset_add(NS, "app://a", &v);
    cr_assert_not_null(s);
    cr_assert_str_eq(s->name, "app://a");
    cr_assert_eq(s->size, 3);
    cr_assert(s->ranks[0] == 2 && s->ranks[1] == 0 && s->ranks[2] == 3, "ranks %d %d %d", s->ranks[0], s->ranks[1],
              s->ranks[2]);
    const struct rch_boot_pset *sets;
    int n;
    rch_boot_psets(&sets, &n);   /* not a PMIx process: the launcher's sets are not asked for */
    cr_assert_eq(n, 0);
}

Test(pmix_pset, wildcard_is_the_whole_namespace)
{
    rch_boot.size = 3;
    pmix_proc_t p[] = { proc(NS, 1), proc(NS, PMIX_RANK_WILDCARD) };
    pmix_data_array_t da;
    pmix_value_t v = procs_value(&da, p, 2);
    const struct rch_boot_pset *s = rch_boot_pmix_pset_add(NS, "all", &v);
    cr_assert_not_null(s);
    cr_assert_eq(s->size, 3);
    cr_assert(s->ranks[0] == 1 && s->ranks[1] == 0 && s->ranks[2] == 2);
}

Test(pmix_pset, a_set_with_a_member_outside_the_job_is_left_out)
{
    rch_boot.size = 4;
    pmix_proc_t other_ns[] = { proc(NS, 0), proc("job-8", 0) };
    pmix_proc_t too_high[] = { proc(NS, 0), proc(NS, 4) };
    pmix_data_array_t da;
    pmix_value_t v = procs_value(&da, other_ns, 2);
    cr_assert_null(rch_boot_pmix_pset_add(NS, "mixed", &v));
    v = procs_value(&da, too_high, 2);
    cr_assert_null(rch_boot_pmix_pset_add(NS, "high", &v));
    pmix_value_t s = { .type = PMIX_STRING };
    s.data.string = "0,1";
    cr_assert_null(rch_boot_pmix_pset_add(NS, "string", &s));
    cr_assert_null(rch_boot_pmix_pset_add(NS, "none", NULL));
    /* nothing of "mixed" was kept: given again with rank 1 alone, it is {1} */
    pmix_proc_t ok[] = { proc(NS, 1) };
    v = procs_value(&da, ok, 1);
    const struct rch_boot_pset *again = rch_boot_pmix_pset_add(NS, "mixed", &v);
    cr_assert_not_null(again);
    cr_assert(again->size == 1 && again->ranks[0] == 1, "size %d", again->size);
}
