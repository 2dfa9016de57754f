#!/usr/bin/python3
"""cite_anchors.py [--check] [FILE...]: code cites the docs by named anchors.

The code's comments, docstrings and help texts once cited the notebook by
section number ("NOTES.md §11.2"); a renumbering of NOTES.md then rewrote
code.  Each such citation names a docs file and a stable anchor instead,
"docs/grids/design.md#presets": an HTML anchor line <a id="presets"></a>
just before the heading (or equation) in that file, which GitHub links to
and which survives any change of the heading's words or number.  SECTIONS
below is the one table of section number -> anchor.

Without FILE, every tracked file but markdown (NOTES.md, docs/**.md, the
READMEs keep citing sections by number) and the committed grids/ is
read; each citation is rewritten in place from the text alone, so the script
can run again on a tree that others have edited since (a rewritten citation
is no section number any more: a second run changes nothing).  The forms
read:

  NOTES.md §11.2    NOTES §11.2    §11.2 of NOTES.md    NOTES.md section 8.7
  NOTES.md §11.2, §11.4 (each section sign of a list is one citation)
  NOTES.md sections 6-8, §6–§8, §11.2–11.4 (a range: each section in it)
  NOTES.md at a line's end and §11.2 on the next (the citation moves up a line)
  a bare §11.2 (the code's section signs all cite NOTES.md) but after a
  book's name (EXTERNAL: "Higham §3.1", "2nd ed., §3.1") or alone in
  double quotes (the form shown, as in a comment about the docs' citations)

--check rewrites nothing: it lists every section citation left (the one it
would write, or that none maps) and exits 1 when there is one, 0 when none.
Without it, the script rewrites what SECTIONS maps, lists what it cannot
map and exits 1 when there is such a citation.  Bad arguments: one line,
exit 2.  A section that code newly cites gets its anchor in the docs file
(an <a id> line before the heading, a name unique in the file) and its row
here; test docs/code_citations_resolve checks both ends.
"""
import os
import re
import subprocess
import sys

