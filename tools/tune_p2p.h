/* rdmach-tune --p2p (tune_p2p.c): the large-message thresholds of the
 * shared-memory channel, measured between ranks 0 and 1, written to `out`
 * as `tunable` lines. Collective over MPI_COMM_WORLD; 0 or an exit code. */
#ifndef RCH_TOOLS_TUNE_P2P_H
#define RCH_TOOLS_TUNE_P2P_H

int rch_tune_p2p(const long *sizes, int nsizes, int reps, const char *out, int me, int p);

#endif
