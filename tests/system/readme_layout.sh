#!/usr/bin/env bash
# README.md's layout is the repository's: every top-level folder and every
# folder under dataplane/ and control/ is named in the ```text block under
# "## Layout", and every folder named there exists. A line of that block
# that starts with a word ending in "/" names a folder: at the start of the
# line a top-level one, indented a folder inside the top-level one above it.
# Top-level folders are those git tracks files in (hidden ones and build
# folders are not the repository's layout; without git, those on disk).
#
#   bash tests/system/readme_layout.sh FABEMU_BINARY SOURCE_DIR
set -euo pipefail

src=${2:?usage: readme_layout.sh FABEMU_BINARY SOURCE_DIR}
python3 - "$src" <<'PY'
import os, re, subprocess, sys

src = sys.argv[1]
lines = open(os.path.join(src, "README.md")).read().split("\n")
try:
    start = lines.index("## Layout")
except ValueError:
    sys.exit("FAIL README.md has no '## Layout' section: put the layout back, as a ```text block")
i = start + 1
while i < len(lines) and not lines[i].startswith("```"):
    i += 1
if i == len(lines) or lines[i].strip() != "```text":
    sys.exit(f"FAIL README.md:{start + 1}: the layout is not a ```text block right under '## Layout'")
named, top = {}, None
i += 1
while i < len(lines) and lines[i].strip() != "```":
    m = re.match(r"( *)(\S+/)(\s|$)", lines[i])
    if m:
        if not m.group(1):
            top = m.group(2)
            named[top] = i + 1
        elif top:
            named[top + m.group(2)] = i + 1
    i += 1

fails = []
def fail(what):
    print("FAIL " + what)
    fails.append(what)

for path, line in sorted(named.items()):
    if not os.path.isdir(os.path.join(src, path)):
        fail(f"README.md:{line} names {path}, which does not exist: drop it or fix the name")

try:
    files = subprocess.run(["git", "-C", src, "ls-files"], check=True, capture_output=True,
                           text=True).stdout.split("\n")
    tops = {f.split("/")[0] + "/" for f in files if "/" in f}
except (OSError, subprocess.CalledProcessError):
    tops = {d + "/" for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))}
tops = {t for t in tops if not t.startswith(".") and not t.startswith("build")}
wanted = set(tops)
for parent in ("dataplane/", "control/"):
    wanted |= {parent + d + "/" for d in os.listdir(os.path.join(src, parent))
               if os.path.isdir(os.path.join(src, parent, d))}
for path in sorted(wanted - set(named)):
    fail(f"README.md's layout does not name {path}: add a line for it under '## Layout'")

print(f"{len(named)} folders named, {len(wanted)} required; {len(fails)} failures")
sys.exit(1 if fails else 0)
PY
