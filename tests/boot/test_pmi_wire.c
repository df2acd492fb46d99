/* PMI-1 wire protocol: parsing, formatting and framing of lines. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "boot/pmi_wire.h"

static struct rch_pmi_msg m;

static rdmach_status_t parse(const char *s)
{
    return rch_pmi_parse(s, strlen(s), &m);
}

Test(pmi_wire, parses_hydra_replies_verbatim)
{
    cr_assert_eq(parse("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"), RDMACH_OK);
    cr_assert_eq(m.cmd, RCH_PMI_RESPONSE_TO_INIT);
    cr_assert_eq(m.nfields, 3);
    cr_assert_str_eq(rch_pmi_field(&m, "pmi_subversion"), "1");

    cr_assert_eq(parse("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n"), RDMACH_OK);
    int v;
    cr_assert_eq(rch_pmi_field_int(&m, "vallen_max", 1, 1 << 20, &v), RDMACH_OK);
    cr_assert_eq(v, 1024);

    cr_assert_eq(parse("cmd=get_result rc=0 msg=success value=(vector,(0,1,1))\n"), RDMACH_OK);
    cr_assert_eq(m.cmd, RCH_PMI_GET_RESULT);
    cr_assert_str_eq(rch_pmi_field(&m, "value"), "(vector,(0,1,1))");

    cr_assert_eq(parse("cmd=get_result rc=-1 msg=key_nonexist_not_found value=unknown\n"), RDMACH_OK);
    cr_assert_eq(rch_pmi_field_int(&m, "rc", -100, 100, &v), RDMACH_OK);
    cr_assert_eq(v, -1);

    cr_assert_eq(parse("cmd=barrier_out\n"), RDMACH_OK);
    cr_assert_eq(m.cmd, RCH_PMI_BARRIER_OUT);
    cr_assert_eq(m.nfields, 0);
}

Test(pmi_wire, value_keeps_equal_signs_and_extra_spaces_are_skipped)
{
    cr_assert_eq(parse("cmd=put   kvsname=k  key=a value=x=y==z  "), RDMACH_OK);
    cr_assert_eq(m.cmd, RCH_PMI_PUT);
    cr_assert_str_eq(rch_pmi_field(&m, "value"), "x=y==z");
    cr_assert_str_eq(rch_pmi_field(&m, "key"), "a");
    cr_assert_eq(parse("cmd=put kvsname=k key=a value=\n"), RDMACH_OK);
    cr_assert_str_eq(rch_pmi_field(&m, "value"), "");
}

Test(pmi_wire, rejects_malformed_lines_with_a_message)
{
    cr_assert_eq(parse("\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "empty"));
    cr_assert_eq(parse("   \n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert_eq(parse("key=a cmd=put\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "does not start with cmd="), "%s", rdmach_last_error());
    cr_assert_eq(parse("cmd=frobnicate\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "unknown command 'frobnicate'"), "%s", rdmach_last_error());
    cr_assert_eq(parse("cmd=put kvsname\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "'kvsname' has no '='"), "%s", rdmach_last_error());
    cr_assert_eq(parse("cmd=put =x\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "empty key"), "%s", rdmach_last_error());
    cr_assert_eq(parse("cmd=put key=a key=b\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "duplicate field 'key'"), "%s", rdmach_last_error());
    cr_assert_eq(parse("cmd=put cmd=get\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert_eq(parse("cmd=put key=a\tvalue=b\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "0x09"), "%s", rdmach_last_error());
    cr_assert_eq(parse("cmd=put key=a\r\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert_eq(parse("cmd=put key=\xc3\xa9\n"), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert_eq(rch_pmi_parse("cmd=put\0key=a\n", 14, &m), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert_eq(parse("mcmd=spawn\n"), RDMACH_ERR_BOOT_PROTOCOL);
}

Test(pmi_wire, rejects_too_many_fields)
{
    char line[512] = "cmd=put";
    for (int i = 0; i <= RCH_PMI_FIELDS_MAX; i++)
        sprintf(line + strlen(line), " f%d=%d", i, i);
    cr_assert_eq(parse(line), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "more than"), "%s", rdmach_last_error());
}

Test(pmi_wire, rejects_oversized_line_in_parse)
{
    static char line[RCH_PMI_LINE_MAX + 32];
    strcpy(line, "cmd=put value=");
    memset(line + strlen(line), 'x', RCH_PMI_LINE_MAX);
    line[RCH_PMI_LINE_MAX + 2] = '\0';
    cr_assert_eq(parse(line), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "exceeds the maximum"), "%s", rdmach_last_error());
    /* exactly RCH_PMI_LINE_MAX bytes with the newline is legal */
    line[RCH_PMI_LINE_MAX - 1] = '\n';
    line[RCH_PMI_LINE_MAX] = '\0';
    cr_assert_eq(parse(line), RDMACH_OK, "%s", rdmach_last_error());
}

