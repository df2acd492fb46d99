/*
 * The MPI tool information interface (MPI-4.1 chapter 15), split by
 * concern: mpit.c (init/finalize, strings, enumerations, control
 * variables over the tunables table), mpit_cat.c (categories),
 * mpit_pvar.c (performance variables over the device's counters,
 * device/stats.h), mpit_event.c (the events unexpected_message and
 * peer_failed, and their source). docs/MPIT.md lists what tools see.
 *
 * MPI_T calls never invoke error handlers: they return an MPI_T_ERR_*
 * class (or MPI_SUCCESS). They work before MPI_Init and after
 * MPI_Finalize, between MPI_T_init_thread and the matching
 * MPI_T_finalize (the two nest: a count). At MPI_THREAD_MULTIPLE every
 * entry point holds the MPI layer's critical section, as MPI calls do.
 *
 * Handles (cvar and pvar handles, sessions, event registrations) are
 * malloc'd objects on a list of live ones: an argument is valid only if it
 * is on its list, so a freed or made-up handle is MPI_T_ERR_INVALID_HANDLE
 * (or _SESSION), never a crash.
 */
#ifndef RCH_MPI_MPIT_IMPL_H
#define RCH_MPI_MPIT_IMPL_H

#include <stddef.h>
#include "mpi.h"

/* ---- mpit.c ---- */
extern int rch_mpit_refs;            /* MPI_T_init_thread calls not yet finalized */
static inline int rch_mpit_ready(void) { return rch_mpit_refs > 0; }
/* Copy `src` into (buf, *len) as MPI_T does (MPI-4.1 15.3.3): at most
 * *len - 1 characters and a NUL; *len becomes the characters stored plus
 * one, or, when buf is NULL or *len is 0, the length the whole string needs
 * (plus one). A NULL len is "not interested". */
void rch_mpit_str(char *buf, int *len, const char *src);
/* Stores v where p points unless p is NULL (an output the caller ignores). */
#define RCH_MPIT_SET(p, v) do { if (p) *(p) = (v); } while (0)
/* The number of control variables, and the name of cvar i's tunables row
 * (without RDMACH_; NULL if there is none): mpit_cat.c files it by name. */
int rch_mpit_cvar_count(void);
const char *rch_mpit_cvar_tunable(int i);

/* ---- mpit_cat.c ---- */
int rch_mpit_cat_of_cvar(int cvar);         /* -1: none (a tunable no category claims) */

/* ---- mpit_pvar.c ---- */
int rch_mpit_pvar_count(void);
int rch_mpit_pvar_cat(int pvar);
/* Drop every session and handle (the last MPI_T_finalize). */
void rch_mpit_pvar_fini(void);

/* ---- mpit_event.c ---- */
int rch_mpit_event_count(void);
int rch_mpit_event_cat(int event);
void rch_mpit_event_fini(void);

/* The categories (mpit_cat.c), by which the tables above file their entries. */
enum { RCH_MPIT_CAT_ROOT, RCH_MPIT_CAT_BASE, RCH_MPIT_CAT_BOOT, RCH_MPIT_CAT_SHM, RCH_MPIT_CAT_DEVICE,
       RCH_MPIT_CAT_NET, RCH_MPIT_CAT_COLL, RCH_MPIT_CAT_SELF, RCH_MPIT_CAT_MAX };

#endif