# Section of NOTES.md -> the docs file and anchor that hold its full text.
# A section cited only as a whole claim or chapter (§17) points at the
# chapter's first heading.  Sections 0.2-0.4 live in NOTES.md alone.
SECTIONS = {
    "0.1": "docs/layout.md#layout",
    "0.3": "NOTES.md#theory-report",
    "1": "docs/theory/claim1-mixing.md#claim-mixing",
    "1.1": "docs/theory/claim1-mixing.md#mixing-window",
    "1.2": "docs/theory/claim1-mixing.md#mixing-experiment",
    "1.5": "docs/theory/claim1-mixing.md#mix-or-stay",
    "2": "docs/theory/claim2-concentration.md#claim-concentration",
    "2.1": "docs/theory/claim2-concentration.md#concentration-closed-forms",
    "2.3": "docs/theory/claim2-concentration.md#score-gap",
    "2.3.2": "docs/theory/claim2-concentration.md#score-gap-predictions",
    "2.4": "docs/theory/claim2-concentration.md#second-moment",
    "3": "docs/theory/claim3-farmass.md#claim-far-mass",
    "3.1": "docs/theory/claim3-farmass.md#far-mass-closed-forms",
    "3.2": "docs/theory/claim3-farmass.md#far-mass-design",
    "3.8": "docs/theory/claim3-farmass.md#far-mass-three-forms",
    "4": "docs/theory/claim4-values.md#claim-values",
    "4.1": "docs/theory/claim4-values.md#value-transport",
    "5": "docs/theory/claim5-stylized.md#claim-stylized",
    "5.1": "docs/theory/claim5-stylized.md#stylized-model",
    "6": "docs/model/transformer.md#cpu-transformer",
    "6.5": "docs/model/transformer.md#scheme-object",
    "7": "docs/model/schemes.md#accumulated-rotation",
    "7.6": "docs/model/schemes.md#probe",
    "7.7": "docs/model/schemes.md#pemb-author",
    "8": "docs/model/path.md#path-attention",
    "8.4": "docs/model/path.md#path-accuracy",
    "8.5": "docs/model/path.md#path-speed",
    "8.7": "docs/model/path.md#path-integration",
    "8.7.7": "docs/model/path.md#path-flops",
    "8.9": "docs/model/path-transport.md#path-mix-or-stay",
    "8.10": "docs/model/path-transport.md#random-hh",
    "9": "docs/protocol.md#evaluation-protocol",
    "9.1": "docs/protocol.md#spans-token-pairing",
    "9.3": "docs/protocol.md#sampled-windows",
    "10": "docs/protocol.md#verdict-rules",
    "10.1": "docs/protocol.md#verdict-kinds",
    "10.1.2": "docs/verdicts.md#window-rule-changes",
    "10.5": "docs/verdicts.md#numerics",
    "11": "docs/grids/design.md#study-grid",
    "11.1": "docs/grids/design.md#grid-design",
    "11.2": "docs/grids/design.md#presets",
    "11.5": "docs/grids/design.md#bpe",
    "11.6": "docs/grids/design.md#mixing-matched-scale",
    "11.7": "docs/grids/design.md#grid-wiring",
    "11.9": "docs/grids/bpe-and-phenomena.md#cpu-grid-bpe",
    "11.11": "docs/grids/bpe-and-phenomena.md#phenomena-grid",
    "11.12": "docs/grids/bpe-and-phenomena.md#pilot",
    "11.13": "docs/grids/bpe-and-phenomena.md#headline",
    "11.15": "docs/grids/vtraj-and-reruns.md#vtraj",
    "11.16": "docs/grids/vtraj-and-reruns.md#cpu-grid-second-run",
    "11.17": "docs/grids/vtraj-and-reruns.md#bpe-grid-rerun",
    "12": "docs/mpi.md#mpi",
    "12.1": "docs/mpi.md#mpi-layer",
    "12.3": "docs/mpi.md#mc-across-ranks",
    "12.9": "docs/mpi.md#slurm",
    "13": "docs/hardening.md#hardening",
    "14": "docs/sampling.md#sampling",
    "14.2": "docs/sampling.md#haar",
    "14.3": "docs/sampling.md#step-families",
    "14.4": "docs/sampling.md#mc-sweep",
    "15": "docs/build-and-tests.md#build-tests-benchmarks",
    "15.4": "docs/log/timings.md#timings",
    "16": "docs/speed/eval-and-training.md#speed",
    "16.1": "docs/speed/eval-and-training.md#long-eval-speed",
    "16.3": "docs/speed/eval-and-training.md#omp-passive-wait",
    "16.5": "docs/speed/eval-and-training.md#same-bytes-faster",
    "16.6": "docs/speed/eval-and-training.md#fused-elementwise",
    "16.7": "docs/speed/reproduction-and-pruning.md#reproduction-across-builds",
    "16.8": "docs/speed/reproduction-and-pruning.md#pruned-attention",
    "16.9": "docs/speed/reproduction-and-pruning.md#cheaper-exp",
    "16.11": "docs/speed/reproduction-and-pruning.md#grid-agree",
    "16.12": "docs/speed/kernels.md#packed-keys",
    "16.13": "docs/speed/kernels.md#training-attention-kernels",
    "17": "docs/theory/farpred.md#far-mass-prediction",
    "17.1": "docs/theory/farpred.md#farpred-derivation",
    "17.4": "docs/theory/farpred.md#farpred-committed-grid",
    "17.5": "docs/theory/farpred.md#route-form",
    "17.6": "docs/theory/farpred.md#farpred-comparisons",
    "17.7": "docs/theory/farpred.md#mix-or-stay-rank-rule",
    "18": "docs/library.md#library",
    "18.1": "docs/library.md#library-abi",
    "18.2": "docs/library.md#library-splits",
    "18.3": "docs/library.md#family-surface",
    "18.4": "docs/library.md#pkg-config",
    "18.6": "docs/library.md#model-mc-api",
    "18.9": "docs/library-robustness.md#closed-forms-never-exit",
    "18.10": "docs/library-robustness.md#c-install",
    "18.11": "docs/library-robustness.md#python-install",
    "18.12": "docs/library-robustness.md#python-api-docs",
    "18.13": "docs/library-robustness.md#ctrl-c",
    "18.14": "docs/library-robustness.md#property-suite",
    "18.16": "docs/library-robustness.md#out-of-memory",
    "19": "docs/grids/seed-question.md#seed-question",
    "19.1": "docs/grids/seed-question.md#mechanism-factorial",
    "19.2": "docs/grids/seed-question.md#mechanism-orderings",
    "19.3": "docs/grids/seed-question.md#power-seeds",
    "19.4": "docs/grids/seed-question.md#findings",
    "19.5": "docs/grids/seed-question.md#mechanism-grid",
    "19.6": "docs/grids/seed-question.md#matched-mixing-algebra",
    "20": "docs/robustness.md#nothing-lost",
}

