#!/usr/bin/env python3
"""The walls docs/architecture.md states, checked from its tables and every header:

    python3 tests/packaging/check_walls.py SOURCE_DIR

- The components table: each component's umbrella header and folders exist; its header check
  target is the one tests/packaging/CMakeLists.txt makes for it (chunkwise_header_check_NAME);
  its pkg-config file is written by cmake/chunkwise-install.cmake; its Spack variant is declared
  in packaging/spack/packages/chunkwise/package.py; its docs page and tests folder exist; the API
  reference (docs/api-main.md) and the README's status name its umbrella header.
- Every header under include/chunkwise has exactly one row in the file tables (| file | layer |
  what |), every row names a header that exists and a known layer, and a component's folders fix
  the layer of their headers (as do acc/, detail/core/, detail/codecs/, detail/tensor/,
  detail/run/, bench/ and detail/bench/). Every path named in "Where a new thing goes" exists.
- Layers: blocks < policies < apply < run < {store, codecs, tensor} < {each component} < bench <
  umbrella. A header includes only its own layer and those below it, never up or sideways (store
  is the one floor layer the other two may include); components never include one another. Headers of
  blocks, policies, apply, store, run and bench include no MPI, HDF5, Boost, nlohmann or xtensor
  header; codecs none of those either; tensor none but xtensor's.
- No include cycle; no header longer than 500 lines.
- Every .ipp file (a component's definitions, docs/installing.md "Header-only or compiled") sits
  beside its header, which includes it, is included by its component's src.hpp, includes
  nothing itself and is at most 500 lines.
- No type, concept or alias is declared outside a `detail` namespace in a header under detail/.
- tests/core/test_user_policy.cpp and the benchmarks name no chunkwise `detail::` entity.
Prints "walls ok: ..." and exits 0, or names every problem and exits 1.

    python3 tests/packaging/check_walls.py --includes-only TREE

checks a tree of include/ and docs/architecture.md alone (packaging.new_store's copy with a new
store): the components' umbrella headers and folders, the layers and every include, cycles and
namespaces; a header in a component's folders needs no row of the file tables there.
"""
import pathlib
import re
import sys

STD_LAYERS = ["blocks", "policies", "apply"]
RUN_LAYER = "run"
FLOOR_LAYERS = ["store", "codecs", "tensor"]
TOP_LAYERS = ["bench", "umbrella"]
FOREIGN = re.compile(r"^(mpi\.h|hdf5\.h|H5|boost/|xtensor|nlohmann/)")


def table_rows(lines, first_cell):
    """The rows (lists of cells) of every Markdown table whose header's first cell is `first_cell`."""
    rows, in_table, in_fence = [], False, False
    for line in lines:
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells is None:
            in_table = False
        elif not in_table and cells[0] == first_cell:
            in_table = True
        elif in_table and not set(cells[0]) <= set("-: "):
            rows.append(cells)
    return rows


