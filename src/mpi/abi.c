/*
 * Objects that MPICH's mpi.h names as exported variables, so a binary built
 * against MPICH refers to them by symbol: the graph-topology weight
 * sentinels and the Fortran status sentinels. Their addresses are what
 * matters; the values are arbitrary.
 */
#include "mpi/mpi_impl.h"

static int unweighted_anchor;
static int weights_empty_anchor;
int *const MPI_UNWEIGHTED = &unweighted_anchor;
int *const MPI_WEIGHTS_EMPTY = &weights_empty_anchor;

/* C's view of Fortran's MPI_STATUS(ES)_IGNORE: never dereferenced. */
static MPI_Fint f_status_ignore_anchor[MPI_F_STATUS_SIZE];
static MPI_Fint f_statuses_ignore_anchor[MPI_F_STATUS_SIZE];
MPI_Fint *MPI_F_STATUS_IGNORE = f_status_ignore_anchor;
MPI_Fint *MPI_F_STATUSES_IGNORE = f_statuses_ignore_anchor;

MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = MPIR_F08_MPI_STATUSES_IGNORE_OBJ;