# A section sign right after these names another work's section.
EXTERNAL = re.compile(r"(?:\bHigham|\bed\.,)[ \t]*$")

NUM = r"\d+(?:\.\d+)*"
# One citation: a section sign and its number, or a range of them; or
# "NOTES.md section(s) N[-M]".
CITE = re.compile(
    r"§[ \t]?(?P<a>" + NUM + r")(?:[ \t]?[–-][ \t]?§?(?P<b>" + NUM + r"))?"
    r"|\bNOTES(?:\.md)?[ \t]+sections?[ \t]+(?P<c>" + NUM + r")(?:[ \t]?[–-][ \t]?(?P<d>" + NUM + r"))?"
)
# "NOTES.md " just before a citation, on its line or at the end of the line
# above (then the continuation's comment marker stays).
BEFORE = re.compile(r"(?P<paren>[ \t]?\()?\bNOTES(?:\.md)?(?P<gap>[ \t]*,?[ \t]*|[ \t]*\n[ \t]*(?:\*|#|//)?[ \t]*)$")
AFTER = re.compile(r"[ \t]+of[ \t]+(?:the[ \t]+)?NOTES(?:\.md)?\b")
SKIP_DIRS = ("grids/",)
# A comment line that a citation made longer than WIDTH columns is broken
# at its spaces onto lines of its own kind (the rest of the paragraph stays
# as it was); a "/* ---- title ---- */" banner loses its padding instead.
# Code and string literals are never broken.
WIDTH = 100
COMMENT = re.compile(r"^([ \t]*)(/\*|\*|//|#)([ \t]+)")
BANNER = re.compile(r"^(/\* -{4} .*?) -{5,}( \*/)$")


def expand(a, b):
    """The sections of a range a..b: the last number runs, the rest is a's
    ("11.2", "11.4" -> 11.2, 11.3, 11.4; "6", "8" -> 6, 7, 8)."""
    if b is None:
        return [a]
    pa, pb = a.split("."), b.split(".")
    if len(pb) < len(pa):
        pb = pa[: len(pa) - len(pb)] + pb
    if pa[:-1] != pb[:-1] or int(pb[-1]) < int(pa[-1]):
        return [a, b]  # no plain range: both ends, each checked
    return [".".join(pa[:-1] + [str(i)]) for i in range(int(pa[-1]), int(pb[-1]) + 1)]


def rewrite(text):
    """(new text, [(offset, cited text, target or None)]) of one file's text."""
    edits, found = [], []
    for m in CITE.finditer(text):
        if m.group("a") and EXTERNAL.search(text[max(0, m.start() - 16) : m.start()]):
            continue
        if text[m.start() - 1 : m.start()] == '"' == text[m.end() : m.end() + 1]:
            continue  # "§14.3" in quotes: the form shown, no citation
        secs = expand(m.group("a"), m.group("b")) if m.group("a") else expand(m.group("c"), m.group("d"))
        targets = [SECTIONS.get(s) for s in secs]
        if None in targets:
            found.append((m.start(), m.group(0), None))
            continue
        new = ", ".join(dict.fromkeys(targets))
        found.append((m.start(), m.group(0), new))
        start, end = m.start(), m.end()
        if m.group("a"):
            b = BEFORE.search(text, max(0, start - 200), start)
            if b and b.end() == start:
                if "\n" in b.group("gap"):  # "(NOTES.md" ends the line above: the "(" moves down
                    head = text[: b.start()].rstrip(" \t")
                    edits.append((len(head), b.start("gap") + b.group("gap").index("\n"), ""))
                    new = ("(" if b.group("paren") else "") + new
                else:
                    start = b.start() + len(b.group("paren") or "")
            a = AFTER.match(text, end)
            if a:
                end = a.end()
        edits.append((start, end, new))
    old = set(text.split("\n"))
    for s, e, r in sorted(edits, reverse=True):
        text = text[:s] + r + text[e:]
    return wrap(text, old, targets_in(found)), found


def targets_in(found):
    return {t for _, _, target in found if target for t in target.lstrip("(").split(", ")}