def main(source, includes_only=False):
    root = pathlib.Path(source)
    include = root / "include" / "chunkwise"
    doc_path = root / "docs" / "architecture.md"
    doc = doc_path.read_text().splitlines()
    problems = []

    # ---- the components table ----
    components = {}
    for cells in table_rows(doc, "component"):
        if len(cells) < 10:
            problems.append(f"docs/architecture.md: the components row '{cells[0]}' has {len(cells)} cells, not 10")
            continue
        name, umbrella, folders, target, check, pc, spack, page, tests = cells[:9]
        components[name] = {"umbrella": umbrella, "folders": [], "check": check}
        if not (include / umbrella).is_file():
            problems.append(f"component {name}: its umbrella header {umbrella} does not exist")
        if name != "core":
            for f in [x.strip() for x in folders.split(",")]:
                if not (include / f).is_dir():
                    problems.append(f"component {name}: its folder {f} does not exist")
                components[name]["folders"].append(f)
        if includes_only:
            continue
            if check != f"chunkwise_header_check_{name}":
                problems.append(f"component {name}: its header check is chunkwise_header_check_{name}, not {check}")
            if f'variant("{name}"' not in (root / "packaging/spack/packages/chunkwise/package.py").read_text():
                problems.append(f"component {name}: no Spack variant '{name}' in packaging/spack/packages/chunkwise/package.py")
        if f"pkgconfig/{pc}" not in (root / "cmake/chunkwise-install.cmake").read_text():
            problems.append(f"component {name}: cmake/chunkwise-install.cmake writes no {pc}")
        if target != "chunkwise::chunkwise" and target != f"chunkwise::{name}":
            problems.append(f"component {name}: its target is chunkwise::{name}, not {target}")
        for path in (page, tests):
            if not (root / path).exists():
                problems.append(f"component {name}: {path} does not exist")
        if f"<chunkwise/{umbrella}>" not in (root / "docs/api-main.md").read_text():
            problems.append(f"component {name}: docs/api-main.md does not name <chunkwise/{umbrella}>")
        readme = (root / "README.md").read_text()
        status = readme[readme.find("## Status"):]
        if umbrella not in status:
            problems.append(f"component {name}: the README's status does not name {umbrella}")
    layers = STD_LAYERS + [RUN_LAYER] + FLOOR_LAYERS + [c for c in components if c != "core"] + TOP_LAYERS

    def rank(layer):
        if layer in STD_LAYERS:
            return STD_LAYERS.index(layer)
        if layer == RUN_LAYER:
            return 3
        if layer in FLOOR_LAYERS:
            return 4
        if layer in TOP_LAYERS:
            return 6 + TOP_LAYERS.index(layer)
        return 5  # a component

    def folder_layers(h):
        if h.startswith("detail/core/"):
            return STD_LAYERS
        for prefix, layer in (("acc/", "apply"), ("detail/codecs/", "codecs"), ("detail/tensor/", "tensor"),
                              ("detail/run/", "run"), ("bench/", "bench"), ("detail/bench/", "bench")):
            if h.startswith(prefix):
                return [layer]
        for name, c in components.items():
            if h == c["umbrella"] and name != "core":
                return [name]
            if any(h.startswith(f) for f in c["folders"]):
                return [name]
        return None

    # ---- the file tables ----
    layer_of = {}
    for cells in table_rows(doc, "file"):
        f, layer = cells[0], cells[1] if len(cells) > 1 else ""
        if f in layer_of:
            problems.append(f"docs/architecture.md: {f} has two rows")
        layer_of[f] = layer
        if not (include / f).is_file():
            problems.append(f"docs/architecture.md: a row names {f}, which does not exist")
        if layer not in layers:
            problems.append(f"docs/architecture.md: {f} is in layer '{layer}', which is none of {', '.join(layers)}")
    in_where, in_fence = False, False
    for line in doc:
        if line.startswith("## "):
            in_where = line.startswith("## Where a new thing goes")
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_where and not in_fence and not includes_only:
            for p in re.findall(r"(?:include|tests|cmake|benchmarks|docs)/[A-Za-z0-9_./-]+\.(?:hpp|cpp|cmake|py|md|sh)", line):
                if not (root / p).exists():
                    problems.append(f'docs/architecture.md, "Where a new thing goes": names {p}, which does not exist')

    # ---- every header ----
    headers = sorted(str(p.relative_to(include)) for p in include.rglob("*.hpp"))
    deps, up, edges = {}, [], 0
    decl = re.compile(r"^(struct|class|enum|union|concept|using|template <[^>]*> *(struct|class|concept|using)) ([A-Za-z_]\w*)")
    for h in headers:
        text = (include / h).read_text()
        lines = text.splitlines()
        if len(lines) > 500:
            problems.append(f"{h}: {len(lines)} lines (at most 500)")
        deps[h] = []
        if h not in layer_of and includes_only and folder_layers(h) and folder_layers(h)[0] in components:
            layer_of[h] = folder_layers(h)[0]  # a component's header, its layer from its folder
        if h not in layer_of:
            problems.append(f"{h}: no row in docs/architecture.md (one line: | {h} | layer | what |)")
            continue
        frm = layer_of[h]
        allowed = folder_layers(h)
        if allowed and frm not in allowed:
            problems.append(f"{h}: layer '{frm}' in docs/architecture.md, but its folder is {', '.join(allowed)}")
        depth, public_depths = 0, []
        for line in lines:
            m = re.match(r"\s*#\s*include\s*<chunkwise/([^>]+)>", line)
            if m:
                inc = m.group(1)
                edges += 1
                deps[h].append(inc)
                if not (include / inc).is_file():
                    problems.append(f"{h}: includes <chunkwise/{inc}>, which does not exist")
                    continue
                if inc not in layer_of:
                    continue  # reported as a header without a row
                to = layer_of[inc]
                if rank(frm) == 5 and rank(to) == 5 and frm != to:
                    problems.append(f"{h} ({frm}) includes <chunkwise/{inc}> ({to}): components never include one another")
                elif rank(to) > rank(frm) or (rank(to) == rank(frm) == 4 and frm != to and to != "store"):
                    up.append(f"{h} ({frm}) -> {inc} ({to})")
                continue
            m = re.match(r"\s*#\s*include\s*<([^>]+)>", line)
            if m:
                inc = m.group(1)
                foreign = FOREIGN.match(inc)
                if foreign and frm in STD_LAYERS + ["store", "codecs", "run", "bench"]:
                    problems.append(f"{h} ({frm}) includes <{inc}>")
                elif foreign and frm == "tensor" and not inc.startswith("xtensor"):
                    problems.append(f"{h} (tensor) includes <{inc}>")
                continue
            if re.match(r'\s*#\s*include\s*"', line):
                problems.append(f"{h}: includes with quotes (one spelling: <chunkwise/...>)")
                continue
            if not h.startswith("detail/"):
                continue
            m = re.match(r"^namespace ([\w:]+) \{", line)
            if m:
                depth += 1
                if "detail" not in m.group(1):
                    public_depths.append(depth)
            elif re.match(r"^}\s*// namespace", line):
                if public_depths and public_depths[-1] == depth:
                    public_depths.pop()
                depth -= 1
            elif public_depths and public_depths[-1] == depth and not line.startswith("using namespace"):
                d = decl.match(line)
                if d:
                    problems.append(f"{h}: declares '{d.group(3)}' outside a detail namespace (public names live in public headers)")
    # ---- the .ipp files: each beside its header, which includes it where header-only; each
    # compiled by its component's src.hpp; at most 500 lines, including nothing ----
    ipps = sorted(str(p.relative_to(include)) for p in include.rglob("*.ipp"))
    for ipp in ipps:
        header = ipp[:-4] + ".hpp"
        owner = next((n for n, c in components.items() if any(ipp.startswith(f) for f in c["folders"])), None)
        ipp_lines = (include / ipp).read_text().splitlines()
        if len(ipp_lines) > 500:
            problems.append(f"{ipp}: {len(ipp_lines)} lines (at most 500)")
        if any(re.match(r"\s*#\s*include", x) for x in ipp_lines):
            problems.append(f"{ipp}: includes a file (its header includes what it needs)")
        if not (include / header).is_file():
            problems.append(f"{ipp}: no header {header} beside it")
        elif f"#include <chunkwise/{ipp}>" not in (include / header).read_text():
            problems.append(f"{header} does not include <chunkwise/{ipp}> (header-only mode)")
        if owner is None:
            problems.append(f"{ipp}: in no component's folders (only components are compiled)")
        elif not (include / owner / "src.hpp").is_file() or \
                f"#include <chunkwise/{ipp}>" not in (include / owner / "src.hpp").read_text():
            problems.append(f"{ipp}: not compiled by <chunkwise/{owner}/src.hpp>")
    if up:
        problems.append(f"{len(up)} includes reach up or sideways (none may):\n    " + "\n    ".join(up))

    # ---- no include cycle ----
    done, cycle = set(), None

    def visit(h, path):
        nonlocal cycle
        if h in done or cycle:
            return
        if h in path:
            cycle = " -> ".join(path[path.index(h):] + [h])
            return
        for d in deps.get(h, []):
            visit(d, path + [h])
        done.add(h)

    for h in headers:
        visit(h, [])
    if cycle:
        problems.append(f"an include cycle: {cycle}")

    # ---- no detail:: name where a user's code stands ----
    user_code = sorted(root.glob("benchmarks/**/*.cpp")) + sorted(root.glob("benchmarks/**/*.hpp"))
    if not includes_only:
        user_code.append(root / "tests/core/test_user_policy.cpp")
    for f in user_code:
        for line in f.read_text().splitlines():
            if "detail::" in line and not line.lstrip().startswith("//"):
                problems.append(f"{f.relative_to(root)} names a detail:: entity: {line.strip()}")

    if problems:
        print("walls broken:\n  " + "\n  ".join(problems))
        return 1
    up_text = "none reaching up or sideways"
    if includes_only:
        print(f"walls ok (includes only): {len(headers)} headers, {len(components)} components "
              f"({', '.join(components)}), {edges} includes of chunkwise headers, {up_text}, no cycle, no public name "
              "under detail/")
        return 0
    print(f"walls ok: {len(headers)} headers, each with one row in the architecture tables, "
          f"{len(components)} components ({', '.join(components)}) each with its check, pkg-config file, Spack variant, "
          f"docs, API reference entry, README line and tests; {edges} includes of chunkwise headers, {up_text}, no "
          "cycle, no public name under detail/; codecs and tensor below both stores, hdf5 and zarr peers; "
          f"{len(ipps)} .ipp files, each included by its header and compiled by its component's src.hpp")
    return 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--includes-only"]
    sys.exit(main(args[0] if args else ".", includes_only="--includes-only" in sys.argv[1:]))
