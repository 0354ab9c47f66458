#!/usr/bin/env python3
"""Check README.md against the sources it quotes:
- it quotes examples/01_quick_start.c word for word in a ```c block;
- its quick-start commands are the ones .ci/run runs;
- its configuration table (the first markdown table under a heading containing "Configuration",
  macro names in backticks in the first column) lists exactly the macros of the CONFIGURATION
  table in groupconc.h's top comment;
- every examples/*.c is linked from it, and every examples/*.c it names exists;
- it keeps the warning that the global in-flight cap is not a running cap, with the recipe for
  "at most N running overall" (issue 12, item 10: the trap a new user hit), now the work-conserving
  global running cap (issue 15)."""
import glob
import os
import re
import sys

readme = open("README.md", encoding="utf-8").read()
example = open("examples/01_quick_start.c", encoding="utf-8").read()
header = open("groupconc.h", encoding="utf-8").read()
problems = []

if "```c\n" + example + "```\n" not in readme:
    problems.append("README.md does not quote examples/01_quick_start.c word for word")
for cmd in ("cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o demo examples/02_multi_tenant.c -lpthread",
            "meson setup build && meson test -C build"):
    if cmd not in readme:
        problems.append(f"README.md lacks the command: {cmd}")


def macro_name(text):
    """GROUPCONC_MALLOC(sz) -> GROUPCONC_MALLOC"""
    return re.sub(r"\(.*", "", text.strip().strip("`")).strip()


# The header's table: the lines after "CONFIGURATION" up to the next section heading; a row starts
# with a GROUPCONC_ name (continuation lines start with spaces only).
top = header.split("*/", 1)[0]
m = re.search(r"^\s*CONFIGURATION\s*$(.*?)^\s*CONCEPTS\s*$", top, re.M | re.S)
header_macros = set()
if not m:
    problems.append("groupconc.h: no CONFIGURATION table found in the top comment")
else:
    for line in m.group(1).splitlines():
        first = line.split()
        if first and first[0].startswith("GROUPCONC_"):
            header_macros.add(macro_name(first[0]))

# The README's table: the first table after a heading that contains "Configuration".
readme_macros = set()
lines = readme.splitlines()
start = next((i for i, l in enumerate(lines) if l.startswith("#") and "Configuration" in l), None)
if start is None:
    problems.append('README.md: no heading containing "Configuration"')
else:
    i = start + 1
    while i < len(lines) and not lines[i].startswith("|"):
        i += 1
    for line in lines[i + 2:]:  # skip the header row and the |---| row
        if not line.startswith("|"):
            break
        cell = line.split("|")[1]
        for name in re.findall(r"`([^`]+)`", cell):
            readme_macros.add(macro_name(name))

if header_macros and readme_macros != header_macros:
    if header_macros - readme_macros:
        problems.append("README.md configuration table lacks: " +
                        ", ".join(sorted(header_macros - readme_macros)))
    if readme_macros - header_macros:
        problems.append("README.md configuration table has macros the header's lacks: " +
                        ", ".join(sorted(readme_macros - header_macros)))

for path in sorted(glob.glob("examples/*.c")):
    if f"]({path})" not in readme:
        problems.append(f"README.md does not link {path}")
for path in sorted(set(re.findall(r"examples/[0-9A-Za-z_]+\.c", readme))):
    if not os.path.exists(path):
        problems.append(f"README.md names {path}, which does not exist")

if not re.search(r"^#+ At most 16 running overall", readme, re.M) or \
        "policy.global_max_running = 16;" not in readme:
    problems.append('README.md lacks the "At most 16 running overall" recipe (global_max_running = 16)')
if "global in-flight cap is not a running cap" not in readme:
    problems.append("README.md lacks the warning that the global cap counts waiting tasks")

for p in problems:
    print(p)
print("README check: " + ("ok" if not problems else "FAILED"))
sys.exit(1 if problems else 0)
