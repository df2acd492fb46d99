/* PMI-1 client against a scripted server: good replies as Hydra sends them,
 * and malformed, unexpected and truncated ones; and the PMI environment. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "base/base.h"
#include "boot/pmi_client.h"

/* One step: the request must start with `expect`; then `reply` is written
 * verbatim (NULL: the server closes the connection instead), and the server
 * hangs up after it if `hangup`. */
struct step { const char *expect, *reply; int hangup; };

struct server {
    int fd;
    const struct step *steps;
    int nsteps;
    char mismatch[256];
    pthread_t th;
};

static int read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(fd, buf + n, 1);
        if (r <= 0)
            return -1;
        if (buf[n++] == '\n')
            break;
    }
    buf[n] = '\0';
    return 0;
}

static void *serve(void *arg)
{
    struct server *s = arg;
    char line[2048];
    for (int i = 0; i < s->nsteps; i++) {
        if (read_line(s->fd, line, sizeof(line)) < 0)
            break;
        if (strncmp(line, s->steps[i].expect, strlen(s->steps[i].expect)) != 0 && !s->mismatch[0])
            snprintf(s->mismatch, sizeof(s->mismatch), "step %d: got '%.100s', expected '%.100s...'", i, line,
                     s->steps[i].expect);
        if (s->steps[i].reply == NULL)
            break;
        if (write(s->fd, s->steps[i].reply, strlen(s->steps[i].reply)) < 0 || s->steps[i].hangup)
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
    if (fd >= 0)
        shutdown(fd, SHUT_RDWR);
    pthread_join(s->th, NULL);
    if (fd >= 0)
        close(fd);
    cr_assert(s->mismatch[0] == '\0', "%s", s->mismatch);
}

#define HYDRA_INIT { "cmd=init pmi_version=1 pmi_subversion=1\n", \
                     "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n" }
#define HYDRA_MAXES { "cmd=get_maxes\n", "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n" }
#define HYDRA_APPNUM { "cmd=get_appnum\n", "cmd=appnum appnum=0\n" }
#define HYDRA_KVSNAME { "cmd=get_my_kvsname\n", "cmd=my_kvsname kvsname=kvs_7445_0_349371107_vm\n" }

Test(pmi_client, hydra_session)
{
    static const struct step steps[] = {
        HYDRA_INIT, HYDRA_MAXES, HYDRA_APPNUM, HYDRA_KVSNAME,
        { "cmd=put kvsname=kvs_7445_0_349371107_vm key=r1.addr value=00ff\n", "cmd=put_result rc=0 msg=success\n" },
        { "cmd=barrier_in\n", "cmd=barrier_out\n" },
        { "cmd=get kvsname=kvs_7445_0_349371107_vm key=r1.addr\n", "cmd=get_result rc=0 msg=success value=00ff\n" },
        { "cmd=get kvsname=kvs_7445_0_349371107_vm key=nokey\n",
          "cmd=get_result rc=-1 msg=key_nokey_not_found value=unknown\n" },
        { "cmd=finalize\n", "cmd=finalize_ack\n" },
    };
    struct server s;
    struct rch_pmi_client c;
    char v[64];
    int fd = start(&s, steps, 9);
    cr_assert_eq(rch_pmi_client_init(&c, fd, 1, 4), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_str_eq(c.kvsname, "kvs_7445_0_349371107_vm");
    cr_assert_eq(c.keylen_max, 64);
    cr_assert_eq(c.vallen_max, 1024);
    cr_assert_eq(rch_pmi_client_put(&c, "r1.addr", "00ff"), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_pmi_client_barrier(&c), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_pmi_client_get(&c, "r1.addr", v, sizeof(v)), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_str_eq(v, "00ff");
    cr_assert_eq(rch_pmi_client_get(&c, "nokey", v, sizeof(v)), RDMACH_ERR_NOT_FOUND);
    cr_assert(strstr(rdmach_last_error(), "key_nokey_not_found"), "%s", rdmach_last_error());
    cr_assert_eq(rch_pmi_client_finalize(&c), RDMACH_OK, "%s", rdmach_last_error());
    finish(&s, -1); /* finalize closed our end */
}

/* Run init against one bad reply to the first request; return its status. */
static rdmach_status_t init_against(const struct step *steps, int n)
{
    struct server s;
    struct rch_pmi_client c;
    int fd = start(&s, steps, n);
    rdmach_status_t st = rch_pmi_client_init(&c, fd, 0, 2);
    finish(&s, fd);
    return st;
}

Test(pmi_client, garbage_reply_is_a_protocol_error)
{
    static const struct step steps[] = { { "cmd=init", "hello world\n" } };
    cr_assert_eq(init_against(steps, 1), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "no '='"), "%s", rdmach_last_error());
}

Test(pmi_client, unexpected_reply_names_both_commands)
{
    static const struct step steps[] = { { "cmd=init", "cmd=barrier_out\n" } };
    cr_assert_eq(init_against(steps, 1), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "expected a response_to_init reply, got barrier_out"), "%s",
              rdmach_last_error());
}

Test(pmi_client, refused_init_and_wrong_version)
{
    static const struct step refused[] = {
        { "cmd=init", "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1\n" } };
    cr_assert_eq(init_against(refused, 1), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "init failed: rc=-1"), "%s", rdmach_last_error());
    static const struct step v2[] = { { "cmd=init", "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n" } };
    cr_assert_eq(init_against(v2, 1), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "pmi_version=2"), "%s", rdmach_last_error());
}

