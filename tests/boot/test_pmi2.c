/* PMI-2: the wire format (frames, ';;' escapes, malformed input) and the
 * client against a scripted server that replies verbatim what Hydra 4.0.2
 * sent (pmi2_wire.h), then malformed, unexpected, truncated replies and a
 * server that hangs up. Real servers: tests/boot (Hydra) and tests/slurm. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "base/base.h"
#include "boot/boot.h"
#include "boot/pmi2_client.h"

static struct rch_pmi2_msg m;

static rdmach_status_t parse(const char *s)
{
    return rch_pmi2_parse(s, strlen(s), &m);
}

Test(pmi2_wire, parses_hydra_replies)
{
    cr_assert_eq(parse("cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=3;size=4;appnum=0;"
                       "debugged=FALSE;pmiverbose=FALSE;rc=0;"), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(m.cmd, RCH_PMI2_FULLINIT_RESPONSE);
    cr_assert_eq(m.nfields, 8);
    int v;
    cr_assert_eq(rch_pmi2_field_int(&m, "rank", 0, 100, &v), RDMACH_OK);
    cr_assert_eq(v, 3);
    cr_assert_eq(rch_pmi2_field_bool(&m, "debugged", &v), RDMACH_OK);
    cr_assert_eq(v, 0);
    cr_assert_eq(parse("cmd=info-getjobattr-response;found=TRUE;value=(vector,(0,1,1));rc=0;"), RDMACH_OK);
    cr_assert_str_eq(rch_pmi2_field(&m, "value"), "(vector,(0,1,1))");
    /* the last ';' may be missing: the length delimits the payload */
    cr_assert_eq(parse("cmd=kvs-fence-response;rc=0"), RDMACH_OK);
    cr_assert_str_eq(rch_pmi2_field(&m, "rc"), "0");
}

Test(pmi2_wire, double_semicolon_is_an_escaped_semicolon)
{
    cr_assert_eq(parse("cmd=kvs-get-response;found=TRUE;value=a;;b;;;;c;rc=0;"), RDMACH_OK, "%s",
                 rdmach_last_error());
    cr_assert_str_eq(rch_pmi2_field(&m, "value"), "a;b;;c");
    cr_assert_str_eq(rch_pmi2_field(&m, "rc"), "0");
    cr_assert_eq(parse("cmd=kvs-get-response;value=;rc=0;"), RDMACH_OK);
    cr_assert_str_eq(rch_pmi2_field(&m, "value"), "");
}

Test(pmi2_wire, malformed_payloads_are_named)
{
    static const struct { const char *in, *why; } bad[] = {
        { "", "empty message" },
        { "rc=0;cmd=kvs-put-response;", "does not start with cmd=" },
        { "cmd=no-such-thing;rc=0;", "unknown command 'no-such-thing'" },
        { "cmd=kvs-put-response;rc;", "field 'rc;' has no '='" },
        { "cmd=kvs-put-response;=0;", "empty key" },
        { "cmd=kvs-put-response;rc=0;rc=1;", "duplicate field 'rc'" },
        { "cmd=kvs-put-response;rc=0\n;", "control or non-ASCII byte 0x0a" },
        { "cmd=kvs-put-response;a=1;b=1;c=1;d=1;e=1;f=1;g=1;h=1;i=1;j=1;k=1;l=1;m=1;n=1;o=1;p=1;q=1;",
          "more than 16 fields" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(parse(bad[i].in), RDMACH_ERR_BOOT_PROTOCOL, "'%s' accepted", bad[i].in);
        cr_assert(strstr(rdmach_last_error(), bad[i].why), "'%s': %s", bad[i].in, rdmach_last_error());
        cr_assert(strstr(rdmach_last_error(), "PMI-2"), "%s", rdmach_last_error());
    }
    cr_assert_eq(parse("cmd=kvs-put-response;rc=x;"), RDMACH_OK);
    int v;
    cr_assert_eq(rch_pmi2_field_int(&m, "rc", -9, 9, &v), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "kvs-put-response line has rc='x'"), "%s", rdmach_last_error());
    cr_assert_eq(rch_pmi2_field_bool(&m, "found", &v), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "no field 'found'"), "%s", rdmach_last_error());
}

