/*
 * The PMI-2 wire protocol (MPICH's PMI-2, spoken by Slurm's mpi/pmi2 plugin
 * and by Hydra when the client asks for it): framing, parsing and formatting,
 * used by the client in pmi2_client.c.
 *
 * A connection starts in PMI-1 (one line, pmi_wire.h):
 *   cmd=init pmi_version=2 pmi_subversion=0\n -> cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n
 * and from then on every message is a frame: a 6-byte ASCII decimal length
 * (padded with spaces on either side: MPICH's client writes "%-6d", Hydra's
 * server "%6d") followed by that many bytes of payload
 *   cmd=<name>;key=value;key=value;
 * in which a ';' inside a value is written ";;". The payload is validated:
 * it starts with cmd=, every field has a non-empty key without '=' or ';',
 * no key repeats, no control characters, at most RCH_PMI2_PAYLOAD_MAX bytes.
 * Anything else is RDMACH_ERR_BOOT_PROTOCOL with the offending text quoted.
 *
 * Hydra's PMI-2 dialect as seen on the wire (mpich 4.0.2):
 *   fullinit;pmirank=0             -> fullinit-response;pmi-version=2;pmi-subversion=0;rank=0;size=2;
 *                                     appnum=0;debugged=FALSE;pmiverbose=FALSE;rc=0
 *   job-getid                      -> job-getid-response;jobid=kvs_13687_0_1733054477_vm;rc=0
 *   info-getjobattr;key=PMI_process_mapping -> info-getjobattr-response;found=TRUE;value=(vector,(0,1,1));rc=0
 *   info-getjobattr;key=nokey      -> info-getjobattr-response;found=FALSE;rc=0
 *   info-getnodeattr;key=k;wait=FALSE -> info-getnodeattr-response;found=FALSE;rc=0
 *   kvs-put;key=k;value=v          -> kvs-put-response;rc=0
 *   kvs-fence                      -> kvs-fence-response;rc=0
 *   kvs-get;jobid=J;srcid=-1;key=k -> kvs-get-response;found=TRUE;value=v;rc=0  (or found=FALSE;rc=0)
 *   abort;isworld=TRUE;msg=m       -> (no reply; Hydra 4.0.2: "Unrecognized PMI command: abort",
 *                                     mpiexec exits 255; Slurm kills the step)
 *   finalize                       -> finalize-response;rc=0
 *   spawn;ncmds=N;preputcount=P;ppkey0=k;ppval0=v;..;subcmd=exe;maxprocs=n;argc=A;argv0=a;..;
 *     infokeycount=I;infokey0=k;infoval0=v;.. (per command, in this order: Slurm's
 *     plugin reads the fields by position and refuses another order or a
 *     thrid field)             -> spawn-response;rc=0;jobid=J;[errcodes=e,e,..]  (Slurm: only
 *                                     once the new step's tasks are started)
 * Hydra stores a put value only up to its first ';' (it does not undo the
 * ";;" escape), so the client never puts a value containing ';'.
 */
#ifndef RCH_BOOT_PMI2_WIRE_H
#define RCH_BOOT_PMI2_WIRE_H

#include <stddef.h>
#include "rdmach.h"

#define RCH_PMI2_HEADER       6
/* A value of 1024 bytes, every byte an escaped ';', plus the fields around it. */
#define RCH_PMI2_PAYLOAD_MAX  4096
#define RCH_PMI2_FIELDS_MAX   16
#define RCH_PMI2_VAL_MAX      1024   /* PMI2_MAX_VALLEN of MPICH and Slurm, with the NUL */
#define RCH_PMI2_KEY_MAX      64     /* PMI2_MAX_KEYLEN */

_Static_assert(RCH_PMI2_PAYLOAD_MAX > 2 * RCH_PMI2_VAL_MAX + 128, "a frame must hold an escaped value");
_Static_assert(RCH_PMI2_PAYLOAD_MAX <= 999999, "the length must fit the 6-digit header");

