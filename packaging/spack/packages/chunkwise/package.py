# Spack package for chunkwise, kept with its source (docs/installing.md). chunkwise has no
# public release tarball yet, so Spack builds it from a checkout:
#   spack repo add packaging/spack
#   spack develop --path /path/to/chunkwise chunkwise@=0.2.0
#   spack install chunkwise +mpi +hdf5 +zarr
# ctest packaging.spack checks that this file compiles and declares what the docs say.

from spack.package import *


class Chunkwise(CMakePackage):
    """Header-only C++20 split-apply-combine: partition, map_blocks, gather and reduce on one
    core, a thread pool or MPI ranks; HDF5 datasets and Zarr arrays read and written in blocks
    aligned to their chunks; a strong-scaling harness."""

    license("BSD-3-Clause")

    version("0.2.0")

    variant("mpi", default=True, description="Build the mpi component (mpi_policy, hybrid_policy; Boost.MPI)")
    variant("hdf5", default=True, description="Build the hdf5 component (chunkwise::h5; HDF5, xtensor)")
    variant("zarr", default=True, description="Build the zarr component (chunkwise::zarr; nlohmann-json, xtensor)")

    depends_on("cxx", type="build")
    depends_on("cmake@3.21:", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("mpi", when="+mpi")
    depends_on("boost@1.74:+mpi+serialization", when="+mpi")

    depends_on("hdf5@1.10.5:~mpi", when="+hdf5~mpi")
    depends_on("hdf5@1.10.5:+mpi", when="+hdf5+mpi")
    depends_on("xtensor", when="+hdf5")
    depends_on("zlib-api", when="+hdf5")
    depends_on("libdeflate", when="+hdf5")

    depends_on("nlohmann-json", when="+zarr")
    depends_on("xtensor", when="+zarr")
    depends_on("zlib-api", when="+zarr")
    depends_on("libdeflate", when="+zarr")

    conflicts("%gcc@:11", msg="chunkwise needs C++20 as g++ 12 implements it")
    conflicts("%clang@:13", msg="chunkwise needs C++20 as clang 14 implements it")

    def cmake_args(self):
        args = [
            self.define("CHUNKWISE_BUILD_TESTS", False),
            self.define("CHUNKWISE_BUILD_EXAMPLES", False),
            self.define("CHUNKWISE_BUILD_DOCS", False),
            self.define("CHUNKWISE_BUILD_BENCHMARKS", False),
            self.define_from_variant("CHUNKWISE_WITH_MPI", "mpi"),
            self.define_from_variant("CHUNKWISE_WITH_HDF5", "hdf5"),
            self.define_from_variant("CHUNKWISE_WITH_ZARR", "zarr"),
        ]
        if self.spec.satisfies("+hdf5"):
            # chunkwise finds HDF5 through HDF5_ROOT before pkg-config (cmake/chunkwise-find-hdf5.cmake).
            args.append(self.define("HDF5_ROOT", self.spec["hdf5"].prefix))
        return args
