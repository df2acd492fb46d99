/*
 * The PMI-1 wire protocol: one implementation of its framing, parsing and
 * formatting, used by the client in the library (pmi_client.c) and by the
 * server in rdmachrun, so the two cannot drift apart.
 *
 * A message is one line of text, `cmd=<name> key=value key=value ...\n`:
 * fields separated by one or more spaces, each split at its FIRST '=' (a
 * value may contain '=', never a space or a control character). Lengths are
 * those of MPICH's Hydra (measured: `cmd=maxes kvsname_max=256 keylen_max=64
 * vallen_max=1024`), each max counting the terminating NUL, and a line is at
 * most RCH_PMI_LINE_MAX bytes including its '\n' — enough for the longest
 * legal `put`. Anything else is rejected with RDMACH_ERR_BOOT_PROTOCOL and a
 * message that quotes the offending part.
 *
 * Hydra's PMI-1 dialect as seen on the wire (mpich 4.0.2):
 *   cmd=init pmi_version=1 pmi_subversion=1  -> cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0
 *   cmd=get_maxes                             -> cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024
 *   cmd=get_appnum                            -> cmd=appnum appnum=0
 *   cmd=get_universe_size                     -> cmd=universe_size size=N
 *   cmd=get_my_kvsname                        -> cmd=my_kvsname kvsname=kvs_7445_0_349371107_vm
 *   cmd=put kvsname=K key=k value=v           -> cmd=put_result rc=0 msg=success
 *   cmd=barrier_in                            -> cmd=barrier_out
 *   cmd=get kvsname=K key=k                   -> cmd=get_result rc=0 msg=success value=v
 *                                            or cmd=get_result rc=-1 msg=key_k_not_found value=unknown
 *   cmd=abort exitcode=N                      -> (no reply: the job ends with code N)
 *   cmd=finalize                              -> cmd=finalize_ack
 * A put becomes visible to get only after the next barrier; the last put of a key wins.
 */
#ifndef RCH_BOOT_PMI_WIRE_H
#define RCH_BOOT_PMI_WIRE_H

#include <stddef.h>
#include "rdmach.h"

#define RCH_PMI_KVSNAME_MAX 256   /* including the NUL, as Hydra's kvsname_max */
#define RCH_PMI_KEY_MAX     64    /* as Hydra's keylen_max */
#define RCH_PMI_VAL_MAX     1024  /* as Hydra's vallen_max */
#define RCH_PMI_FIELDS_MAX  16
/* "cmd=put kvsname=<255> key=<63> value=<1023>\n" is 1390 bytes. */
#define RCH_PMI_LINE_MAX    1536
/* The error_msg of the abort a rank sends when it leaves by exit(code != 0)
 * before finalize (boot.c): a launcher that knows it (rdmachrun) reports an
 * exit, not an abort; Hydra ignores the field. */
#define RCH_PMI_ABORT_EXIT  "exit-before-finalize"

_Static_assert(RCH_PMI_LINE_MAX > 40 + RCH_PMI_KVSNAME_MAX + RCH_PMI_KEY_MAX + RCH_PMI_VAL_MAX,
               "a PMI line must hold the longest legal put");

/* The commands of PMI-1 that rdmach speaks, as an enum ending in _MAX so the
 * server dispatches through a table. */
enum rch_pmi_cmd {
    RCH_PMI_INIT, RCH_PMI_RESPONSE_TO_INIT,
    RCH_PMI_GET_MAXES, RCH_PMI_MAXES,
    RCH_PMI_GET_APPNUM, RCH_PMI_APPNUM,
    RCH_PMI_GET_UNIVERSE_SIZE, RCH_PMI_UNIVERSE_SIZE,
    RCH_PMI_GET_MY_KVSNAME, RCH_PMI_MY_KVSNAME,
    RCH_PMI_PUT, RCH_PMI_PUT_RESULT,
    RCH_PMI_BARRIER_IN, RCH_PMI_BARRIER_OUT,
    RCH_PMI_GET, RCH_PMI_GET_RESULT,
    RCH_PMI_ABORT,
    RCH_PMI_FINALIZE, RCH_PMI_FINALIZE_ACK,
    RCH_PMI_SPAWN_RESULT,   /* the reply to a spawn (an mcmd=spawn block per command, pmi_client.c) */
    RCH_PMI_CMD_MAX
};

/* The wire name of a command ("barrier_in"); NULL if out of range. */
const char *rch_pmi_cmd_name(enum rch_pmi_cmd cmd);

/* A parsed line. The strings point into `buf`, a private copy of the line. */
struct rch_pmi_msg {
    enum rch_pmi_cmd cmd;
    int nfields;                              /* fields after cmd= */
    const char *key[RCH_PMI_FIELDS_MAX];
    const char *val[RCH_PMI_FIELDS_MAX];
    char buf[RCH_PMI_LINE_MAX];
};

