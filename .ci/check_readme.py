#!/usr/bin/env python3
"""Check README.md, docs/guide.md and the manual at the top of groupconc.h against each other and
against the sources they quote (issue 27: one manual):

- README.md is at most 25,000 bytes and keeps its order: one sentence on what it is; the
  quick-start program (examples/01_quick_start.c after its opening comment, word for word; at
  most 25 lines of code); the command that builds and runs it and what it prints (both as the
  example's opening comment says); then the sections Features (at most 10 bullets), the demo and
  the tests, adding it to a project, Performance, Limitations, Documentation, License;
- it has the demo's and the tests' commands, exactly as .ci/run's demo and main sections run them,
  and shows docs/demo.svg and docs/cost_curves.svg;
- every examples/*.c is linked from docs/guide.md, and every examples/ file either names exists;
  every relative link of the two files points at a file that exists, and every #anchor of the
  guide at one of its headings;
- a reference to a section of the manual ("2. CONFIGURATION") names one that exists, by its number
  and name;
- the guide keeps the "at most 16 running overall" recipe (global_max_running = 16) and the warning
  that the global in-flight cap is not a running cap (issue 12, item 10; issue 15);
- nothing is stated twice: no sentence of 12 words or more appears in two of README.md,
  docs/guide.md and the manual (the top comment of groupconc.h). Sentences are compared after
  markdown and comment markup is dropped, case and punctuation ignored; code blocks do not count.
- the layers are named, never numbered (issue 25, item 1: global in-flight, bulkhead, concurrency,
  fleet, global running): no "layer 1", "layers 2 and 3", "layer-4" (case ignored, also broken
  across a line) in groupconc.h, extras/*.h, README.md, CONTRIBUTING.md, CHANGELOG.md, docs/*.md
  and the tests' sources and notes (tests/**/*.c, *.h, *.md); ALLOWED_LAYER_NUMBERS lists what
  must stay, with its reason.

Lines of code in the quick start: the lines after the opening comment that hold more than a
comment, a preprocessor directive or a lone brace."""
import glob
import os
import re
import sys

ROOT = os.getcwd()
README, GUIDE, HEADER = "README.md", "docs/guide.md", "groupconc.h"
DEMO_CMD = "cc -std=c11 -Wall -Wextra -pedantic -O2 -I. -o demo examples/02_multi_tenant.c -lpthread"
TEST_CMD = "meson setup build && meson test -C build"
MAX_BYTES, MAX_LOC, MAX_BULLETS, MIN_WORDS = 25000, 25, 10, 12
# The README's sections, in order (a regular expression per heading).
ORDER = [r"Features", r"demo", r"[Aa]dd it to", r"Performance", r"Limitations", r"Documentation", r"License"]

problems = []


def read(path):
    return open(path, encoding="utf-8").read()


readme, guide, header, example = read(README), read(GUIDE), read(HEADER), read("examples/01_quick_start.c")
manual = header.split("*/", 1)[0]


