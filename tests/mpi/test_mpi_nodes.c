/*
 * Node identity under pretend nodes (run with RDMACH_VNODE_SIZE=k): ranks
 * r and s share a processor name exactly when r / k == s / k, and
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups the same ranks — so a
 * program that finds nodes by processor name (OMB's congestion benchmarks)
 * sees the layout the library uses.
 */
#include "mpi_test.h"

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    const char *k_text = getenv("RDMACH_VNODE_SIZE");
    int k = k_text ? atoi(k_text) : 0;
    CHECK(k > 0, "run with RDMACH_VNODE_SIZE set");
    char name[MPI_MAX_PROCESSOR_NAME] = { 0 };
    int len;
    MPI_OK(MPI_Get_processor_name(name, &len));
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    MPI_OK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                         MPI_COMM_WORLD));
    for (int s = 0; s < size; s++) {
        int same = strcmp(all + (size_t)s * MPI_MAX_PROCESSOR_NAME, name) == 0;
        CHECK(same == (s / k == mt_rank / k), "rank %d is '%s', rank %d is '%s'", mt_rank, name, s,
              all + (size_t)s * MPI_MAX_PROCESSOR_NAME);
    }
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr, ns, first = -1;
    MPI_OK(MPI_Comm_rank(node, &nr));
    MPI_OK(MPI_Comm_size(node, &ns));
    int want = size - mt_rank / k * k < k ? size - mt_rank / k * k : k;
    CHECK(ns == want && nr == mt_rank % k, "shared communicator: rank %d of %d", nr, ns);
    MPI_OK(MPI_Allreduce(&mt_rank, &first, 1, MPI_INT, MPI_MIN, node));
    CHECK(first == mt_rank / k * k, "the node's first rank is %d", first);
    MPI_OK(MPI_Comm_free(&node));
    free(all);
    if (mt_rank == 0)
        printf("test_mpi_nodes: OK, %d ranks in pretend nodes of %d\n", size, k);
    MPI_OK(MPI_Finalize());
    return 0;
}
