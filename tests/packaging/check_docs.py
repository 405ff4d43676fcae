#!/usr/bin/env python3
"""The cheap truths of the docs, checked against the tree:

    python3 tests/packaging/check_docs.py SOURCE_DIR

- every header a page of docs/ or the README names exists: `<chunkwise/X.hpp>`,
  `include/chunkwise/X.hpp`, and paths of internal headers (`detail/.../X.hpp`);
- every file of the repository they name by path exists: `cmake/...`, `tests/...`,
  `benchmarks/...`, `examples/...`, `docs/...`, `packaging/...` (from the top, or relative to the
  page as links are; an example program by its name);
- docs/api-main.md (the API reference's main page) names every public header.
The CHANGELOG is history and is not checked. Prints "docs ok: ..." and exits 0, or names every
problem and exits 1.
"""
import pathlib
import re
import sys

HEADER = re.compile(r"<chunkwise/([A-Za-z0-9_./-]+\.hpp)>|include/chunkwise/([A-Za-z0-9_./-]+\.hpp)|"
                    r"(?<![A-Za-z0-9_/])(detail/[A-Za-z0-9_./-]+\.hpp)")
PATH = re.compile(r"(?<![A-Za-z0-9_./-])((?:cmake|tests|benchmarks|examples|docs|packaging)/[A-Za-z0-9_./-]*[A-Za-z0-9_])")


def main(source):
    root = pathlib.Path(source)
    include = root / "include" / "chunkwise"
    pages = sorted((root / "docs").glob("*.md")) + [root / "README.md"]
    problems, headers_named, paths_named = [], 0, 0
    for page in pages:
        text = page.read_text()
        rel = page.relative_to(root)
        for m in HEADER.finditer(text):
            h = m.group(1) or m.group(2) or m.group(3)
            headers_named += 1
            if not (include / h).is_file():
                problems.append(f"{rel}: names the header {h}, which does not exist")
        for m in PATH.finditer(text):
            p = m.group(1).rstrip(".")
            if "*" in p or "<" in p or re.search(r"(^|/)[A-Z]+(\.|/|$)", p):
                continue  # a pattern or a placeholder (docs/examples/NAME.cpp)
            paths_named += 1
            # a path from the top, a link relative to the page, or an example program by its name
            if not ((root / p).exists() or (page.parent / p).exists() or (root / (p + ".cpp")).exists()):
                problems.append(f"{rel}: names {p}, which does not exist")
    api = (root / "docs" / "api-main.md").read_text()
    public = sorted(str(p.relative_to(include)) for p in include.rglob("*.hpp") if "detail" not in p.parts)
    for h in public:
        if f"<chunkwise/{h}>" not in api:
            problems.append(f"docs/api-main.md does not name the public header <chunkwise/{h}>")
    if problems:
        print("docs stale:\n  " + "\n  ".join(problems))
        return 1
    print(f"docs ok: {len(pages)} pages name {headers_named} headers and {paths_named} paths, all of which exist; "
          f"docs/api-main.md names all {len(public)} public headers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
