#!/usr/bin/env python3
"""Check that README.md quotes examples/01_quick_start.c word for word in a ```c block,
and that its quick-start commands are the ones .ci/run runs."""
import sys

readme = open("README.md", encoding="utf-8").read()
example = open("examples/01_quick_start.c", encoding="utf-8").read()
problems = []
if "```c\n" + example + "```\n" not in readme:
    problems.append("README.md does not quote examples/01_quick_start.c word for word")
for cmd in ("cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o demo examples/02_multi_tenant.c -lpthread",
            "meson setup build && meson test -C build"):
    if cmd not in readme:
        problems.append(f"README.md lacks the command: {cmd}")
for p in problems:
    print(p)
print("README check: " + ("ok" if not problems else "FAILED"))
sys.exit(1 if problems else 0)
