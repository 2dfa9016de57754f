"""reach_check.py LIBDIR HEADER...: no public entry point of libroutelab can
reach a call that ends the process (docs/library-robustness.md#out-of-memory).

The library's promise (api/include/routelab/err.h) is that a call returns a
status and never exits, aborts or hangs its caller.  This check reads the
call graphs GCC writes beside each library object (-fcallgraph-info, the .ci
files under LIBDIR) and walks them from every function the public headers
declare.  A path that reaches one of the enders below is printed with the
call chain that leads to it, and the exit status is 1.

Edges the graph files do not show, and how they are added:
  * OpenMP bodies: GCC outlines `#pragma omp parallel` into X._omp_fn.N and
    calls it through libgomp; X reaches each of its X._omp_fn.N.
  * Calls through a pointer (__indirect_call: the family and scheme
    registries, callbacks): they reach every function whose address the
    library takes, read from the objects' relocations (readelf -r: a
    reference that is not a call, R_X86_64_PLT32).  This over-approximates
    (every pointer call may reach every such function), which can only make
    the check stricter.

Usage: python3 tools/scripts/reach_check.py build/lib api/include/routelab/*.h
"""

import collections
import glob
import os
import re
import subprocess
import sys

# What ends the process: the command layer's exits and the allocators that
# exit when memory runs out (base/core/util.h: rl_alloc is the library's form).
ENDERS = {
    "exit", "_exit", "abort", "quick_exit", "rl_fatal", "rl_die", "rl_err_exit",
    "rl_exit_line", "rl_exit_linev", "rl_check", "rl_check_in", "rl_job_exit",
    "rl_xmalloc", "rl_xcalloc", "rl_xrealloc", "rl_path_join", "assert",
    "__assert_fail", "gsl_error",
}

# The job's hooks (base/core/job.h): the command layer installs MPI's answers
# (base/par/par.c) in a table that only these wrappers call; each reaches its own
# hook, not every pointer target.
HOOKS = {
    "rl_job_rank": "rl_par_rank", "rl_job_size": "rl_par_size",
    "rl_job_local_size": "rl_par_local_size", "rl_job_same": "rl_par_same",
    "rl_job_exit": "rl_par_exit",
}

NODE = re.compile(r'node: \{ title: "([^"]+)" label: "[^"\\]*\\n([^"]+)"( shape)?')
EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"(?: label: "([^"]+)")?')


def public_functions(headers):
    decl = re.compile(r"^[A-Za-z][^#(]*[ *]((?:rl|routelab)_[a-z0-9_]+)\(")
    names = set()
    for h in headers:
        for line in open(h):
            if line.startswith("typedef"):
                continue
            m = decl.match(line)
            if m:
                names.add(m.group(1))
    return names


def address_taken(libdir):
    """Functions whose address some object takes (relocations other than
    calls), by plain name.  A file-local function is named in a relocation
    by its section and offset (".text + 180"): the symbol table maps it."""
    taken = set()
    for obj in glob.glob(os.path.join(libdir, "**", "*.o"), recursive=True):
        out = subprocess.run(["readelf", "-rsSW", obj], capture_output=True, text=True).stdout
        sections = dict((m.group(2), m.group(1)) for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", out, re.M))
        funcs, at = set(), {}
        for m in re.finditer(r"^\s*\d+:\s+([0-9a-f]+)\s+\d+\s+FUNC\s+\w+\s+\w+\s+(\d+)\s+(\S+)$", out, re.M):
            funcs.add(m.group(3))
            at[(m.group(2), int(m.group(1), 16))] = m.group(3)
        keep = False
        for line in out.splitlines():
            m = re.match(r"Relocation section '\.rela(\.[^']*)'", line)
            if m:  # code and data only: debug info and unwind tables name every function
                keep = m.group(1).startswith((".text", ".data", ".rodata"))
                continue
            f = line.split()
            if not keep or len(f) < 5 or not f[2].startswith("R_X86_64_") or f[2] == "R_X86_64_PLT32":
                continue
            sym = f[4]
            if sym in funcs:
                taken.add(sym)
            elif sym in sections and len(f) >= 7 and f[5] == "+":
                name = at.get((sections[sym], int(f[6], 16)))
                if name:
                    taken.add(name)
    return taken


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: reach_check.py LIBDIR HEADER...\n")
        return 2
    libdir, headers = argv[1], argv[2:]
    cis = glob.glob(os.path.join(libdir, "**", "*.ci"), recursive=True)
    if not cis:
        sys.stderr.write("reach_check: no call graphs (*.ci) under %s: build the library first\n" % libdir)
        return 2
    edges = collections.defaultdict(list)
    defined = {}
    for ci in cis:
        for line in open(ci):
            m = NODE.match(line)
            if m and not m.group(3):
                defined[m.group(1)] = m.group(2)
            m = EDGE.match(line)
            if m:
                edges[m.group(1)].append((m.group(2), m.group(3) or ""))
    # X._omp_fn.N belongs to X (a file-local X is titled "file.c:X"); when
    # GCC inlined X into its callers, X has no node of its own: then every
    # function of X's file that starts a parallel region may run it.
    for name in defined:
        m = re.match(r"(.*)\._omp_fn\.\d+$", name)
        if not m:
            continue
        if m.group(1) in defined:
            edges[m.group(1)].append((name, defined[name]))
            continue
        src = defined[name].split(":")[0]
        for f, where in defined.items():
            if where.split(":")[0] == src and any(v.startswith("GOMP_parallel") for v, _ in edges.get(f, ())):
                edges[f].append((name, defined[name]))
    plain = collections.defaultdict(list)  # plain name -> titles
    for title in defined:
        plain[title.split(":")[-1]].append(title)
    hooks = set(HOOKS.values())
    taken = [t for name in address_taken(libdir) - hooks for t in plain.get(name, [])]
    public = public_functions(headers)
    missing = sorted(p for p in public if p not in defined)
    if missing:
        sys.stderr.write("reach_check: declared but not in the call graphs: %s\n" % " ".join(missing))
        return 2

    bad = 0
    for entry in sorted(public):
        parent = {entry: None}
        queue = collections.deque([entry])
        hits = []
        while queue:
            u = queue.popleft()
            nexts = list(edges.get(u, ()))
            if any(v == "__indirect_call" for v, _ in nexts):
                if u in HOOKS:
                    nexts += [(HOOKS[u], "its job hook")]
                else:
                    nexts += [(t, "via a pointer") for t in taken]
            for v, where in nexts:
                if v.split(":")[-1] in ENDERS:
                    hits.append((u, v, where))
                elif v not in parent and v in defined:
                    parent[v] = u
                    queue.append(v)
        for u, v, where in (hits if "--all" in os.environ.get("REACH", "") else hits[:3]):
            chain = [u]
            while parent[chain[-1]] is not None:
                chain.append(parent[chain[-1]])
            print("%s reaches %s at %s: %s" % (entry, v, where, " <- ".join(c.split(":")[-1] for c in chain)))
        bad += bool(hits)
    if bad:
        print("reach_check: %d of %d public functions can end their caller" % (bad, len(public)))
        return 1
    print("reach_check: none of the %d public functions reaches an exit, an abort or an exiting allocator" % len(public))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
