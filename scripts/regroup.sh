#!/bin/sh
# regroup.sh: move the tree from one folder per floor at the top level to the
# grouped layout of docs/design.md ("Top-level layout"), rewriting every path
# that names a moved file.  Run from a clean work tree (everything committed);
# it changes the tree and stages the result, and commits nothing:
#
#     sh scripts/regroup.sh          # then: make ..., git commit
#
# The moves (old -> new; everything else stays where it is):
#     core par                      -> base/core base/par
#     report reproduce bench cmd    -> program/report ... program/cmd
#     include python examples       -> api/include api/python api/examples
#     scripts fuzz                  -> tools/scripts tools/fuzz
#     docs/results                  -> grids
#
# What it rewrites, in every tracked text file but the committed grids
# (docs/results/**, whose bytes are kept), fuzz/corpus/** and LICENSE:
#   - each quoted #include of a C or C++ file, from the file's old and new
#     place and its target's old and new place ("../core/err.h" in sampling/
#     becomes "../base/core/err.h", "../theory/study.h" in reproduce/ becomes
#     "../../theory/study.h");
#   - each markdown link target, from the document's old and new folder;
#   - each "../" path of a shell script, a Python file or the Makefile;
#   - each repository path that starts with a moved folder ("core/err.h",
#     "docs/results/REPORT.md", also after build/, build-*/, build/lib/ and
#     the Makefile's $(LIBDIR)/, $(SANDIR)/, $(FUZZDIR)/, $(FLOORDIR)/), but not
#     a Criterion test name that looks like one (reproduce/<test>);
#   - the Makefile's folder lists (MODULES, LIBMODULES, $(addsuffix /*.c,...));
#   - the folder names quoted alone in tests/test_extending.c and
#     tests/test_layers.c (their lists of folders);
#   - os.path.join(ROOT, "docs", "results", ...) and the like in Python files, -Iinclude, PYTHONPATH=python,
#     ./python, and $(dirname "$0")/.. of a moved shell script;
#   - .gitignore's /python/... lines;
# then a short list of one-off edits (PATCHES below: the Python files that
# count their way up to the root with ".."), each reported when it no longer
# matches.  It writes the README.md of each grouping folder.
#
# Already applied (base/core/ there, core/ gone): says so and exits 0.  A
# half-applied tree, a dirty work tree or no git: one line, exit 2.
set -u
cd "$(git rev-parse --show-toplevel 2>/dev/null)" || { echo "regroup: not inside a git work tree" >&2; exit 2; }

OLD="core par report reproduce bench cmd include python examples scripts fuzz docs/results"
old_there=0 new_there=0
for d in $OLD; do [ -d "$d" ] && old_there=$((old_there + 1)); done
for d in base/core base/par program/report program/reproduce program/bench program/cmd api/include api/python \
         api/examples tools/scripts tools/fuzz grids; do
    [ -e "$d" ] && new_there=$((new_there + 1))
done
if [ $old_there = 0 ] && [ $new_there -gt 0 ]; then
    echo "regroup: already applied (base/core/ exists, core/ does not): nothing to do"
    exit 0
fi
if [ $new_there -gt 0 ]; then
    echo "regroup: half applied: $old_there old folders and $new_there new ones are both here; start from a tree with only the old ones" >&2
    exit 2
fi
if [ $old_there != 12 ]; then
    echo "regroup: expected the 12 old folders ($OLD), found $old_there" >&2
    exit 2
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
    echo "regroup: the work tree has uncommitted changes: commit or stash them first" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "regroup: needs python3" >&2; exit 2; }

# 1. Rewrite the contents in place (paths still old), 2. move the folders.
python3 - <<'PYEOF' || { echo "regroup: rewriting failed; nothing moved (git checkout -- . restores the tree)" >&2; exit 1; }
import os, posixpath as pp, re, subprocess, sys

MOVES = [("docs/results", "grids"),
         ("core", "base/core"), ("par", "base/par"),
         ("report", "program/report"), ("reproduce", "program/reproduce"),
         ("bench", "program/bench"), ("cmd", "program/cmd"),
         ("include", "api/include"), ("python", "api/python"), ("examples", "api/examples"),
         ("scripts", "tools/scripts"), ("fuzz", "tools/fuzz")]
SKIP_PREFIX = ("docs/results/", "fuzz/corpus/", ".hypothesis/")
SKIP_FILES = {"LICENSE", "scripts/regroup.sh"}
BUILD_DIRS = {"build", "build-san", "build-fuzz", "build-floor"}

def move(path):
    """The new place of a repository path (old -> new)."""
    for old, new in MOVES:
        if path == old or path.startswith(old + "/"):
            return new + path[len(old):]
    return path

files = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout.decode().split("\0")
files = [f for f in files if f]
tops = {f.split("/")[0] for f in files} | BUILD_DIRS

# Criterion tests, "suite/name", and suites: a span like reproduce/<test> is a test, not a path.
tests, suites = set(), set()
for f in files:
    if f.startswith("tests/") and f.endswith(".c"):
        for m in re.finditer(r"\bTest\(\s*(\w+)\s*,\s*(\w+)", open(f, errors="replace").read()):
            tests.add(m.group(1) + "/" + m.group(2)); suites.add(m.group(1))

NAMES = "|".join(re.escape(o) for o, _ in MOVES)
# A path that starts with a moved folder: not inside another path or word; the
# build trees' mirrors of the source folders count as such a start too.
BARE = re.compile(r"(?:(?<![\w.\-/~$@])|(?<=:-))((?:build(?:-\w+)?/(?:lib/)?|\$\((?:LIBDIR|SANDIR|FUZZDIR|FLOORDIR)\)/)?)"
                  r"(" + NAMES + r")(?=/|(?<=docs/results)(?![\w.\-]))([\w.\-/*{},%]*)( {2,})?")
UP = re.compile(r"(?<![\w.])((?:\.\./)+)([\w.\-/*{}%]*)")

def is_test(span):
    s = span.rstrip(".,;:")
    if s.count("/") != 1 or "." in s:
        return False
    suite, name = s.split("/")
    return s in tests or (name == "*" and suite in suites)

def bare(text, align=False):
    """align: a column of spaces after a lengthened path gives up what the path
    gained (at least two stay), as in a markdown table indented as code."""
    def sub(m):
        pre, name, rest = m.group(1), m.group(2), m.group(3)
        if not pre and is_test(name + rest):
            return m.group(0)
        gap = m.group(4) or ""
        if align and len(gap) >= 2:
            gap = " " * max(2, len(gap) - (len(move(name)) - len(name)))
        return pre + move(name) + rest + gap
    return BARE.sub(sub, text)

def relative(tok, olddir, newdir, need_top=True):
    """A path relative to a file's folder, for the file's new folder and the target's new place."""
    target = pp.normpath(pp.join(olddir, tok)) if olddir else pp.normpath(tok)
    if target.startswith("../") or target == "..":
        return tok
    if need_top and target.split("/")[0] not in tops:
        return tok
    new = pp.relpath(move(target), newdir or ".")
    if tok.endswith("/") and not new.endswith("/"):
        new += "/"
    if tok.startswith("./") and not new.startswith("."):
        new = "./" + new
    return tok if move(target) == target and olddir == newdir else new

def ups(text, olddir, newdir):
    return UP.sub(lambda m: relative(m.group(1) + m.group(2), olddir, newdir), text)

INCLUDE = re.compile(r'^(\s*#\s*include\s*")([^"]+)(")', re.M)
LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s#]+)")

def markdown(text, olddir, newdir):
    """Link targets relative to the document; a link's text that repeats its
    target names the target's new place from the root; the rest through bare()."""
    out, last = [], 0
    for m in LINK.finditer(text):
        out.append(bare(text[last:m.start(1)], align=True))
        label, tok = m.group(1), m.group(2)
        if re.match(r"^[a-z]+:", tok) or tok.startswith("/"):
            new = tok
        else:
            new = relative(tok, olddir, newdir)
        if label == tok and new != tok:
            label = move(pp.normpath(pp.join(olddir, tok)))
        else:
            label = bare(label)
        out.append(label + "](" + new)
        last = m.end(2)
    out.append(bare(text[last:], align=True))
    return "".join(out)

def word_list(words):
    return re.sub(r"[\w/]+", lambda w: move(w.group(0)), words)

def makefile(text):
    text = re.sub(r"^(\s*(?:LIB)?MODULES\s*:=)(.*)$", lambda m: m.group(1) + word_list(m.group(2)), text, flags=re.M)
    text = re.sub(r"(\$\(addsuffix /\*\.cc?,)([^)]*)\)", lambda m: m.group(1) + word_list(m.group(2)) + ")", text)
    return text

# A run of three or more top-level folder names in a test's command line
# ("find core sampling theory ...", "grep -r ... experiments reproduce report cmd").
TOPS_OLD = sorted({f.split("/")[0] for f in files if "/" in f} - {".ci", ".hypothesis"}, key=len, reverse=True)
WORD = r"(?:" + "|".join(re.escape(t) for t in TOPS_OLD) + r")"
RUN = re.compile(r"(?<![\w/.\-])" + WORD + r"(?: " + WORD + r"){2,}(?![\w/.\-])")