def wrap(text, old, targets):
    """Break the comment lines of text that are new (not in old), longer
    than WIDTH and hold a target; what passes WIDTH joins the next line when
    that continues the same paragraph (same prefix, plain words), and so on
    down until it fits.  A python docstring's lines count as comments (their
    indent is the prefix)."""
    lines, out, quotes, i = text.split("\n"), [], 0, 0
    while i < len(lines):
        line = lines[i]
        i += 1
        inside = quotes % 2 == 1  # within a triple-quoted string
        quotes += line.count('"""')
        if len(line) <= WIDTH or line in old or not any(t in line for t in targets):
            out.append(line)
            continue
        b = BANNER.match(line)
        if b:
            out.append(b.group(1) + " ----" + b.group(2))
            continue
        m = COMMENT.match(line)
        lead = len(line) - len(line.lstrip())
        if m and not (inside and m.group(2) != "#"):
            first = len(m.group(0))
            cont = m.group(1) + (" * " if m.group(2) == "/*" else m.group(2) + m.group(3))
        elif inside or line.lstrip().startswith('"""'):
            first, cont = lead + (3 if line.lstrip().startswith('"""') else 0), line[:lead]
        else:
            out.append(line)
            continue
        while len(line) > WIDTH:
            cut = line.rfind(" ", first + 1, WIDTH + 1)
            if cut < 0:
                cut = line.find(" ", WIDTH + 1)
            if cut > first and line[cut:].strip() in ("*/", '"""'):  # a closer goes with its last word
                cut = line.rfind(" ", first + 1, cut)
            if cut < 0 or not line[cut:].strip():
                break
            out.append(line[:cut].rstrip())
            rest = line[cut:].strip()
            if i < len(lines) and '"""' not in rest and "*/" not in rest and continues(lines[i], cont):
                nxt = lines[i][len(cont) :]
                quotes += lines[i].count('"""')
                i += 1
                rest += ("  " if rest[-1] in ".?!" else " ") + nxt
            line, first = cont + rest, len(cont)
        out.append(line)
    return "\n".join(out)


def continues(line, cont):
    """Whether line goes on with the paragraph of a comment whose lines
    start with cont: plain words, no list item, table or aligned formula."""
    body = line[len(cont) :]
    return (
        line.startswith(cont)
        and body[:1] not in ("", " ", "\t", "-", "|", "*", "/", ">", '"')
        and ('"""' not in body or body.count('"""') == 1 and body.rstrip().endswith('"""'))
        and not re.match(r"\d+[.)] |[A-Z][a-z]+\n?$", body)
        and "   " not in body
    )


def tracked():
    """The tracked files the script reads: not markdown, not grids/
    (main skips this script itself: its text shows the forms)."""
    out = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout
    return [f for f in out.decode().split("\0") if f and not f.endswith(".md") and not f.startswith(SKIP_DIRS)
            and os.path.isfile(f)]


def line_of(text, off):
    return text.count("\n", 0, off) + 1


def main(argv):
    args = argv[1:]
    check = bool(args) and args[0] == "--check"
    files = args[1:] if check else args
    for f in files:
        if f.startswith("-"):
            sys.stderr.write("cite_anchors.py: unknown flag %s (usage: cite_anchors.py [--check] [FILE...])\n" % f)
            return 2
        if not os.path.isfile(f):
            sys.stderr.write("cite_anchors.py: %s: not a regular file (usage: cite_anchors.py [--check] [FILE...])\n" % f)
            return 2
    if not files:
        if not os.path.isdir(".git") and not os.path.isfile(".git"):
            sys.stderr.write("cite_anchors.py: run from the repository root (no .git here)\n")
            return 2
        files = tracked()
    left = rewritten = changed = 0
    me = os.path.abspath(__file__)
    for f in files:
        if os.path.abspath(f) == me:
            continue
        with open(f, "rb") as fh:
            raw = fh.read()
        if b"\0" in raw or "§".encode() not in raw and b"NOTES" not in raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        new, found = rewrite(text)
        for off, cited, target in found:
            if target is None or check:
                left += 1
                print("%s:%d: %s -> %s" % (f, line_of(text, off), cited, target or "no anchor maps it"))
            else:
                rewritten += 1
        if not check and new != text:
            changed += 1
            with open(f, "w", encoding="utf-8", newline="") as fh:
                fh.write(new)
    if check:
        print("%d section citations left" % left)
    else:
        print("%d citations rewritten in %d files; %d left that no anchor maps" % (rewritten, changed, left))
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
