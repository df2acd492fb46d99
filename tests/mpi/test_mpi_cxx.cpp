/*
 * test_mpi_cxx: a C++ program on rdmach's MPI (built with rdmach-mpicxx by
 * tests/mpi/mpicc_check.sh): mpi.h compiles as C++ (extern "C", no C++
 * bindings: MPI-3 removed them), and the C API works from C++ code with
 * standard containers. Every rank checks an allreduce over a std::vector,
 * a ring exchange of std::string contents and a gather; exit 1 on a wrong
 * answer, with the reason.
 */
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

static void check(bool ok, int rank, const std::string &what)
{
    if (!ok) {
        std::fprintf(stderr, "test_mpi_cxx: rank %d: %s\n", rank, what.c_str());
        std::exit(1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    std::vector<long> mine(100), sum(100);
    std::iota(mine.begin(), mine.end(), static_cast<long>(rank));
    MPI_Allreduce(mine.data(), sum.data(), static_cast<int>(mine.size()), MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 100; i++) {
        long want = static_cast<long>(size) * i + static_cast<long>(size) * (size - 1) / 2;
        check(sum[i] == want, rank, "allreduce element " + std::to_string(i) + " is " + std::to_string(sum[i]) +
                                        ", expected " + std::to_string(want));
    }

    std::string out = "hello from rank " + std::to_string(rank);
    std::vector<char> in(64, '\0');
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;
    MPI_Sendrecv(out.c_str(), static_cast<int>(out.size() + 1), MPI_CHAR, right, 7, in.data(),
                 static_cast<int>(in.size()), MPI_CHAR, left, 7, MPI_COMM_WORLD, &st);
    check(std::string(in.data()) == "hello from rank " + std::to_string(left), rank,
          "ring message is '" + std::string(in.data()) + "'");

    std::vector<int> ranks(static_cast<size_t>(size), -1);
    MPI_Gather(&rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            check(ranks[static_cast<size_t>(r)] == r, rank, "gather slot " + std::to_string(r));

    MPI_Finalize();
    if (rank == 0)
        std::printf("test_mpi_cxx: %d rank(s) ok\n", size);
    return 0;
}
