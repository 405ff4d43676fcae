#!/usr/bin/env python3
"""Every C++ block in README.md and docs/*.md must be code that is compiled and run: its lines
(indentation, spacing, blank and comment-only lines aside) must appear, in order and together, in one of the
programs ctest builds and runs (docs/examples/*.cpp, examples/*.cpp); its #include lines anywhere
in that program. Prints each block that is not, with where it is, and exits 1.

    python3 docs/check_snippets.py <source dir>
"""
import pathlib
import re
import sys


def lines_of(text):
    """Lines with spacing made single, blank and comment-only lines dropped, an #include's
    trailing comment dropped."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return [re.sub(r"^(#include\s*\S+).*", r"\1", line) for line in lines if line and not line.startswith("//")]


def contains(haystack, needle):
    n = len(needle)
    return any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def main(root):
    root = pathlib.Path(root)
    programs = {p: lines_of(p.read_text()) for p in
                sorted((root / "docs" / "examples").glob("*.cpp")) + sorted((root / "examples").glob("*.cpp"))}
    docs = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    checked = missing = 0
    for doc in docs:
        text = doc.read_text()
        for m in re.finditer(r"^```(c\+\+|cpp|cxx)[ \t]*\n(.*?)^```", text, re.S | re.M):
            checked += 1
            block = lines_of(m.group(2))
            # #include lines may be anywhere in the program; the code must be there in one piece.
            includes = [line for line in block if line.startswith("#include")]
            code = [line for line in block if not line.startswith("#include")]
            if not block or any(all(i in lines for i in includes) and (not code or contains(lines, code))
                                for lines in programs.values()):
                continue
            missing += 1
            line = text.count("\n", 0, m.start()) + 1
            print(f"{doc.relative_to(root)}:{line}: this C++ block is in no compiled program "
                  f"(docs/examples/*.cpp, examples/*.cpp):\n  " + "\n  ".join(block[:3]) + "\n")
    print(f"{checked} C++ blocks, {checked - missing} found in compiled programs")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