enum rch_pmi2_cmd {
    RCH_PMI2_FULLINIT, RCH_PMI2_FULLINIT_RESPONSE,
    RCH_PMI2_JOB_GETID, RCH_PMI2_JOB_GETID_RESPONSE,
    RCH_PMI2_INFO_GETJOBATTR, RCH_PMI2_INFO_GETJOBATTR_RESPONSE,
    RCH_PMI2_INFO_GETNODEATTR, RCH_PMI2_INFO_GETNODEATTR_RESPONSE,
    RCH_PMI2_KVS_PUT, RCH_PMI2_KVS_PUT_RESPONSE,
    RCH_PMI2_KVS_GET, RCH_PMI2_KVS_GET_RESPONSE,
    RCH_PMI2_KVS_FENCE, RCH_PMI2_KVS_FENCE_RESPONSE,
    RCH_PMI2_ABORT,
    RCH_PMI2_FINALIZE, RCH_PMI2_FINALIZE_RESPONSE,
    RCH_PMI2_SPAWN, RCH_PMI2_SPAWN_RESPONSE,
    RCH_PMI2_CMD_MAX
};

/* The wire name ("kvs-fence"); NULL if out of range. */
const char *rch_pmi2_cmd_name(enum rch_pmi2_cmd cmd);

/* A parsed payload; keys and (unescaped) values point into buf. */
struct rch_pmi2_msg {
    enum rch_pmi2_cmd cmd;
    int nfields;                              /* fields after cmd= */
    const char *key[RCH_PMI2_FIELDS_MAX];
    const char *val[RCH_PMI2_FIELDS_MAX];
    char buf[RCH_PMI2_PAYLOAD_MAX + 1];
};

/* Parse one payload (without its length header). RDMACH_ERR_BOOT_PROTOCOL
 * for: empty, not starting with cmd=, an unknown command, a field without
 * '=' or with an empty key, a duplicate key, a control byte, more than
 * RCH_PMI2_FIELDS_MAX fields, more than RCH_PMI2_PAYLOAD_MAX bytes. A final
 * field without its ';' is accepted (the length delimits it). */
rdmach_status_t rch_pmi2_parse(const char *payload, size_t len, struct rch_pmi2_msg *m);

const char *rch_pmi2_field(const struct rch_pmi2_msg *m, const char *key);
/* Present, else RDMACH_ERR_BOOT_PROTOCOL naming the command and the field. */
rdmach_status_t rch_pmi2_field_str(const struct rch_pmi2_msg *m, const char *key, const char **out);
/* ... and a decimal integer in [min, max]. */
rdmach_status_t rch_pmi2_field_int(const struct rch_pmi2_msg *m, const char *key, long min, long max, int *out);
/* ... and TRUE or FALSE. */
rdmach_status_t rch_pmi2_field_bool(const struct rch_pmi2_msg *m, const char *key, int *out);

/* A whole frame, header included, into out (cap bytes; NUL-terminated).
 * Variadic key, value pairs of strings ended by NULL; ';' in a value is
 * escaped. RDMACH_ERR_INVALID_ARG if a key is empty or has '=', ';' or a
 * control byte, a value has a control byte, or the frame does not fit. */
rdmach_status_t rch_pmi2_format(char *out, size_t cap, size_t *len, enum rch_pmi2_cmd cmd, ...)
    __attribute__((sentinel));
/* The same from n pairs kv[2i] = kv[2i+1], for messages whose fields are
 * counted at run time (spawn). */
rdmach_status_t rch_pmi2_format_kv(char *out, size_t cap, size_t *len, enum rch_pmi2_cmd cmd, int n,
                                   const char *const *kv);

/* Framing of the byte stream; the reader never blocks by itself. */
struct rch_pmi2_reader {
    int fd;
    int eof;
    size_t len;
    char buf[RCH_PMI2_HEADER + RCH_PMI2_PAYLOAD_MAX];
};

void rch_pmi2_reader_init(struct rch_pmi2_reader *r, int fd);
/* One read(): as rch_pmi_reader_fill. */
rdmach_status_t rch_pmi2_reader_fill(struct rch_pmi2_reader *r);
/* The next complete frame, parsed: RDMACH_OK, RDMACH_AGAIN (incomplete), or
 * RDMACH_ERR_BOOT_PROTOCOL for a bad header (not a decimal number, zero, over
 * RCH_PMI2_PAYLOAD_MAX: the stream cannot be framed any more), a malformed
 * payload (consumed), or a stream that ended inside a frame (truncated). */
rdmach_status_t rch_pmi2_reader_next(struct rch_pmi2_reader *r, struct rch_pmi2_msg *m);

#endif
