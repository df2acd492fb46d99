/*
 * MPI-IO for programs that include <mpio.h> as they do with MPICH (ROMIO's
 * header): everything is in mpi.h (MPI_File, the access modes, the
 * MPI_File_* functions of src/io), so this only includes it.
 */
#ifndef RDMACH_MPIO_H
#define RDMACH_MPIO_H
#include "mpi.h"
#endif