Test(pmi2_wire, format_writes_the_length_and_escapes)
{
    char out[256];
    size_t len;
    cr_assert_eq(rch_pmi2_format(out, sizeof(out), &len, RCH_PMI2_KVS_PUT, "key", "k", "value", "a;b", NULL),
                 RDMACH_OK);
    cr_assert_str_eq(out, "29    cmd=kvs-put;key=k;value=a;;b;");
    cr_assert_eq(len, 35);
    cr_assert_eq(rch_pmi2_format(out, sizeof(out), &len, RCH_PMI2_KVS_FENCE, NULL), RDMACH_OK);
    cr_assert_str_eq(out, "14    cmd=kvs-fence;");
    cr_assert_eq(rch_pmi2_format(out, sizeof(out), &len, RCH_PMI2_KVS_PUT, "k;", "v", NULL), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_pmi2_format(out, sizeof(out), &len, RCH_PMI2_KVS_PUT, "k", "v\n", NULL), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_pmi2_format(out, 20, &len, RCH_PMI2_KVS_PUT, "key", "k", "value", "abcdef", NULL),
                 RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "does not fit"), "%s", rdmach_last_error());
}

/* The reader over a pipe: frames split anywhere, bad headers, truncation. */
static rdmach_status_t read_frames(const char *bytes, size_t n, int close_after, struct rch_pmi2_reader *r)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(write(p[1], bytes, n), (ssize_t)n);
    if (close_after)
        close(p[1]);
    rch_pmi2_reader_init(r, p[0]);
    rdmach_status_t st;
    while ((st = rch_pmi2_reader_next(r, &m)) == RDMACH_AGAIN) {
        st = rch_pmi2_reader_fill(r);
        if (st != RDMACH_OK && st != RDMACH_ERR_PEER_DEAD)
            break;
        if (st == RDMACH_ERR_PEER_DEAD) {
            st = rch_pmi2_reader_next(r, &m);
            break;
        }
    }
    close(p[0]);
    if (!close_after)
        close(p[1]);
    return st;
}