def runs(text):
    return RUN.sub(lambda m: " ".join(move(w) for w in m.group(0).split(" ")), text)

QUOTED = re.compile(r'"(' + NAMES + r')"')

def python_paths(text):
    """os.path.join(ROOT, "docs", "results", "x.tsv") -> os.path.join(ROOT, "grids", "x.tsv")."""
    def sub(m):
        parts = re.findall(r'"([^"]*)"', m.group(2))
        new = move("/".join(parts)).split("/")
        return m.group(1) + "".join(', "%s"' % c for c in new)
    return re.sub(r'(os\.path\.join\(\s*ROOT)((?:,\s*"[^"]*")+)', sub, text)

def general(text):
    text = re.sub(r"(?<![\w])(-I ?)(" + NAMES + r")(?![\w.\-])", lambda m: m.group(1) + move(m.group(2)), text)
    text = re.sub(r"(PYTHONPATH=(?:\$\w+/|\$\(pwd\)/|\$PWD/)?)python(?![\w/])", r"\1api/python", text)
    text = re.sub(r"(?<![\w.])\./(" + NAMES + r")(?![\w.\-])", lambda m: "./" + move(m.group(1)), text)
    return text

def dirname0(text, olddir, newdir):
    od, nd = olddir.count("/") + 1 if olddir else 0, newdir.count("/") + 1 if newdir else 0
    def sub(m):
        n = m.group(2).count("..")
        return m.group(1) + "/.." * (nd if n == od else n)
    return re.sub(r'(\$\(dirname "\$0"\))((?:/\.\.)+)(?![\w.])', sub, text)

changed = 0
for f in files:
    if f in SKIP_FILES or f.startswith(SKIP_PREFIX) or not os.path.isfile(f) or os.path.islink(f):
        continue
    raw = open(f, "rb").read()
    if b"\0" in raw:
        continue
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        continue
    new = move(f)
    olddir, newdir = pp.dirname(f), pp.dirname(new)
    t = text
    if f.endswith((".c", ".h", ".cc")):
        t = INCLUDE.sub(lambda m: m.group(1) + relative(m.group(2), olddir, newdir, need_top=False) + m.group(3), t)
        if f.startswith("tests/"):
            t = runs(t)
        if f in ("tests/test_extending.c", "tests/test_layers.c"):
            t = QUOTED.sub(lambda m: '"%s"' % move(m.group(1)), t)
        t = bare(t)
    elif f.endswith(".md"):
        t = markdown(t, olddir, newdir)
    elif f == ".gitignore":
        t = re.sub(r"^/(" + NAMES + r")/", lambda m: "/" + move(m.group(1)) + "/", t, flags=re.M)
    else:
        if f.endswith((".sh", ".py")) or f == "Makefile" or f.startswith(".ci/"):
            t = ups(t, olddir, newdir)
        if f == "Makefile":
            t = makefile(t)
        if f.endswith(".py"):
            t = python_paths(t)
        if f.endswith(".sh"):
            t = dirname0(t, olddir, newdir)
        t = bare(t)
    t = general(t)
    if t != text:
        open(f, "w").write(t)
        changed += 1

# One-off edits: (file at its old place, old text, new text).
PATCHES = [
    ("python/routelab/_lib.py", 'os.path.join(here, "..", "..", "build", "libroutelab.so")',
     'os.path.join(here, "..", "..", "..", "build", "libroutelab.so")'),
    ("python/tests/conftest.py", 'os.path.dirname(os.path.abspath(__file__)), "..", ".."))',
     'os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))'),
    ("python/setup.py", "ROOT = os.path.dirname(HERE)", "ROOT = os.path.dirname(os.path.dirname(HERE))"),
    ("tests/test_extending.c", '"tools/scripts" };', '"tools/scripts", "base", "program", "api", "tools" };'),
    ("tests/test_docs.c", '"](grids/theory/theory.md)", 32)', '"](grids/theory/theory.md)", 25)'),
    ("tests/test_docs.c", '"#include \\"../include/routelab/bounds.h\\""',
     '"#include \\"../api/include/routelab/bounds.h\\""'),
]
missed = []
for f, old, newtext in PATCHES:
    t = open(f).read() if os.path.isfile(f) else ""
    if old in t:
        open(f, "w").write(t.replace(old, newtext, 1))
    else:
        missed.append("%s: %s" % (f, old))
print("regroup: rewrote %d files" % changed)
for m in missed:
    print("regroup: NOT APPLIED (edit by hand): %s" % m)
PYEOF

