/*
 * rdmach-noise --coll: the effect of noise on collectives. Barrier and
 * allreduce (8 B and 4 KiB of doubles) latency with the injector on and off
 * (rch_dev_noise_enable, alternating so that the machine's own drift hits
 * both alike), and the injected noise printed with them.
 */
#ifndef NOISE_COLL_H
#define NOISE_COLL_H

/* reps: timed batches per collective and setting. 0 or 1 (MPI error). */
int noise_coll_run(int rank, int size, int reps);

#endif
