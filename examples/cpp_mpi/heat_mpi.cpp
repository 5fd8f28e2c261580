// The 2-D heat equation of examples/mpi_heat.py, from C++: each MPI rank owns a band of rows
// plus two halo rows, exchanges halos with MPI_Sendrecv straight from the Tack arrays' memory,
// and runs the kernel of examples/kernels/heat_step.py on its band. Rank 0 gathers the grid and
// writes it as raw little-endian doubles; any number of ranks writes the same bytes, and so
// does the Python version.
//
//   mpirun -n 2 heat_mpi KERNEL.py [--ny 64] [--nx 48] [--steps 200] [--out heat.bin]
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <tack/tack.hpp>

namespace {

constexpr double kAlpha = 0.2;

struct Options {
    std::string kernel_path;
    std::int64_t ny = 64, nx = 48, steps = 200;
    std::string out;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--ny")
            o.ny = std::stoll(next());
        else if (a == "--nx")
            o.nx = std::stoll(next());
        else if (a == "--steps")
            o.steps = std::stoll(next());
        else if (a == "--out")
            o.out = next();
        else
            o.kernel_path = a;
    }
    return o;
}

// Rows [start, start + count) of the global grid that `rank` owns (as mpi_heat.band).
std::pair<std::int64_t, std::int64_t> band(std::int64_t ny, int size, int rank) {
    std::int64_t base = ny / size, extra = ny % size;
    return {rank * base + std::min<std::int64_t>(rank, extra), base + (rank < extra ? 1 : 0)};
}

// The global initial value of cell (i, j), as mpi_heat.initial.
double initial(std::int64_t i, std::int64_t j, std::int64_t ny, std::int64_t nx) {
    if (i == 0) return 100.0;
    bool square = i >= ny / 4 && i < ny / 2 && j >= nx / 4 && j < nx / 2;
    return square ? 50.0 : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Options o = parse(argc, argv);
    auto [start, count] = band(o.ny, size, rank);
    const std::int64_t nx = o.nx, rows = count + 2;

    std::vector<double> block(static_cast<std::size_t>(rows * nx), 0.0);
    for (std::int64_t k = 0; k < rows; ++k) {
        std::int64_t g = start - 1 + k;
        if (g < 0 || g >= o.ny) continue;
        for (std::int64_t j = 0; j < nx; ++j)
            block[static_cast<std::size_t>(k * nx + j)] = initial(g, j, o.ny, nx);
    }

    try {
        tack::device("cpu");
        tack::Kernel step = tack::Module::from_file(o.kernel_path).kernel("heat_step");
        tack::Array u = tack::Array::from_host(block, {rows, nx});
        tack::Array v = tack::Array::from_host(block, {rows, nx});
        const std::int64_t row_lo = start == 0 ? 2 : 1;
        const std::int64_t row_hi = start + count == o.ny ? count : count + 1;
        const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
        const int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
        const int n = static_cast<int>(nx);

        for (std::int64_t s = 0; s < o.steps; ++s) {
            tack::sync();  // queued launches finish before MPI reads the memory
            auto* a = static_cast<double*>(u.host_data());
            MPI_Sendrecv(a + nx, n, MPI_DOUBLE, up, 0, a + (count + 1) * nx, n, MPI_DOUBLE, down, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(a + count * nx, n, MPI_DOUBLE, down, 1, a, n, MPI_DOUBLE, up, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            step(u, v, row_lo, row_hi, kAlpha);
            std::swap(u, v);
        }
        tack::sync();

        std::vector<int> counts(size), displs(size);
        for (int r = 0; r < size; ++r) {
            auto [s0, c0] = band(o.ny, size, r);
            counts[r] = static_cast<int>(c0 * nx);
            displs[r] = static_cast<int>(s0 * nx);
        }
        std::vector<double> full(rank == 0 ? static_cast<std::size_t>(o.ny * nx) : 0);
        auto* a = static_cast<const double*>(u.host_data());
        MPI_Gatherv(a + nx, counts[rank], MPI_DOUBLE, full.data(), counts.data(), displs.data(),
                    MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double sum = 0.0;
            for (double x : full)
                sum += x;
            std::printf("heat_mpi: %d rank(s), %lldx%lld, %lld steps, sum %.6f\n", size,
                        static_cast<long long>(o.ny), static_cast<long long>(nx),
                        static_cast<long long>(o.steps), sum);
            if (!o.out.empty()) {
                std::ofstream f(o.out, std::ios::binary);
                f.write(reinterpret_cast<const char*>(full.data()),
                        static_cast<std::streamsize>(full.size() * sizeof(double)));
            }
        }
    } catch (const tack::Error& e) {
        std::fprintf(stderr, "heat_mpi: %s\n", e.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