Test(pmi2_reader, frames_with_either_padding)
{
    static struct rch_pmi2_reader r;
    const char two[] = "    27cmd=finalize-response;rc=0;26    cmd=kvs-put-response;rc=0;";
    cr_assert_eq(read_frames(two, strlen(two), 0, &r), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(m.cmd, RCH_PMI2_FINALIZE_RESPONSE);
    cr_assert_eq(rch_pmi2_reader_next(&r, &m), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(m.cmd, RCH_PMI2_KVS_PUT_RESPONSE);
}

Test(pmi2_reader, bad_headers_and_truncation)
{
    static struct rch_pmi2_reader r;
    static const struct { const char *in; int closed; const char *why; } bad[] = {
        { "cmd=kvs-put-response;rc=0;", 0, "bad length header 'cmd=kv'" },
        { "  1 2 cmd=x", 0, "bad length header '  1 2 '" },
        { "000000", 0, "bad length header '000000'" },
        { "999999cmd=", 0, "bad length header '999999'" },
        { "    27cmd=finalize-resp", 1, "truncated message (stream ended after 23 of 33 bytes" },
        { "  2", 1, "truncated message (stream ended after '  2')" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(read_frames(bad[i].in, strlen(bad[i].in), bad[i].closed, &r), RDMACH_ERR_BOOT_PROTOCOL,
                     "'%s' accepted", bad[i].in);
        cr_assert(strstr(rdmach_last_error(), bad[i].why), "'%s': %s", bad[i].in, rdmach_last_error());
    }
}

/* ---- the client against a scripted server ---- */

/* One step: the request (the init line, then frame payloads) must start with
 * `expect`; `reply` is written verbatim; NULL: the server hangs up instead. */
struct step { const char *expect, *reply; };

struct server {
    int fd;
    const struct step *steps;
    int nsteps;
    char mismatch[256];
    pthread_t th;
};

static int read_full(int fd, char *buf, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static int read_request(int fd, int first, char *buf, size_t cap)
{
    size_t n = 0;
    if (first) {   /* the PMI-1 init line */
        while (n + 1 < cap && read_full(fd, buf + n, 1) == 0)
            if (buf[n++] == '\n')
                break;
        buf[n] = '\0';
        return n ? 0 : -1;
    }
    char head[7] = "";
    if (read_full(fd, head, 6) < 0)
        return -1;
    n = (size_t)atoi(head);
    if (n + 1 > cap || read_full(fd, buf, n) < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

static void *serve(void *arg)
{
    struct server *s = arg;
    char req[4096];
    for (int i = 0; i < s->nsteps; i++) {
        if (read_request(s->fd, i == 0, req, sizeof(req)) < 0)
            break;
        if (strncmp(req, s->steps[i].expect, strlen(s->steps[i].expect)) != 0 && !s->mismatch[0])
            snprintf(s->mismatch, sizeof(s->mismatch), "step %d: got '%.100s', expected '%.100s...'", i, req,
                     s->steps[i].expect);
        if (s->steps[i].reply == NULL || write(s->fd, s->steps[i].reply, strlen(s->steps[i].reply)) < 0)
            break;
    }
    shutdown(s->fd, SHUT_RDWR);
    close(s->fd);
    return NULL;
}

static int start(struct server *s, const struct step *steps, int n)
{
    int sv[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    memset(s, 0, sizeof(*s));
    s->fd = sv[1];
    s->steps = steps;
    s->nsteps = n;
    pthread_create(&s->th, NULL, serve, s);
    return sv[0];
}

static void finish(struct server *s, int fd)
{
    if (fd >= 0) {
        shutdown(fd, SHUT_RDWR);
        close(fd);
    }
    pthread_join(s->th, NULL);
    cr_assert(s->mismatch[0] == '\0', "%s", s->mismatch);
}

#define INIT2 { "cmd=init pmi_version=2 pmi_subversion=0\n", \
                "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n" }
#define FULLINIT1 { "cmd=fullinit;pmirank=1;threaded=FALSE;", "   113cmd=fullinit-response;pmi-version=2;pmi-subversion=0;" \
                    "rank=1;size=2;appnum=0;debugged=FALSE;pmiverbose=FALSE;rc=0;" }
#define GETID { "cmd=job-getid;", "    60cmd=job-getid-response;jobid=kvs_13687_0_1733054477_vm;rc=0;" }

/* The server started with steps and the client's init done against it. */
static int start_init(struct server *s, struct rch_pmi2_client *c, const struct step *steps, int n)
{
    int fd = start(s, steps, n);
    cr_assert_eq(rch_pmi2_client_init(c, fd, 1, 2, NULL), RDMACH_OK, "%s", rdmach_last_error());
    return fd;
}

Test(pmi2_client, hydra_session)
{
    static const struct step steps[] = {
        INIT2, FULLINIT1, GETID,
        { "cmd=info-getjobattr;key=PMI_process_mapping;",
          "    68cmd=info-getjobattr-response;found=TRUE;value=(vector,(0,1,1));rc=0;" },
        { "cmd=info-getjobattr;key=universeSize;", "    46cmd=info-getjobattr-response;found=FALSE;rc=0;" },
        { "cmd=kvs-put;key=r1.a;value=00ff;", "    26cmd=kvs-put-response;rc=0;" },
        { "cmd=kvs-fence;", "    28cmd=kvs-fence-response;rc=0;" },
        { "cmd=kvs-get;jobid=kvs_13687_0_1733054477_vm;srcid=-1;key=r0.a;",
          "    45cmd=kvs-get-response;found=TRUE;value=x;rc=0;" },
        { "cmd=kvs-get;jobid=kvs_13687_0_1733054477_vm;srcid=-1;key=zz;",
          "    38cmd=kvs-get-response;found=FALSE;rc=0;" },
        { "cmd=finalize;", "    27cmd=finalize-response;rc=0;" },
    };
    struct server s;
    struct rch_pmi2_client c;
    char v[64];
    start_init(&s, &c, steps, 10);
    cr_assert_str_eq(c.jobid, "kvs_13687_0_1733054477_vm");
    cr_assert_eq(rch_pmi2_client_job_attr(&c, "PMI_process_mapping", v, sizeof(v)), RDMACH_OK, "%s",
                 rdmach_last_error());
    cr_assert_str_eq(v, "(vector,(0,1,1))");
    cr_assert_eq(rch_pmi2_client_job_attr(&c, "universeSize", v, sizeof(v)), RDMACH_ERR_NOT_FOUND);
    cr_assert_eq(rch_pmi2_client_put(&c, "r1.a", "00ff"), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_pmi2_client_fence(&c), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_pmi2_client_get(&c, "r0.a", v, sizeof(v)), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_str_eq(v, "x");
    cr_assert_eq(rch_pmi2_client_get(&c, "zz", v, sizeof(v)), RDMACH_ERR_NOT_FOUND);
    cr_assert(strstr(rdmach_last_error(), "no key 'zz'"), "%s", rdmach_last_error());
    cr_assert_eq(rch_pmi2_client_finalize(&c), RDMACH_OK, "%s", rdmach_last_error());
    finish(&s, -1);
}

static rdmach_status_t init_against(const struct step *steps, int n)
{
    struct server s;
    struct rch_pmi2_client c;
    int fd = start(&s, steps, n);
    rdmach_status_t st = rch_pmi2_client_init(&c, fd, 1, 2, NULL);
    finish(&s, fd);
    return st;
}

#define EXPECT_ERR(st, code, text) do { \
    cr_assert_eq((st), (code), "%s", rdmach_last_error()); \
    cr_assert(strstr(rdmach_last_error(), (text)), "'%s' not in: %s", (text), rdmach_last_error()); \
} while (0)

Test(pmi2_client, a_pmi1_only_server_is_named)
{
    static const struct step steps[] = {
        { "cmd=init pmi_version=2", "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n" } };
    EXPECT_ERR(init_against(steps, 1), RDMACH_ERR_BOOT, "does not speak PMI-2 (response_to_init rc=0 pmi_version=1)");
}

Test(pmi2_client, garbage_reply_is_quoted)
{
    static const struct step steps[] = { INIT2, { "cmd=fullinit", "    11hello world" } };
    EXPECT_ERR(init_against(steps, 2), RDMACH_ERR_BOOT_PROTOCOL, "PMI-2: field 'hello world' has no '='");
}

Test(pmi2_client, unexpected_reply_names_both)
{
    static const struct step steps[] = { INIT2, { "cmd=fullinit", "    26cmd=kvs-put-response;rc=0;" } };
    EXPECT_ERR(init_against(steps, 2), RDMACH_ERR_BOOT_PROTOCOL,
               "expected a fullinit-response reply to 'cmd=fullinit;pmirank=1;threaded=FALSE;', got kvs-put-response");
}

Test(pmi2_client, refusal_carries_the_servers_message)
{
    static const struct step steps[] = {
        INIT2, { "cmd=fullinit", "    49cmd=fullinit-response;rc=1;errmsg=no;;such;;rank;" } };
    EXPECT_ERR(init_against(steps, 2), RDMACH_ERR_BOOT, "failed: rc=1 errmsg=no;such;rank");
}

Test(pmi2_client, rank_other_than_the_environment)
{
    static const struct step steps[] = {
        INIT2, { "cmd=fullinit", "    41cmd=fullinit-response;rank=0;size=2;rc=0;" } };
    EXPECT_ERR(init_against(steps, 2), RDMACH_ERR_BOOT_PROTOCOL, "says rank 0 of 2, the environment PMI_RANK=1");
}

Test(pmi2_client, server_dies_mid_reply_or_before_it)
{
    static const struct step truncated[] = { INIT2, { "cmd=fullinit", "    45cmd=fullinit-resp" } };
    EXPECT_ERR(init_against(truncated, 2), RDMACH_ERR_BOOT_PROTOCOL, "truncated message");
    static const struct step gone[] = { INIT2, FULLINIT1, { "cmd=job-getid", NULL } };
    EXPECT_ERR(init_against(gone, 3), RDMACH_ERR_BOOT, "PMI-2: the process manager closed the connection");
    static const struct step no_init[] = { { "cmd=init", NULL } };
    EXPECT_ERR(init_against(no_init, 1), RDMACH_ERR_BOOT, "instead of answering init");
}

/* and the abort Slurm acts on: isworld=TRUE (a misnamed key is ignored) */
Test(pmi2_client, put_refuses_a_semicolon_then_abort)
{
    static const struct step steps[] = { INIT2, FULLINIT1, GETID, { "cmd=abort;isworld=TRUE;msg=why;", NULL } };
    struct server s;
    struct rch_pmi2_client c;
    int fd = start(&s, steps, 4);
    cr_assert_eq(rch_pmi2_client_init(&c, fd, 1, 2, NULL), RDMACH_OK, "%s", rdmach_last_error());
    EXPECT_ERR(rch_pmi2_client_put(&c, "k", "a;b"), RDMACH_ERR_INVALID_ARG, "containing ';'");
    cr_assert_eq(rch_pmi2_client_abort(&c, "why"), RDMACH_OK, "%s", rdmach_last_error());
    finish(&s, fd);
}

Test(pmi2_client, slurm_gets_its_jobid_back_in_fullinit)
{
    static const struct step steps[] = {
        INIT2,
        { "cmd=fullinit;pmijobid=7.0;pmirank=1;threaded=FALSE;", "    41cmd=fullinit-response;rank=1;size=2;rc=0;" },
        { "cmd=job-getid;", "    38cmd=job-getid-response;jobid=7.0;rc=0;" },
    };
    struct server s;
    struct rch_pmi2_client c;
    int fd = start(&s, steps, 3);
    cr_assert_eq(rch_pmi2_client_init(&c, fd, 1, 2, "7.0"), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_str_eq(c.jobid, "7.0");
    cr_assert_eq(c.appnum, 0);
    finish(&s, fd);
}

/* Slurm's mpi/pmi2 plugin (src/plugins/mpi/pmi2, 22.05): a spawned process
 * is told so by the spawner-jobid of fullinit-response; a spawn's fields go
 * in the order its parser reads them (ppkeyN/ppvalN, then per command
 * subcmd, maxprocs, argc, argvN, infokeycount, infokeyN/infovalN), and the
 * answer's errcodes are the processes'. A refusal carries Slurm's errmsg. */
Test(pmi2_client, slurm_spawn)
{
    static const struct step steps[] = {
        INIT2,
        { "cmd=fullinit;pmirank=1;threaded=FALSE;", "   130cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=2;appnum=-1;debugged=FALSE;pmiverbose=FALSE;spawner-jobid=7;" },
        { "cmd=job-getid;", "    38cmd=job-getid-response;rc=0;jobid=7-1;" },
        { "cmd=spawn;ncmds=2;preputcount=1;ppkey0=PARENT_ROOT_PORT_NAME;ppval0=rdmach-port:10.0.0.1:5000:00ab;subcmd=/bin/w;maxprocs=2;argc=1;argv0=a;;b;infokeycount=1;infokey0=wdir;infoval0=/tmp;subcmd=/bin/v;maxprocs=1;argc=0;infokeycount=0;", "    49cmd=spawn-response;rc=0;jobid=7-2;errcodes=0,0,5;" },
        { "cmd=spawn;ncmds=1;", "    44cmd=spawn-response;rc=1;errmsg=spawn failed;" },
    };
    struct server s;
    struct rch_pmi2_client c;
    int fd = start_init(&s, &c, steps, 5);
    cr_assert_eq(c.spawned, 1, "spawner-jobid not seen");
    char *argv0[] = { "a;b", NULL };
    const char *ik[] = { "wdir" }, *iv[] = { "/tmp" };
    struct rch_boot_spawn cmds[2] = {
        { .exec = "/bin/w", .argv = argv0, .nprocs = 2, .ninfo = 1, .info_key = ik, .info_val = iv },
        { .exec = "/bin/v", .argv = NULL, .nprocs = 1 },
    };
    int codes[3] = { -1, -1, -1 };
    cr_assert_eq(rch_pmi2_client_spawn(&c, 2, cmds, "PARENT_ROOT_PORT_NAME", "rdmach-port:10.0.0.1:5000:00ab", codes,
                                       5000), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert(codes[0] == 0 && codes[1] == 0 && codes[2] == 5, "errcodes %d,%d,%d", codes[0], codes[1], codes[2]);
    EXPECT_ERR(rch_pmi2_client_spawn(&c, 1, cmds, NULL, NULL, codes, 5000), RDMACH_ERR_BOOT, "errmsg=spawn failed");
    finish(&s, fd);
}

Test(pmi2_client, not_spawned_without_spawner_jobid)
{
    static const struct step steps[] = { INIT2, FULLINIT1, GETID };
    struct server s;
    struct rch_pmi2_client c;
    int fd = start_init(&s, &c, steps, 3);
    cr_assert_eq(c.spawned, 0);
    finish(&s, fd);
}

/* A spawn given up on (Slurm holds its step: no answer in time) is answered
 * later, when Slurm starts the step: that answer arrives before the reply to
 * the next request and is skipped. */
Test(pmi2_client, late_spawn_answer_is_skipped)
{
    static const struct step steps[] = {
        INIT2, FULLINIT1, GETID,
        { "cmd=spawn;ncmds=1;", "" },
        { "cmd=kvs-get;", "    34cmd=spawn-response;rc=0;jobid=7-2;    45cmd=kvs-get-response;found=TRUE;value=v;rc=0;" },
    };
    struct server s;
    struct rch_pmi2_client c;
    char v[16];
    int fd = start_init(&s, &c, steps, 5);
    struct rch_boot_spawn cmd = { .exec = "/bin/w", .nprocs = 1 };
    int code = -1;
    EXPECT_ERR(rch_pmi2_client_spawn(&c, 1, &cmd, NULL, NULL, &code, 200), RDMACH_ERR_TIMEOUT, "no reply");
    cr_assert_eq(rch_pmi2_client_get(&c, "k", v, sizeof(v)), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_str_eq(v, "v");
    finish(&s, fd);
}