Test(pmi_wire, formats_lines_that_parse_back)
{
    char line[RCH_PMI_LINE_MAX];
    size_t len;
    cr_assert_eq(rch_pmi_format(line, sizeof(line), &len, RCH_PMI_INIT, "pmi_version", "1",
                                "pmi_subversion", "1", NULL), RDMACH_OK);
    cr_assert_str_eq(line, "cmd=init pmi_version=1 pmi_subversion=1\n");
    cr_assert_eq(len, strlen(line));
    cr_assert_eq(rch_pmi_format(line, sizeof(line), &len, RCH_PMI_BARRIER_IN, NULL), RDMACH_OK);
    cr_assert_str_eq(line, "cmd=barrier_in\n");

    /* the longest legal put fits */
    char kvs[RCH_PMI_KVSNAME_MAX], key[RCH_PMI_KEY_MAX], val[RCH_PMI_VAL_MAX];
    memset(kvs, 'k', sizeof(kvs) - 1);
    kvs[sizeof(kvs) - 1] = '\0';
    memset(key, 'y', sizeof(key) - 1);
    key[sizeof(key) - 1] = '\0';
    memset(val, 'v', sizeof(val) - 1);
    val[sizeof(val) - 1] = '\0';
    cr_assert_eq(rch_pmi_format(line, sizeof(line), &len, RCH_PMI_PUT, "kvsname", kvs, "key", key,
                                "value", val, NULL), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_pmi_parse(line, len, &m), RDMACH_OK);
    cr_assert_str_eq(rch_pmi_field(&m, "value"), val);
    cr_assert_str_eq(rch_pmi_field(&m, "key"), key);
}

Test(pmi_wire, format_rejects_values_the_wire_cannot_carry)
{
    char line[RCH_PMI_LINE_MAX], big[RCH_PMI_VAL_MAX + 1];
    size_t len;
    cr_assert_eq(rch_pmi_format(line, sizeof(line), &len, RCH_PMI_PUT, "value", "a b", NULL),
                 RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_pmi_format(line, sizeof(line), &len, RCH_PMI_PUT, "value", "a\nb", NULL),
                 RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_pmi_format(line, sizeof(line), &len, RCH_PMI_PUT, "k=y", "a", NULL),
                 RDMACH_ERR_INVALID_ARG);
    memset(big, 'v', RCH_PMI_VAL_MAX);
    big[RCH_PMI_VAL_MAX] = '\0';
    cr_assert_eq(rch_pmi_format(line, sizeof(line), &len, RCH_PMI_PUT, "value", big, NULL),
                 RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_pmi_format(line, 16, &len, RCH_PMI_PUT, "key", "abcdefghijk", NULL),
                 RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "does not fit"), "%s", rdmach_last_error());
}

/* A pipe stands in for the socket: the reader only reads. */
static struct rch_pmi_reader rd;
static int pfd[2];

static void open_pipe(void)
{
    cr_assert_eq(pipe2(pfd, O_NONBLOCK), 0);
    rch_pmi_reader_init(&rd, pfd[0]);
}

static void send_bytes(const char *s, size_t n)
{
    cr_assert_eq(write(pfd[1], s, n), (ssize_t)n);
}

Test(pmi_reader, frames_lines_split_across_reads_and_several_per_read)
{
    open_pipe();
    cr_assert_eq(rch_pmi_reader_fill(&rd), RDMACH_AGAIN);
    send_bytes("cmd=barrier_out\ncmd=get_res", 27);
    cr_assert_eq(rch_pmi_reader_fill(&rd), RDMACH_OK);
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_OK);
    cr_assert_eq(m.cmd, RCH_PMI_BARRIER_OUT);
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_AGAIN);
    send_bytes("ult rc=0 value=v\ncmd=finalize_ack\n", 34);
    cr_assert_eq(rch_pmi_reader_fill(&rd), RDMACH_OK);
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_OK);
    cr_assert_eq(m.cmd, RCH_PMI_GET_RESULT);
    cr_assert_str_eq(rch_pmi_field(&m, "value"), "v");
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_OK);
    cr_assert_eq(m.cmd, RCH_PMI_FINALIZE_ACK);
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_AGAIN);
    close(pfd[1]);
    cr_assert_eq(rch_pmi_reader_fill(&rd), RDMACH_ERR_PEER_DEAD);
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_AGAIN); /* clean end: nothing pending */
    close(pfd[0]);
}

Test(pmi_reader, reports_a_truncated_line_at_end_of_stream)
{
    open_pipe();
    send_bytes("cmd=get_result rc=0 val", 23);
    close(pfd[1]);
    cr_assert_eq(rch_pmi_reader_fill(&rd), RDMACH_OK);
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_AGAIN);
    cr_assert_eq(rch_pmi_reader_fill(&rd), RDMACH_ERR_PEER_DEAD);
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "truncated"), "%s", rdmach_last_error());
    cr_assert(strstr(rdmach_last_error(), "cmd=get_result rc=0 val"), "%s", rdmach_last_error());
    close(pfd[0]);
}

Test(pmi_reader, reports_an_oversized_line_without_newline)
{
    static char junk[RCH_PMI_LINE_MAX + 100];
    memset(junk, 'z', sizeof(junk));
    open_pipe();
    send_bytes(junk, sizeof(junk));
    while (rch_pmi_reader_fill(&rd) == RDMACH_OK && rd.len < sizeof(rd.buf))
        ;
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "oversized"), "%s", rdmach_last_error());
    /* the stream is unusable afterwards: no line framed from its tail */
    cr_assert_eq(rch_pmi_reader_fill(&rd), RDMACH_ERR_PEER_DEAD);
    close(pfd[0]);
    close(pfd[1]);
}

Test(pmi_reader, a_malformed_line_is_consumed_and_the_next_one_parses)
{
    open_pipe();
    send_bytes("cmd=bogus\ncmd=barrier_out\n", 26);
    cr_assert_eq(rch_pmi_reader_fill(&rd), RDMACH_OK);
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert_eq(rch_pmi_reader_next(&rd, &m), RDMACH_OK);
    cr_assert_eq(m.cmd, RCH_PMI_BARRIER_OUT);
    close(pfd[0]);
    close(pfd[1]);
}
