/* The tunables table: parsing of every type, range checks, the error
 * message (names the variable and what it accepts), loading from the
 * environment. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/tunables.h"

static const struct rch_tun_row *row(const char *name)
{
    const struct rch_tun_row *r = rch_base_tun_find(name);
    cr_assert_not_null(r, "no tunable %s", name);
    return r;
}

static size_t size_of(const char *name, const char *text)
{
    size_t v = 0;
    cr_assert_eq(rch_base_tun_parse(row(name), text, &v), RDMACH_OK, "%s=%s: %s", name, text, rdmach_last_error());
    return v;
}

static int int_of(const char *name, const char *text)
{
    int v = -12345;
    cr_assert_eq(rch_base_tun_parse(row(name), text, &v), RDMACH_OK, "%s=%s: %s", name, text, rdmach_last_error());
    return v;
}

/* The value is refused with RDMACH_ERR_CONFIG and a message naming the
 * variable, the value and `accepts`. */
static void refused(const char *name, const char *text, const char *accepts)
{
    char dst[64];
    char var[64];
    snprintf(var, sizeof(var), "RDMACH_%s", name);
    cr_assert_eq(rch_base_tun_parse(row(name), text, dst), RDMACH_ERR_CONFIG, "%s='%s' accepted", var, text);
    const char *msg = rdmach_last_error();
    cr_assert(strstr(msg, var), "message does not name %s: %s", var, msg);
    cr_assert(strstr(msg, accepts), "message does not say '%s': %s", accepts, msg);
}

Test(tunables, sizes_take_k_m_g_suffixes)
{
    cr_assert_eq(size_of("SHM_RING_SIZE", "65536"), 65536);
    cr_assert_eq(size_of("SHM_RING_SIZE", "64k"), 65536);
    cr_assert_eq(size_of("SHM_RING_SIZE", "64K"), 65536);
    cr_assert_eq(size_of("SHM_RING_SIZE", "8kb"), 8192);
    cr_assert_eq(size_of("SHM_RING_SIZE", "2m"), 2u << 20);
    cr_assert_eq(size_of("SHM_RING_SIZE", " 16k "), 16384);
    cr_assert_eq(size_of("RNDV_THRESHOLD", "1g"), 1u << 30);
    cr_assert_eq(size_of("RNDV_THRESHOLD", "0"), 0);
}

Test(tunables, sizes_out_of_range_or_malformed_are_refused)
{
    const char *acc = "a size from 4096 to 67108864 bytes";
    refused("SHM_RING_SIZE", "1k", acc);          /* below the minimum */
    refused("SHM_RING_SIZE", "65m", acc);         /* above the maximum */
    refused("SHM_RING_SIZE", "-4096", acc);
    refused("SHM_RING_SIZE", "", acc);
    refused("SHM_RING_SIZE", "abc", acc);
    refused("SHM_RING_SIZE", "64x", acc);
    refused("SHM_RING_SIZE", "64kk", acc);
    refused("SHM_RING_SIZE", "1e4", acc);
    refused("SHM_RING_SIZE", "99999999999999999999", acc);
    refused("RNDV_THRESHOLD", "17179869184g", "a size from 0 to"); /* overflows when multiplied */
}

Test(tunables, integers_are_ranged_and_take_no_suffix)
{
    cr_assert_eq(int_of("VNODE_SIZE", "0"), 0);
    cr_assert_eq(int_of("VNODE_SIZE", "4"), 4);
    cr_assert_eq(int_of("EAGER_CREDITS", "2"), 2);
    refused("VNODE_SIZE", "-1", "an integer from 0 to 1048576");
    refused("VNODE_SIZE", "1048577", "an integer from 0 to 1048576");
    refused("VNODE_SIZE", "4k", "an integer from 0 to 1048576");
    refused("VNODE_SIZE", "four", "an integer from 0 to 1048576");
    refused("EAGER_CREDITS", "1", "an integer from 2 to 65536");
}

Test(tunables, enums_match_their_choices_case_insensitively)
{
    cr_assert_eq(int_of("BIND", "none"), RCH_BIND_NONE);
    cr_assert_eq(int_of("BIND", "core"), RCH_BIND_CORE);
    cr_assert_eq(int_of("BIND", "NUMA"), RCH_BIND_NUMA);
    cr_assert_eq(int_of("RNDV_MODE", "get"), RCH_RNDV_GET);
    refused("BIND", "cores", "none|core|numa");
    refused("BIND", "", "none|core|numa");
    refused("BIND", "core|numa", "none|core|numa");
    refused("LOG", "verbose", "error|warn|info|debug|trace");
}

Test(tunables, bools_accept_on_off_and_the_usual_spellings)
{
    const char *yes[] = { "on", "ON", "1", "yes", "true" }, *no[] = { "off", "0", "no", "False" };
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(int_of("SHM", yes[i]), 1, "%s", yes[i]);
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(int_of("SHM", no[i]), 0, "%s", no[i]);
    refused("SHM", "maybe", "on|off");
    refused("SHM", "2", "on|off");
}

Test(tunables, strings_have_a_length_limit)
{
    char v[64], big[80];
    cr_assert_eq(rch_base_tun_parse(row("OFI_PROVIDER"), "tcp;ofi_rxm", v), RDMACH_OK);
    cr_assert_str_eq(v, "tcp;ofi_rxm");
    memset(big, 'p', 64);
    big[64] = '\0';
    cr_assert_eq(rch_base_tun_parse(row("OFI_PROVIDER"), big, v), RDMACH_ERR_CONFIG);
    cr_assert(strstr(rdmach_last_error(), "RDMACH_OFI_PROVIDER"), "%s", rdmach_last_error());
}

