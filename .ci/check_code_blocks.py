#!/usr/bin/env python3
"""Compile every ```c block of README.md and docs/guide.md, and try the README's first screen.

usage: check_code_blocks.py [--cc "CC [ARGS]"] [--first-screen]   (from the repository root)

- A block that defines main() is a complete program: it is compiled and linked alone
  (CC -std=c11 -Wall -Wextra -pedantic -Werror -I. ... -lpthread).
- Any other block is a fragment of top-level C. In docs/guide.md the first block declares the names
  the recipes use for the program's side, and every later block is compiled after it; in README.md
  a fragment is compiled after #include "groupconc.h". Fragments are compiled, not linked, with the
  same warnings as errors (unused static functions aside). #line directives make the compiler's
  messages point at the markdown file's lines.
- --first-screen: the README as a new user meets it. Its first ```c block is the quick-start
  program; the ```sh block after it is the one command that builds and runs it; the plain ``` block
  after that is what it prints. The command runs exactly as written, with bash, in a scratch copy
  of the checkout's groupconc.h and examples/ (so nothing is left in the tree); it must succeed
  without a word on stderr (no compiler warning) and print exactly that output."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FLAGS = ["-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I."]
FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")


def blocks(path):
    """[(info, first line number of the code, code)] of the file's fenced blocks."""
    out, info, start, code = [], None, 0, []
    for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1):
        m = FENCE.match(line)
        if info is None and m:
            info, start, code = m.group(1), n + 1, []
        elif info is not None and line.startswith("```"):
            out.append((info, start, "\n".join(code) + "\n"))
            info = None
        elif info is not None:
            code.append(line)
    if info is not None:
        sys.exit("%s: a code block opened at line %d is never closed" % (path, start - 1))
    return out


def compile_block(cc, path, line, code, before, tmp):
    src = os.path.join(tmp, "block.c")
    program = re.search(r"^\s*int\s+main\s*\(", code, re.M) is not None
    with open(src, "w", encoding="utf-8") as f:
        if not program:
            f.write(before)
        f.write('#line %d "%s"\n' % (line, path))
        f.write(code)
    if program:
        cmd = shlex.split(cc) + FLAGS + ["-O1", "-o", os.path.join(tmp, "block"), src, "-lpthread"]
    else:
        cmd = shlex.split(cc) + FLAGS + ["-Wno-unused-function", "-c", "-o", os.path.join(tmp, "block.o"), src]
    r = subprocess.run(cmd, capture_output=True, text=True)
    what = "program" if program else "fragment"
    if r.returncode != 0 or r.stderr.strip():
        print("%s:%d: the %s does not compile with %s:\n%s" % (path, line, what, cc, r.stderr.rstrip()))
        return False
    print("%s:%d: %s compiled (%s)" % (path, line, what, cc))
    return True


def check_compile(cc):
    ok, count = True, 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in ("README.md", "docs/guide.md"):
            c_blocks = [b for b in blocks(path) if b[0] == "c"]
            before = '#include "groupconc.h"\n'
            if path == "docs/guide.md" and c_blocks:
                info, line, prelude = c_blocks[0]
                before = '#line %d "%s"\n%s' % (line, path, prelude)
            for info, line, code in c_blocks:
                count += 1
                if path == "docs/guide.md" and code is c_blocks[0][2]:
                    ok &= compile_block(cc, path, line, code, "", tmp)
                else:
                    ok &= compile_block(cc, path, line, code, before, tmp)
    if count == 0:
        print("no ```c block found")
        return False
    return ok


def check_first_screen():
    found = blocks("README.md")
    first = next((i for i, b in enumerate(found) if b[0] == "c"), None)
    if first is None or first + 2 >= len(found) or found[first + 1][0] != "sh" or found[first + 2][0] != "":
        print("README.md: the first ```c block is not followed by a ```sh block (the command) and a "
              "``` block (what it prints)")
        return False
    command, expected = found[first + 1][2], found[first + 2][2]
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy("groupconc.h", tmp)
        shutil.copytree("examples", os.path.join(tmp, "examples"))
        r = subprocess.run(["bash", "-c", command], cwd=tmp, capture_output=True, text=True, timeout=300)
    print("README.md:%d: ran the first screen's command:\n%s" % (found[first + 1][1], command.rstrip()))
    ok = True
    if r.returncode != 0:
        print("it exited with %d" % r.returncode)
        ok = False
    if r.stderr.strip():
        print("it wrote to stderr:\n%s" % r.stderr.rstrip())
        ok = False
    if r.stdout != expected:
        print("it printed:\n%s\nwhere README.md (line %d) says:\n%s"
              % (r.stdout.rstrip(), found[first + 2][1], expected.rstrip()))
        ok = False
    if ok:
        print("it printed what README.md says:\n%s" % expected.rstrip())
    return ok


def main(argv):
    cc, first_screen = "cc", False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--cc" and args:
            cc = args.pop(0)
        elif a == "--first-screen":
            first_screen = True
        else:
            sys.exit(__doc__)
    ok = check_first_screen() if first_screen else check_compile(cc)
    print("code blocks: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
