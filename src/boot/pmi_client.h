/*
 * PMI-1 client: the library's one way to talk to a process manager (Hydra,
 * rdmachrun, any PMI-1 server) over the stream socket in PMI_FD. Every call
 * is a request line and its reply, validated against the command it answers.
 */
#ifndef RCH_BOOT_PMI_CLIENT_H
#define RCH_BOOT_PMI_CLIENT_H

#include "boot/boot.h"
#include "boot/pmi_wire.h"

/* How long a reply other than barrier_out may take before it is an error. */
#define RCH_PMI_REPLY_TIMEOUT_MS 60000

struct rch_pmi_client {
    int fd;
    int rank, size;
    int kvsname_max, keylen_max, vallen_max;   /* from get_maxes, counting the NUL */
    int appnum;
    char kvsname[RCH_PMI_KVSNAME_MAX];
    struct rch_pmi_reader rd;
};

/* Read PMI_FD, PMI_RANK, PMI_SIZE. *singleton = 1 (and OK) when the process
 * was started without a process manager: none of PMI_FD, PMI_RANK, PMI_SIZE,
 * PMI_PORT is set. Otherwise each must be present and valid, PMI_FD an open
 * socket; errors name the variable (RDMACH_ERR_BOOT). */
rdmach_status_t rch_pmi_client_env(int *fd, int *rank, int *size, int *singleton);

/* init, get_maxes, get_appnum, get_my_kvsname on an already connected fd. */
rdmach_status_t rch_pmi_client_init(struct rch_pmi_client *c, int fd, int rank, int size);
rdmach_status_t rch_pmi_client_put(struct rch_pmi_client *c, const char *key, const char *value);
/* RDMACH_ERR_NOT_FOUND if the server has no such key (rc != 0). */
rdmach_status_t rch_pmi_client_get(struct rch_pmi_client *c, const char *key, char *value, size_t len);
rdmach_status_t rch_pmi_client_barrier(struct rch_pmi_client *c);
/* Sends cmd=abort; does not wait for an answer (Hydra sends none). `why`
 * (NULL: none) is sent as error_msg, a PMI token: no space. */
rdmach_status_t rch_pmi_client_abort(struct rch_pmi_client *c, int code, const char *why);
/* The same with a ranks field (a PMI token, "1,3"): rdmachrun ends only
 * those ranks. */
rdmach_status_t rch_pmi_client_abort_ranks(struct rch_pmi_client *c, int code, const char *why, const char *ranks);
/* The spawn of count commands as one job (boot.h); errcodes[total]. */
rdmach_status_t rch_pmi_client_spawn(struct rch_pmi_client *c, int count, const struct rch_boot_spawn *cmds,
                                     const char *preput_key, const char *preput_val, int *errcodes);
/* get_universe_size: *size, or an error. */
rdmach_status_t rch_pmi_client_universe(struct rch_pmi_client *c, int *size);
/* finalize / finalize_ack, then closes the fd. */
rdmach_status_t rch_pmi_client_finalize(struct rch_pmi_client *c);

#endif