Test(tunables, every_default_parses_and_every_row_has_help)
{
    for (size_t i = 0; i < rch_base_tun_count(); i++) {
        const struct rch_tun_row *r = rch_base_tun_row(i);
        char dst[64];
        cr_assert_eq(rch_base_tun_parse(r, r->def, dst), RDMACH_OK, "default of %s: %s", r->name, rdmach_last_error());
        cr_assert(r->help && strlen(r->help) > 10, "%s has no help", r->name);
        cr_assert_eq(rch_base_tun_find(r->name), r);
    }
    cr_assert_null(rch_base_tun_row(rch_base_tun_count()));
    cr_assert_null(rch_base_tun_find("NO_SUCH_KNOB"));
}

Test(tunables, load_reads_the_environment)
{
    setenv("RDMACH_BIND", "numa", 1);
    setenv("RDMACH_SHM_EAGER_MAX", "8k", 1);
    setenv("RDMACH_VNODE_SIZE", "3", 1);
    setenv("RDMACH_NOT_A_KNOB", "1", 1); /* warned about, not fatal */
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_tun.bind, RCH_BIND_NUMA);
    cr_assert_eq(rch_tun.shm_eager_max, 8192);
    cr_assert_eq(rch_tun.vnode_size, 3);
    cr_assert_eq(rch_tun.shm_ring_size, 65536); /* default */
    char buf[64];
    rch_base_tun_format(row("BIND"), buf, sizeof(buf));
    cr_assert_str_eq(buf, "numa");
    rch_base_tun_format(row("SHM_EAGER_MAX"), buf, sizeof(buf));
    cr_assert_str_eq(buf, "8192");
    rch_base_tun_format(row("SHM"), buf, sizeof(buf));
    cr_assert_str_eq(buf, "on");
}

Test(tunables, load_fails_on_a_malformed_variable_naming_it)
{
    setenv("RDMACH_BIND", "cores", 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_ERR_CONFIG);
    cr_assert(strstr(rdmach_last_error(), "RDMACH_BIND: 'cores' is not valid; accepted: none|core|numa"), "%s",
              rdmach_last_error());
}

/* ---- where a value comes from: default < machine < tuning file < environment ---- */

static size_t row_index(const char *name)
{
    for (size_t i = 0; i < rch_base_tun_count(); i++)
        if (strcmp(rch_base_tun_row(i)->name, name) == 0)
            return i;
    return (size_t)-1;
}

static char *tuning_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof(path), "/tmp/rdmach-tunefile-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

Test(tunables, file_lines_apply_below_the_environment_and_above_the_machine)
{
    const char *path = tuning_file("rdmach-tuning 1\n# measured\nalltoall any * * * * linear\n"
                                   "tunable SHM_CMA_FROM 4m\ntunable SHM_NT_FROM 8m\n");
    setenv("RDMACH_TUNING_FILE", path, 1);
    setenv("RDMACH_SHM_NT_FROM", "1m", 1);
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_tun.shm_cma_from, 4u << 20);      /* the file's */
    cr_assert_eq(rch_tun.shm_nt_from, 1u << 20);       /* the environment's */
    const char *why;
    cr_assert_eq(rch_base_tun_origin(row_index("SHM_CMA_FROM"), &why), RCH_TUN_FROM_FILE);
    cr_assert(strstr(why, ":4"), "names the line: %s", why);
    cr_assert_eq(rch_base_tun_origin(row_index("SHM_NT_FROM"), &why), RCH_TUN_FROM_ENV);
    /* the machine does not override either, but does a default */
    cr_assert_eq(rch_base_tun_machine("SHM_CMA_FROM", "1k", "test"), RDMACH_OK);
    cr_assert_eq(rch_tun.shm_cma_from, 4u << 20);
    cr_assert_eq(rch_base_tun_machine("SHM_PIPE_CHUNK", "128k", "a test rule"), RDMACH_OK);
    cr_assert_eq(rch_tun.shm_pipe_chunk, 128u << 10);
    cr_assert_eq(rch_base_tun_origin(row_index("SHM_PIPE_CHUNK"), &why), RCH_TUN_FROM_MACHINE);
    cr_assert_str_eq(why, "machine: a test rule");
    cr_assert_eq(rch_base_tun_origin(row_index("SHM_RING_SIZE"), &why), RCH_TUN_FROM_DEFAULT);
    cr_assert_str_eq(why, "default");
    unsetenv("RDMACH_TUNING_FILE");
    unsetenv("RDMACH_SHM_NT_FROM");
    unlink(path);
}

Test(tunables, malformed_tunable_lines_are_refused_naming_the_line)
{
    static const struct { const char *text, *want; } cases[] = {
        { "rdmach-tuning 1\ntunable SHM_NOPE 3\n", ":2: 'SHM_NOPE' is not a tunable" },
        { "rdmach-tuning 1\n\ntunable SHM_NT_FROM 3q\n", ":3: RDMACH_SHM_NT_FROM: '3q' is not valid" },
        { "rdmach-tuning 1\ntunable SHM_NT_FROM\n", ":2: expected 'tunable NAME VALUE', found 2" },
        { "rdmach-tuning 1\ntunable SHM_NT_FROM 1 2\n", ":2: expected 'tunable NAME VALUE', found more" },
        { "tunable SHM_NT_FROM 1\n", ":1: expected the header 'rdmach-tuning 1'" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *path = tuning_file(cases[i].text);
        setenv("RDMACH_TUNING_FILE", path, 1);
        cr_assert_eq(rch_base_tun_load(), RDMACH_ERR_CONFIG, "case %zu loaded", i);
        cr_assert(strstr(rdmach_last_error(), cases[i].want), "case %zu: %s", i, rdmach_last_error());
        unlink(path);
    }
    unsetenv("RDMACH_TUNING_FILE");
}