def fenced(text):
    """[(info, code)] of the fenced blocks, in order."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```([A-Za-z0-9_+-]*)\n(.*?)^```\s*$", text, re.M | re.S)]


def prose(text):
    """The text without its fenced blocks."""
    return re.sub(r"^```.*?^```\s*$", "", text, flags=re.M | re.S)


# ---- README: size, the first screen, the order -----------------------------------------------------

size = len(readme.encode("utf-8"))
if size > MAX_BYTES:
    problems.append("README.md is %d bytes, more than %d" % (size, MAX_BYTES))

opening, _, code = example.partition("*/\n")
blocks = fenced(readme)
if not blocks or blocks[0] != ("c", code):
    problems.append("README.md's first code block is not examples/01_quick_start.c after its opening comment, "
                    "word for word")
loc = [l for l in code.splitlines()
       if l.strip() and not re.match(r"\s*(/\*.*\*/|//.*|#.*|[{}]+;?)\s*$", l)]
if len(loc) > MAX_LOC:
    problems.append("examples/01_quick_start.c has %d lines of code, more than %d" % (len(loc), MAX_LOC))
m = re.search(r"Build and run from the repository root:\n\s+(.+)\n\s+It prints:\n((?:\s{7}.*\n)+)", opening)
if not m:
    problems.append("examples/01_quick_start.c's opening comment lacks 'Build and run ...' and 'It prints:'")
elif len(blocks) < 3 or blocks[1] != ("sh", m.group(1).strip() + "\n") or \
        blocks[2] != ("", "".join(l.strip() + "\n" for l in m.group(2).splitlines())):
    problems.append("README.md: the program is not followed by the command and the output that "
                    "examples/01_quick_start.c's opening comment gives")
first = prose(readme).split("\n## ", 1)[0]
intro = [p for p in re.split(r"\n\s*\n", first) if p.strip() and not p.startswith("#")]
if not intro or len(re.findall(r"[.!?](\s|$)", intro[0])) != 1 or readme.find(intro[0]) > readme.find("```c"):
    problems.append("README.md does not open with one sentence on what it is, before the program")

headings = [h for h in re.findall(r"^## (.+)$", readme, re.M)]
pos = []
for want in ORDER:
    i = next((n for n, h in enumerate(headings) if re.search(want, h)), None)
    if i is None:
        problems.append("README.md lacks a section /%s/" % want)
    pos.append(i)
if None not in pos and pos != sorted(pos):
    problems.append("README.md's sections are not in the order " + ", ".join(ORDER))
features = re.search(r"^## Features\n(.*?)(?=^## )", readme, re.M | re.S)
if features and len(re.findall(r"^- ", features.group(1), re.M)) > MAX_BULLETS:
    problems.append("README.md has more than %d feature bullets" % MAX_BULLETS)
for cmd in (DEMO_CMD, TEST_CMD):
    if cmd not in readme:
        problems.append("README.md lacks the command: " + cmd)
for pic in ("docs/demo.svg", "docs/cost_curves.svg"):
    if "](%s)" % pic not in readme:
        problems.append("README.md does not show " + pic)

# ---- links, examples, manual sections -----------------------------------------------------------


def slug(heading):
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-")


for path, text in ((README, readme), (GUIDE, guide)):
    base = os.path.dirname(path)
    anchors = {slug(h) for h in re.findall(r"^#+ (.+)$", prose(text), re.M)}
    for target in re.findall(r"\]\(([^)\s]+)\)", prose(text)):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        if file and not os.path.exists(os.path.normpath(os.path.join(base, file))):
            problems.append("%s links %s, which does not exist" % (path, target))
        if not file and anchor not in anchors:
            problems.append("%s links #%s, which is none of its headings" % (path, anchor))
    for name in sorted(set(re.findall(r"examples/[0-9A-Za-z_/]+\.c", text))):
        if not os.path.exists(name):
            problems.append("%s names %s, which does not exist" % (path, name))
for path in sorted(glob.glob("examples/*.c")):
    if "](../%s)" % path not in guide:
        problems.append("docs/guide.md does not link " + path)

sections = {int(n): name.strip() for n, name in re.findall(r"^   (\d+)\. ([A-Z][A-Z ]+[A-Z])", manual, re.M)}
if sorted(sections) != list(range(1, len(sections) + 1)) or len(sections) < 5:
    problems.append("groupconc.h: the manual's sections are not numbered 1, 2, 3, ...: %s" % sections)
for path, text in ((README, readme), (GUIDE, guide)):
    flat = re.sub(r"\s+", " ", prose(text))
    for n, name in re.findall(r"\b(\d+)\. ((?:[A-Z]{2,}\b ?)+)", flat):
        name = name.strip()
        known = sections.get(int(n), "")
        if not known or not (name == known or name.startswith(known + " ")):  # capitals may follow
            problems.append('%s refers to the manual\'s "%s. %s", which is not a section of it (%s)'
                            % (path, n, name, "; ".join("%d. %s" % kv for kv in sorted(sections.items()))))

if not re.search(r"^#+ At most 16 running overall", guide, re.M) or "policy.global_max_running = 16;" not in guide:
    problems.append('docs/guide.md lacks the "At most 16 running overall" recipe (global_max_running = 16)')
if "global in-flight cap is not a running cap" not in guide:
    problems.append("docs/guide.md lacks the warning that the global in-flight cap is not a running cap")

# ---- nothing stated twice -----------------------------------------------------------------------


def sentences(text, markdown):
    """Normalized sentences (lower-case words joined by one space) of MIN_WORDS words or more."""
    if markdown:
        text = prose(text)
        text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)   # links and images: their text
        text = re.sub(r"^\s*(#+|[-*]|\d+\.)\s", " ", text, flags=re.M)  # headings, list marks
        text = text.replace("|", ". ")                           # table cells end a sentence
    else:
        text = re.sub(r"^\s*(/\*|\*/|//)", " ", text, flags=re.M)
    text = re.sub(r"\s+", " ", text)
    out = set()
    for s in re.split(r"(?<=[.!?])\s+|\n", text):
        words = re.findall(r"[a-z0-9_]+", s.lower())
        if len(words) >= MIN_WORDS:
            out.add(" ".join(words))
    return out


docs = {README: sentences(readme, True), GUIDE: sentences(guide, True), "groupconc.h (manual)": sentences(manual, False)}
names = list(docs)
for i, a in enumerate(names):
    for b in names[i + 1:]:
        for s in sorted(docs[a] & docs[b]):
            problems.append('stated twice, in %s and in %s: "%s"' % (a, b, s))

# ---- named layers, no numbers (issue 25, item 1) ------------------------------------------------

# (path, the line's text that may keep a layer number, why). Empty: nothing needs one today.
ALLOWED_LAYER_NUMBERS = []
LAYER_NUMBER = re.compile(r"\blayers?(?:\s+|-)[0-4]\b", re.I)
LAYER_FILES = (["groupconc.h", README, "CONTRIBUTING.md", "CHANGELOG.md"] + glob.glob("extras/*.h") +
               glob.glob("docs/*.md") +
               [f for ext in ("c", "h", "md") for f in glob.glob("tests/**/*." + ext, recursive=True)])
for path in sorted(set(LAYER_FILES)):
    text = read(path)
    lines = text.splitlines()
    for m in LAYER_NUMBER.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if any(path == a and a_text in lines[line - 1] for a, a_text, _ in ALLOWED_LAYER_NUMBERS):
            continue
        problems.append('%s:%d: a layer by number ("%s"): name it (global in-flight, bulkhead, concurrency, '
                        'fleet, global running)' % (path, line, re.sub(r"\s+", " ", m.group(0))))

for p in problems:
    print(p)
print("README check: " + ("ok" if not problems else "FAILED") +
      " (README.md %d bytes, quick start %d lines of code)" % (size, len(loc)))
sys.exit(1 if problems else 0)
