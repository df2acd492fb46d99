/*
 * f08_binding_stub.c: what bench/f08_latency's PROC_NULL rows measure, less
 * the library: preloaded (LD_PRELOAD), this MPI_Send/PMPI_Send returns at
 * once for MPI_PROC_NULL, so C's row is the call alone and mpi_f08's is the
 * call, gfortran's descriptor and the binding (f08_fast.c).
 *   LD_PRELOAD=build/bench/libf08_binding_stub.so \
 *       build/tools/rdmachrun -n 2 build/bench/f08_latency
 * Any other call goes on to the library's (dlsym RTLD_NEXT).
 */
#include <dlfcn.h>
#include <mpi.h>

typedef int send_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm);

int PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    static send_fn *next;
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!next)
        next = (send_fn *)dlsym(RTLD_NEXT, "PMPI_Send");
    return next(buf, count, type, dest, tag, comm);
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
    __attribute__((alias("PMPI_Send")));
