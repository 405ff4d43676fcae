#!/usr/bin/env python3
"""Checks packaging/spack/packages/chunkwise/package.py without Spack: it compiles, defines class
Chunkwise(CMakePackage), has the variants mpi, hdf5 and zarr, the version of include/chunkwise/version.hpp,
and passes the CMake options CHUNKWISE_WITH_MPI, _HDF5 and _ZARR from the variants.

    python3 packaging/check_spack_package.py <source dir>
"""
import ast
import pathlib
import re
import sys


def main(root):
    root = pathlib.Path(root)
    path = root / "packaging" / "spack" / "packages" / "chunkwise" / "package.py"
    tree = ast.parse(path.read_text(), filename=str(path))  # a syntax error fails here
    compile(tree, str(path), "exec")
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Chunkwise"]
    problems = []
    if not classes or not any(getattr(b, "id", None) == "CMakePackage" for b in classes[0].bases):
        problems.append("no class Chunkwise(CMakePackage)")
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]

    def first_args(name):
        return {n.args[0].value for n in calls if n.func.id == name and n.args and isinstance(n.args[0], ast.Constant)}

    for v in ("mpi", "hdf5", "zarr"):
        if v not in first_args("variant"):
            problems.append(f"no variant '{v}'")
    header = (root / "include" / "chunkwise" / "version.hpp").read_text()
    version = ".".join(re.search(rf"CHUNKWISE_VERSION_{p} (\d+)", header).group(1) for p in ("MAJOR", "MINOR", "PATCH"))
    if version not in first_args("version"):
        problems.append(f"no version('{version}') (include/chunkwise/version.hpp)")
    text = path.read_text()
    for option in ("CHUNKWISE_WITH_MPI", "CHUNKWISE_WITH_HDF5", "CHUNKWISE_WITH_ZARR"):
        if f'define_from_variant("{option}"' not in text:
            problems.append(f"cmake_args does not set {option} from its variant")
    for p in problems:
        print(f"{path.relative_to(root)}: {p}")
    print(f"package.py: {'ok' if not problems else 'FAILED'} (version {version}, variants mpi, hdf5)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