/* Parse one line (`len` bytes, with or without its trailing '\n').
 * Errors (RDMACH_ERR_BOOT_PROTOCOL): empty line, not starting with cmd=,
 * unknown command, a field without '=' or with an empty key, a duplicate
 * key, control characters, more than RCH_PMI_FIELDS_MAX fields, a line
 * longer than RCH_PMI_LINE_MAX, a NUL inside the line. */
rdmach_status_t rch_pmi_parse(const char *line, size_t len, struct rch_pmi_msg *m);

/* The value of a field, or NULL. */
const char *rch_pmi_field(const struct rch_pmi_msg *m, const char *key);
/* A field that must be present ... RDMACH_ERR_BOOT_PROTOCOL naming it if not. */
rdmach_status_t rch_pmi_field_str(const struct rch_pmi_msg *m, const char *key, const char **out);
/* ... and be a decimal integer in [min, max]. */
rdmach_status_t rch_pmi_field_int(const struct rch_pmi_msg *m, const char *key,
                                  long min, long max, int *out);

/* Format `cmd=<name> k1=v1 k2=v2 ...\n` into out (NUL-terminated). The
 * variadic arguments are key, value pairs of strings ended by NULL. Returns
 * the length without the NUL in *len. RDMACH_ERR_INVALID_ARG if a key or
 * value is empty where not allowed, contains a space, '\n' or another control
 * character (or a key contains '='), or the line would exceed
 * RCH_PMI_LINE_MAX or `cap`. */
rdmach_status_t rch_pmi_format(char *out, size_t cap, size_t *len, enum rch_pmi_cmd cmd, ...)
    __attribute__((sentinel));

/* Is `s` (of at most max-1 bytes) usable as a PMI value / key? */
int rch_pmi_valid_value(const char *s, size_t max);
int rch_pmi_valid_key(const char *s, size_t max);

/*
 * Framing: bytes from a stream socket are collected until a '\n'. The reader
 * never blocks by itself; the caller polls the fd.
 */
struct rch_pmi_reader {
    int fd;
    int eof;
    size_t len;                  /* bytes in buf */
    char buf[RCH_PMI_LINE_MAX];
};

void rch_pmi_reader_init(struct rch_pmi_reader *r, int fd);
/* One read() of what is available: RDMACH_OK if bytes came, RDMACH_AGAIN if
 * none (EAGAIN), RDMACH_ERR_PEER_DEAD at end of stream, RDMACH_ERR_IO. */
rdmach_status_t rch_pmi_reader_fill(struct rch_pmi_reader *r);
/* Take the next complete line out of the buffer and parse it into m:
 * RDMACH_OK, RDMACH_AGAIN if no complete line is buffered yet, or
 * RDMACH_ERR_BOOT_PROTOCOL if the line is malformed, if RCH_PMI_LINE_MAX
 * bytes came without a '\n' (oversized), or if the stream ended in the middle
 * of a line (truncated). A malformed line is consumed, so the caller may go on. */
rdmach_status_t rch_pmi_reader_next(struct rch_pmi_reader *r, struct rch_pmi_msg *m);

/* Shared by the PMI-1 and PMI-2 framings: one read() into buf[*len..cap),
 * as rch_pmi_reader_fill describes. */
rdmach_status_t rch_pmi_read_some(int fd, char *buf, size_t *len, size_t cap, int *eof);
/* Wait until fd is readable (or at its end), until `deadline` in
 * rch_base_wtime() seconds (< 0: forever): RDMACH_OK, or RDMACH_ERR_TIMEOUT
 * naming `proto` ("PMI", "PMI-2"). */
rdmach_status_t rch_pmi_wait_input(int fd, double deadline, const char *proto);
/* A spawn reply's errcodes (both versions): "a,b,..." into errcodes[total];
 * where the server gives none (NULL, or fewer), 0 (MPICH's reading: gforker
 * sends none). */
void rch_pmi_errcodes(const char *list, int total, int *errcodes);
/* Field access shared by both dialects: the value of `key` among n pairs;
 * that value required (RDMACH_ERR_BOOT_PROTOCOL naming proto, cmd and key if
 * NULL); and required to be a decimal integer in [min, max]. */
const char *rch_pmi_lookup(const char *const *keys, const char *const *vals, int n, const char *key);
rdmach_status_t rch_pmi_require(const char *proto, const char *cmd, const char *key, const char *v, const char **out);
rdmach_status_t rch_pmi_require_int(const char *proto, const char *cmd, const char *key, const char *v,
                                    long min, long max, int *out);
/* At most 40 bytes of s quoted for an error message, control bytes as \xNN. */
const char *rch_pmi_excerpt(const char *s, size_t len, char *out, size_t cap);

/* Write a whole line to a blocking or non-blocking stream socket (retries
 * EINTR/EAGAIN with poll; MSG_NOSIGNAL so a dead peer is an error, not SIGPIPE). */
rdmach_status_t rch_pmi_write(int fd, const char *line, size_t len);

#endif