Test(pmi_client, missing_and_invalid_fields_are_named)
{
    static const struct step nomax[] = { HYDRA_INIT, { "cmd=get_maxes", "cmd=maxes kvsname_max=256 keylen_max=64\n" } };
    cr_assert_eq(init_against(nomax, 2), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "no field 'vallen_max'"), "%s", rdmach_last_error());
    static const struct step badint[] = {
        HYDRA_INIT, { "cmd=get_maxes", "cmd=maxes kvsname_max=256 keylen_max=sixty vallen_max=1024\n" } };
    cr_assert_eq(init_against(badint, 2), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "keylen_max='sixty'"), "%s", rdmach_last_error());
    static const struct step nokvs[] = { HYDRA_INIT, HYDRA_MAXES, HYDRA_APPNUM,
                                         { "cmd=get_my_kvsname", "cmd=my_kvsname kvsname=\n" } };
    cr_assert_eq(init_against(nokvs, 4), RDMACH_ERR_BOOT_PROTOCOL);
}

Test(pmi_client, truncated_reply_then_close)
{
    static const struct step steps[] = { { "cmd=init", "cmd=response_to_init pmi_vers", 1 } };
    cr_assert_eq(init_against(steps, 1), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "truncated"), "%s", rdmach_last_error());
}

Test(pmi_client, server_closes_without_reply)
{
    static const struct step steps[] = { { "cmd=init", NULL } };
    cr_assert_eq(init_against(steps, 1), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "closed the connection"), "%s", rdmach_last_error());
}

Test(pmi_client, oversized_reply)
{
    static char big[RCH_PMI_LINE_MAX + 64];
    memset(big, 'x', sizeof(big) - 2);
    memcpy(big, "cmd=maxes v=", 12);
    big[sizeof(big) - 2] = '\n';
    struct step steps[] = { { "cmd=init", big } };
    cr_assert_eq(init_against(steps, 1), RDMACH_ERR_BOOT_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "oversized"), "%s", rdmach_last_error());
}

Test(pmi_client, put_refuses_what_the_wire_cannot_carry)
{
    static const struct step steps[] = { HYDRA_INIT, HYDRA_MAXES, HYDRA_APPNUM, HYDRA_KVSNAME };
    struct server s;
    struct rch_pmi_client c;
    char key[80];
    int fd = start(&s, steps, 4);
    cr_assert_eq(rch_pmi_client_init(&c, fd, 0, 1), RDMACH_OK, "%s", rdmach_last_error());
    cr_assert_eq(rch_pmi_client_put(&c, "k", "has space"), RDMACH_ERR_INVALID_ARG);
    memset(key, 'k', 64);
    key[64] = '\0';
    cr_assert_eq(rch_pmi_client_put(&c, key, "v"), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "longer than 63"), "%s", rdmach_last_error());
    finish(&s, fd);
}

/* ---- the environment ---- */

static rdmach_status_t env(const char *fd, const char *rank, const char *size, const char *port)
{
    int f, r, n, single;
    unsetenv("PMI_FD");
    unsetenv("PMI_RANK");
    unsetenv("PMI_SIZE");
    unsetenv("PMI_PORT");
    if (fd) setenv("PMI_FD", fd, 1);
    if (rank) setenv("PMI_RANK", rank, 1);
    if (size) setenv("PMI_SIZE", size, 1);
    if (port) setenv("PMI_PORT", port, 1);
    rdmach_status_t st = rch_pmi_client_env(&f, &r, &n, &single);
    if (st == RDMACH_OK && single)
        cr_assert(r == 0 && n == 1);
    return st;
}

Test(pmi_env, nothing_set_is_a_singleton)
{
    int f, r, n, single;
    cr_assert_eq(env(NULL, NULL, NULL, NULL), RDMACH_OK);
    cr_assert_eq(rch_pmi_client_env(&f, &r, &n, &single), RDMACH_OK);
    cr_assert_eq(single, 1);
}

Test(pmi_env, garbage_and_missing_variables_are_named)
{
    int sv[2];
    char num[16];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    snprintf(num, sizeof(num), "%d", sv[0]);
    cr_assert_eq(env(num, "0", "2", NULL), RDMACH_OK, "%s", rdmach_last_error());

    cr_assert_eq(env("abc", "0", "2", NULL), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "PMI_FD='abc' is not valid"), "%s", rdmach_last_error());
    cr_assert_eq(env("987", "0", "2", NULL), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "PMI_FD=987 is not an open file descriptor"), "%s", rdmach_last_error());
    int p[2];
    cr_assert_eq(pipe(p), 0);
    snprintf(num, sizeof(num), "%d", p[0]);
    cr_assert_eq(env(num, "0", "2", NULL), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "is not a socket"), "%s", rdmach_last_error());
    snprintf(num, sizeof(num), "%d", sv[0]);
    cr_assert_eq(env(num, NULL, "2", NULL), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "PMI_RANK is missing"), "%s", rdmach_last_error());
    cr_assert_eq(env(num, "0", NULL, NULL), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "PMI_SIZE is missing"), "%s", rdmach_last_error());
    cr_assert_eq(env(num, "2", "2", NULL), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "PMI_RANK=2 is not below PMI_SIZE=2"), "%s", rdmach_last_error());
    cr_assert_eq(env(num, "0", "0", NULL), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "PMI_SIZE='0'"), "%s", rdmach_last_error());
    cr_assert_eq(env(NULL, "1", "4", NULL), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "PMI_FD is missing"), "%s", rdmach_last_error());
    cr_assert_eq(env(NULL, NULL, NULL, "host:1234"), RDMACH_ERR_BOOT);
    cr_assert(strstr(rdmach_last_error(), "PMI_PORT"), "%s", rdmach_last_error());
}