for pair in core:base/core par:base/par report:program/report reproduce:program/reproduce bench:program/bench \
            cmd:program/cmd include:api/include python:api/python examples:api/examples scripts:tools/scripts \
            fuzz:tools/fuzz docs/results:grids; do
    from=${pair%%:*} to=${pair#*:}
    mkdir -p "$(dirname "$to")"
    git mv "$from" "$to" || { echo "regroup: git mv $from $to failed" >&2; exit 1; }
done

# 3. The README.md of each grouping folder (what lives here, which floor).
cat >base/README.md <<'EOF'
# base/

**Floor.** The two lowest floors above `api/include/`: `base/core/`, the ground floor, and
`base/par/`, the MPI floor directly above it. Every other floor stands on them and they include
nothing above them (NOTES.md §0.1; `docs/design.md`; `sh tools/scripts/check_layers.sh`).

## What lives here

- `base/core/`: errors (`base/core/err.h`: `rl_status`, `rl_err`), flag tables, token files,
  statistics, random-stream domains, output files written by rename, locks, memory checks, and
  `base/core/job.h`: what a floor asks of the job (which rank writes, how a failure stops it).
  It includes only `api/include/`.
- `base/par/`: the one folder that includes `<mpi.h>` (compiled with `mpicc`; in the library with
  `-DRL_NO_MPI`, a job of one). It answers `base/core/job.h` once `main` installs it.

Both are library floors: they return an `rl_status` and never end the process.

## How to add

A module of either floor: the floor's own README.md (`base/core/README.md`, `base/par/README.md`).
A floor belongs here only if it lies below every floor outside this folder; it then needs its row
in `allowed()` of `tools/scripts/check_layers.sh`, its folder in the Makefile's `MODULES` and
`LIBMODULES`, and its README.md.
EOF
cat >program/README.md <<'EOF'
# program/

**Floor.** The program's upper floors, above the library (`base/`, `sampling/`, `theory/`, `mc/`,
`model/`) and the claims (`experiments/`): nothing here is in `make lib` (NOTES.md §0.1;
`docs/design.md`).

## What lives here

- `program/report/`: markdown, verdicts, TSV files and figures (it includes only `base/core/`, so
  every floor that writes a table may use it);
- `program/bench/`: the speed kernels of `routelab bench` (it returns an `rl_status`, like a
  library floor);
- `program/reproduce/`: the grids: presets (`program/reproduce/preset.c`), stages, orderings,
  findings and the grid's report;
- `program/cmd/`: the command layer, `main` (`program/cmd/routelab.c`) and one file per
  subcommand: the one floor that turns a failure into one line and an exit status (2: a bad
  input, 1: an internal failure).

## How to add

A subcommand, a benchmark, a preset or a figure: the README.md of its floor here
(`program/cmd/README.md`, `program/bench/README.md`, `program/reproduce/README.md`,
`program/report/README.md`) and `docs/extending.md`.
EOF
cat >api/README.md <<'EOF'
# api/

**Floor.** The library's interfaces: `api/include/` is the lowest floor of the tree (every floor
may include it, it includes only itself), and `api/examples/` and `api/python/` stand outside
the floors, on what `api/include/routelab/` declares (NOTES.md §0.1, §18.1; `docs/design.md`).

## What lives here

- `api/include/`: the public C headers (`api/include/routelab/*.h`), installed as
  `<routelab/...>`.
- `api/python/`: the Python package (ctypes over `libroutelab.so`): `pip install ./api/python`.
- `api/examples/`: C programs on the installed library alone (`make install`, then
  `pkg-config routelab`; `sh tools/scripts/example_check.sh`).

## How to add

A public call: `api/include/README.md` and the library checklist of `docs/extending.md` (the call
is exported only if a header here declares it: `tools/scripts/lib_exports.sh`). Its Python face:
`api/python/README.md`. An example: `api/examples/README.md`.
EOF
cat >tools/README.md <<'EOF'
# tools/

**Floor.** None: the maintainer's tools. No floor includes anything here, and the fuzz targets
include the floors as the tests do (NOTES.md §0.1; `docs/design.md`).

## What lives here

- `tools/scripts/`: the checks that `make` and the tests run (`tools/scripts/check_layers.sh`,
  `tools/scripts/reach_check.py`, `tools/scripts/lib_exports.sh`), the machine's setup
  (`tools/scripts/setup.sh`), the scripts that compare, time or re-check grids, and
  `tools/scripts/regroup.sh`, which made the grouped layout.
- `tools/fuzz/`: the libFuzzer targets over the library floors, their seed corpora and the
  sanitizer wrappers (`make fuzz`, `make sanitize`).

## How to add

A script: `tools/scripts/README.md`. A fuzz target: `tools/fuzz/README.md`.
EOF
git add -u && git add base/README.md program/README.md api/README.md tools/README.md
echo "regroup: done; review with git status, then build and test (docs/design.md)"
