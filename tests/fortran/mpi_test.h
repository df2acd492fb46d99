! mpi_test.h: the one difference between the two builds of every test
! program here (C preprocessor, -cpp): -DRDMACH_USE_MODULE gets `use mpi`,
! otherwise mpif.h. Every program unit starts MPI_USE / implicit none /
! MPI_INCLUDE.
#ifdef RDMACH_USE_MODULE
#define MPI_USE use mpi
#define MPI_INCLUDE
#else
#define MPI_USE
#define MPI_INCLUDE include 'mpif.h'
#endif
