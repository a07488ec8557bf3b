#!/usr/bin/env bash
# Every command in README.md runs as written.
#
#   bash tests/system/readme_commands.sh FABEMU_BINARY SOURCE_DIR
#
# Takes each fenced block of README.md in order: a ```sh block is run as one
# bash script (set -e -o pipefail), so a block's commands may build on the
# ones before it (a capture, then tshark on it). Everything runs in a scratch
# folder that links the repository's folders (topologies/, pcap-tools/, ...),
# so that relative paths resolve as at the top of a checkout and outputs stay
# out of it; build/fabemu there is a wrapper around the binary under test that
# appends short windows to `run` and `sweep` (--set run.warmup_ns=5000 --set
# run.measure_ns=10000: a README command keeps its meaning, the test its
# pace) and records every exit status, so a failure in a background command
# fails the test too.
#
# An HTML comment right before a fence says what the test cannot do as
# written, and the block then runs in the closest form, its reason printed:
#   <!-- readme-test: file NAME -->  the block is a file: written to NAME
#   <!-- readme-test: setup ... -->  scripts/run.sh ARGS runs as
#       `fabemu run [topologies/t3e-4x4x4.yaml] ARGS` (no install, no build);
#       scripts/test.sh (the suite this test belongs to) must be what .ci/run calls
#   <!-- readme-test: root ... -->   each script's --help runs instead
#   <!-- readme-test: gui ... -->    wireshark runs as tshark
# Any other marker fails the test. Nothing is skipped without a line saying
# so. About 30 s.
set -euo pipefail

fabemu=${1:?usage: readme_commands.sh FABEMU_BINARY SOURCE_DIR}
src=${2:?usage: readme_commands.sh FABEMU_BINARY SOURCE_DIR}
fabemu=$(realpath "$fabemu")
src=$(realpath "$src")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for entry in "$src"/*; do
  name=$(basename "$entry")
  [[ $name == build* || $name == README.md ]] && continue
  ln -s "$entry" "$work/$name"
done
mkdir "$work/build"
cat >"$work/build/fabemu" <<EOF
#!/usr/bin/env bash
# fabemu under test, with short windows for run and sweep; logs each status.
case \${1:-} in
  run | sweep) "$fabemu" "\$@" --set run.warmup_ns=5000 --set run.measure_ns=10000 ;;
  *) "$fabemu" "\$@" ;;
esac
rc=\$?
printf '%s\t%s\n' "\$rc" "\$*" >>"$work/.statuses"
exit \$rc
EOF
chmod +x "$work/build/fabemu"
: >"$work/.statuses"

python3 - "$src/README.md" "$work" "$src" <<'PY'
import os, re, shlex, subprocess, sys

readme, work, src = sys.argv[1:]
lines = open(readme).read().split("\n")
fails = []


def fail(what):
    print("FAIL " + what)
    fails.append(what)


# The fenced blocks, each with the marker right before it, if any.
blocks = []
marker = None
i = 0
while i < len(lines):
    m = re.match(r"<!-- readme-test: (\w+)(.*?) -->$", lines[i].strip())
    if m:
        marker = (m.group(1), m.group(2).strip())
        i += 1
        continue
    f = re.match(r"```(\w*)$", lines[i].strip())
    if f:
        start = i + 1
        j = start
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        blocks.append((start, f.group(1), lines[start:j], marker))
        marker = None
        i = j + 1
        continue
    if lines[i].strip():
        marker = None  # a marker applies only to the fence right after it
    i += 1


def commands(body):
    """A block's commands, continuation lines joined."""
    out, cur = [], ""
    for line in body:
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
            continue
        cur += line
        if cur.strip() and not cur.strip().startswith("#"):
            out.append(cur.strip())
        cur = ""
    return out


def run(script, where):
    print(f"--- README.md:{where}\n{script}", flush=True)
    p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=work,
                       capture_output=True, text=True, timeout=900)
    out = (p.stdout + p.stderr).strip().split("\n")
    print("\n".join("    " + l for l in out[-12:]))
    if p.returncode != 0:
        fail(f"README.md:{where}: exit status {p.returncode}")


ran = 0
for start, lang, body, mark in blocks:
    where = start + 1
    kind, reason = mark if mark else (None, "")
    if kind == "file":
        path = os.path.join(work, reason)
        open(path, "w").write("\n".join(body) + "\n")
        print(f"--- README.md:{where}: written to {reason}")
        continue
    if lang not in ("sh", "bash"):
        if kind:
            fail(f"README.md:{where}: marker '{kind}' on a ```{lang} block")
        continue
    cmds = commands(body)
    if kind is None:
        run("\n".join(cmds), where)
        ran += len(cmds)
    elif kind == "setup":
        for c in cmds:
            words = shlex.split(c, comments=True)
            if words[0] == "scripts/run.sh":
                args = words[1:]
                if not args or args[0].startswith("-"):
                    args = ["topologies/t3e-4x4x4.yaml"] + args
                print(f"NOTE {c!r}: run as fabemu run (this test does not install or build)")
                run(shlex.join(["build/fabemu", "run"] + args), where)
                ran += 1
            elif words[0] == "scripts/test.sh":
                ci = open(os.path.join(src, ".ci", "run")).read()
                if "scripts/test.sh" in ci:
                    print(f"NOT RUN {c!r}: it runs the suite this test is part of; .ci/run calls it")
                else:
                    fail("README.md says .ci/run calls scripts/test.sh, but .ci/run does not")
            else:
                fail(f"README.md:{where}: setup block has {c!r}, which this test cannot map")
    elif kind == "root":
        for c in cmds:
            script = shlex.split(c, comments=True)[0]
            print(f"NOT RUN {c!r}: {reason}; running {script} --help")
            run(f"{script} --help >/dev/null", where)
    elif kind == "gui":
        for c in cmds:
            if not c.startswith("wireshark "):
                fail(f"README.md:{where}: gui block has {c!r}, not a wireshark command")
                continue
            print(f"NOTE {c!r}: run with tshark {reason}")
            run("tshark " + c[len("wireshark "):] + " >/dev/null", where)
            ran += 1
    else:
        fail(f"README.md:{where}: unknown marker '{kind}'")

for line in open(os.path.join(work, ".statuses")):
    rc, args = line.rstrip("\n").split("\t", 1)
    if rc != "0":
        fail(f"fabemu {args}: exit status {rc}")
if ran < 5:
    fail(f"only {ran} README commands found: did the fences change?")
print(f"{ran} README commands run; {len(fails)} failures")
sys.exit(1 if fails else 0)
PY
