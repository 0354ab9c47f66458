#!/usr/bin/env python3
"""config_errors.py - configuration mistakes stop the build with a message that names them.

Usage: config_errors.py SOURCE_ROOT CC [CC args...] [-- CXX [CXX args...]]

Compiles tests/compile/impl.c (the implementation alone) once as it is (it must build) and then
once per mistake, each of which must fail with an #error that names the macro (or says the
implementation must be compiled as C). Prints one line per case and exits non-zero on any miss."""
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
args = sys.argv[2:]
cxx = None
if "--" in args:
    i = args.index("--")
    cc, cxx = args[:i], args[i + 1:]
else:
    cc = args
impl = os.path.join(root, "tests", "compile", "impl.c")

CASES = [  # (name, compiler, extra flags, text the error must contain; None = must build)
    ("defaults", cc, [], None),
    ("GROUPCONC_BATCH_MAX=0", cc, ["-DGROUPCONC_BATCH_MAX=0"], "GROUPCONC_BATCH_MAX must be >= 1"),
    ("GROUPCONC_BATCH_MAX=-4", cc, ["-DGROUPCONC_BATCH_MAX=-4"], "GROUPCONC_BATCH_MAX must be >= 1"),
    ("GROUPCONC_MAX_KEY_LEN=0", cc, ["-DGROUPCONC_MAX_KEY_LEN=0"], "GROUPCONC_MAX_KEY_LEN must be >= 1"),
    ("GROUPCONC_SPIN_NS=-1", cc, ["-DGROUPCONC_SPIN_NS=-1"], "GROUPCONC_SPIN_NS must be >= 0"),
    ("GROUPCONC_MALLOC without GROUPCONC_FREE", cc, ["-DGROUPCONC_MALLOC(s)=malloc(s)"],
     "define both GROUPCONC_MALLOC and GROUPCONC_FREE"),
    ("GROUPCONC_USE_WIN32 off Windows", cc, ["-DGROUPCONC_USE_WIN32"],
     "GROUPCONC_USE_WIN32 needs a Windows target"),
    ("GROUPCONC_USE_WIN32=0 (allowed)", cc, ["-DGROUPCONC_USE_WIN32=0"], None),
    ("GROUPCONC_BATCH_MAX=1 (allowed)", cc, ["-DGROUPCONC_BATCH_MAX=1"], None),
    ("GROUPCONC_SPIN_NS=0 (allowed)", cc, ["-DGROUPCONC_SPIN_NS=0"], None),
]
if cxx:
    CASES.append(("implementation compiled as C++", cxx, ["-x", "c++"],
                  "compile the file that defines GROUPCONC_IMPLEMENTATION as C"))

failed = 0
with tempfile.TemporaryDirectory() as tmp:
    for name, compiler, flags, want in CASES:
        cmd = compiler + ["-I" + root, "-D_POSIX_C_SOURCE=200809L", "-c", "-o",
                          os.path.join(tmp, "impl.o")] + flags + [impl]
        p = subprocess.run(cmd, capture_output=True, text=True)
        out = p.stdout + p.stderr
        if want is None:
            ok = p.returncode == 0
            why = "builds" if ok else "does not build:\n" + out
        else:
            errors = [l for l in out.splitlines() if "error" in l]
            ok = p.returncode != 0 and want in out and len(errors) <= 3
            why = ("stops with: " + (errors[0].strip() if errors else "?")) if ok else \
                  "want an #error containing %r, got exit %d and %d error lines:\n%s" % (
                      want, p.returncode, len(errors), out[:2000])
        print("%-45s %s: %s" % (name, "ok" if ok else "FAIL", why))
        failed += 0 if ok else 1
sys.exit(1 if failed else 0)
