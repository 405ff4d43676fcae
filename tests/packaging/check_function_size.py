#!/usr/bin/env python3
"""No function in include/ is longer than 100 lines (its braces' lines, lambdas inside included; a
lambda outside any function counts as a function of its own):

    python3 tests/packaging/check_function_size.py SOURCE_DIR [--most N]

Reads the code without comments, strings and preprocessor lines, and finds each body by its
braces: a `{` after `)` (or after what may follow a parameter list: const, noexcept, override,
final, mutable, a trailing return type) or after a lambda's `]` opens a function, unless it
follows a control statement. Prints "function sizes ok: ..." and exits 0, or names every longer
function and exits 1.
"""
import pathlib
import re
import sys

CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof", "noexcept", "throw"}
TRAILING = re.compile(r"(?:\)\s*|\b(?:const|noexcept|override|final|mutable)\s*|->\s*[\w:<>,&*\s]+)$")


def blank(text):
    """`text` with comments, string and character literals and preprocessor lines blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        m = re.match(r'R"([^(]*)\(', text[i:i + 40])
        if m:
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
            continue
        out.append(c)
        if c == "\n":
            line_start = True
        elif not c.isspace():
            line_start = False
        i += 1
    return "".join(out)


def opens_function(before):
    """True where a `{` after `before` (the code before it, stripped) opens a function body."""
    s = before.rstrip()
    if s.endswith("]"):
        return True  # a lambda without parameters
    if not TRAILING.search(s):
        return False
    # The parameter list: the last ")" before the trailing words, and the word before its "(".
    close = s.rfind(")")
    if close < 0:
        return False
    depth, k = 0, close
    while k >= 0:
        if s[k] == ")":
            depth += 1
        elif s[k] == "(":
            depth -= 1
            if depth == 0:
                break
        k -= 1
    word = re.search(r"([\w~]+|\])\s*(<[^()]*>)?\s*$", s[:k])
    return not (word and word.group(1) in CONTROL)


def functions(text):
    """(first line, last line) of every outermost function body in `text` (already blanked)."""
    found, stack, last = [], [], 0
    line = 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            if any(kind == "fn" for kind, _ in stack):
                stack.append(("block", line))
            else:
                start = max(text.rfind(";", 0, i), text.rfind("{", 0, i), text.rfind("}", 0, i), last) + 1
                stack.append(("fn" if opens_function(text[start:i]) else "scope", line))
        elif c == "}" and stack:
            kind, first = stack.pop()
            if kind == "fn":
                found.append((first, line))
            last = i
    return found


def main(argv):
    root = pathlib.Path(argv[0] if argv else ".")
    most = int(argv[argv.index("--most") + 1]) if "--most" in argv else 100
    long, count = [], 0
    for path in sorted(list((root / "include").rglob("*.hpp")) + list((root / "include").rglob("*.ipp"))):
        raw = path.read_text().splitlines()
        for first, last in functions(blank(path.read_text())):
            count += 1
            if last - first + 1 > most:
                # the function's first line of code, for the message
                head = next((raw[k].strip() for k in range(first - 1, max(first - 8, -1), -1)
                             if re.search(r"\w+\s*\(", raw[k])), raw[first - 1].strip())
                long.append(f"{path.relative_to(root)}:{first}: {last - first + 1} lines: {head}")
    if long:
        print(f"functions longer than {most} lines:\n  " + "\n  ".join(long))
        return 1
    print(f"function sizes ok: {count} functions in include/, none longer than {most} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
