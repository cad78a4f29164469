#!/usr/bin/env python3
"""Checks the core's shape (crates/sim/src), as the structure issue states it:

1. no import cycle between the core's modules (each file is a module; a folder's mod.rs is the
   folder's module; a child using its parent through `super::` is containment, not an import).
   Paths are read in every form, relative to the file's module: `crate::`, `self::`, `super::`
   (any number of them, so `super::sibling` is an import of the sibling), a child module's bare
   name, and grouped `use a::{b, c::{d}}`; a name re-exported with `pub use` is followed to the
   module that defines it (scripts/test_check_structure.py plants circles to prove it);
2. no `Mode::<Variant>` named outside mode.rs (the seam) and scenario.rs (the parser) — the rest
   of the core asks `Behaviour` properties;
3. no `impl Broker` in the controller's files (the controller is its own type);
4. no ZooKeeper server logic in the world: world/ never calls the data tree's `apply`, `expire`
   or `touch` outside the steady-state build.

6. the house's sizes (issue 32): `world/mod.rs` holds the queue, the step and the routing in
   700 production lines or fewer, and no core file is over 900 (a file's production lines stop
   at its `#[cfg(test)] mod tests {` block; tests.rs files are not counted);
7. at most 5 ZooKeeper-versus-KRaft checks (`is_kraft()`, `.kraft()`, `ControlPlane::…`,
   `Mode::Kraft`) in production code outside the seam (`world/control_plane/`), `kraft/` and
   `mode.rs`: the rest of the core asks the seam.

5. no import cycle between the web app's modules either (crates/app/src, its bin/ aside): the page
   reads the core and its own helpers one way (issue 13, "the page's own house").

Test modules (`#[cfg(test)] mod tests { .. }` and files named tests.rs) are not checked.
Prints what it finds and exits 1 on any finding.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "sim", "src")
APP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "app", "src")


def modules(root=ROOT, skip_dirs=None):
    """The modules under `root`, by path (`a::b`), each as (file, source without comments and
    test modules). A folder's mod.rs is the folder's module; lib.rs and main.rs are the crate root,
    kept under the name "" for their re-exports only."""
    if skip_dirs is None:
        skip_dirs = ("bin",) if os.path.abspath(root) == os.path.abspath(APP) else ()
    files = {}
    for dp, dirs, fn in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not (dp == root and d in skip_dirs))
        for f in sorted(fn):
            if not f.endswith(".rs"):
                continue
            parts = os.path.relpath(os.path.join(dp, f), root)[:-3].split(os.sep)
            if parts[-1] == "mod":
                parts = parts[:-1]
            if parts[-1] == "tests":
                continue
            with open(os.path.join(dp, f), encoding="utf-8") as fh:
                src = fh.read()
            cut = src.find("#[cfg(test)]\nmod tests {")
            if cut >= 0:
                src = src[:cut]
            src = "\n".join(l for l in src.split("\n") if not l.strip().startswith("//"))
            name = "" if parts in (["lib"], ["main"]) else "::".join(parts)
            if name == "" and "" in files:
                prev = files[""]
                files[""] = (prev[0], prev[1] + "\n" + src)
            else:
                files[name] = (os.path.relpath(os.path.join(dp, f), root), src)
    return files


IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\*")
WS = re.compile(r"\s*")


def _tree(src, i):
    """Parses a path or use tree at `src[i]` (just after a `::`): returns its paths, each a list of
    segments, and where it ends. `a::{b, c::{d, e}}` gives [a, b], [a, c, d], [a, c, e]."""
    i = WS.match(src, i).end()
    if i < len(src) and src[i] == "{":
        i += 1
        paths = []
        while True:
            i = WS.match(src, i).end()
            if i >= len(src):
                return paths, i
            if src[i] == "}":
                return paths, i + 1
            if src[i] == ",":
                i += 1
                continue
            sub, j = _tree(src, i)
            if j == i:  # not a path: give up on this group
                return paths, i
            paths += sub
            i = WS.match(src, j).end()
            alias = re.compile(r"as\s+[A-Za-z_][A-Za-z0-9_]*").match(src, i)
            if alias:
                i = alias.end()
    m = IDENT.match(src, i)
    if not m:
        return [[]], i
    seg, i = m.group(), m.end()
    j = WS.match(src, i).end()
    if src.startswith("::", j):
        k = WS.match(src, j + 2).end()
        if k < len(src) and (src[k] == "{" or IDENT.match(src, k)):
            sub, i = _tree(src, k)
            return [[seg] + p for p in sub], i
    return [[seg]], i


ROOTED = re.compile(r"(?<![A-Za-z0-9_:])(crate|super|self)((?:\s*::\s*super)*)\s*::")
BARE = re.compile(r"(?<![A-Za-z0-9_:])([a-z_][a-z0-9_]*)\s*::")


def paths_in(m, src, children):
    """Every path `src` (module `m`, a list of segments; [] for the root) names through `crate::`,
    `self::`, `super::` (any number) or a child module's name, made absolute."""
    out, spans = [], []
    for hit in ROOTED.finditer(src):
        if any(a <= hit.start() < b for a, b in spans):
            continue
        if hit.group(1) == "crate":
            base = []
        else:
            ups = (1 if hit.group(1) == "super" else 0) + hit.group(2).count("super")
            if ups > len(m):
                continue
            base = m[: len(m) - ups]
        paths, end = _tree(src, hit.end())
        spans.append((hit.start(), end))
        out += [base + p for p in paths]
    for hit in BARE.finditer(src):
        if hit.group(1) in children and not any(a <= hit.start() < b for a, b in spans):
            paths, end = _tree(src, hit.start())
            spans.append((hit.start(), end))
            out += [m + p for p in paths]
    return [[s for s in p if s != "self"] for p in out]


PUB_USE = re.compile(r"\bpub(?:\s*\([a-z]+\))?\s+use\s+[^;]*;")


def deps(files):
    """The import graph: module → the modules it names, less itself and its ancestors (a child
    using its parent is containment). A path through a re-export (`pub use x::Y;` in M makes `M::Y`
    mean `x::Y`, lib.rs's included) counts as naming where the item lives; a module re-exporting
    one of its own descendants contains it and does not import it."""
    children = {}
    for name in files:
        parts = name.split("::") if name else []
        if parts:
            children.setdefault("::".join(parts[:-1]), set()).add(parts[-1])
    named, exports = {}, {}
    for name, (_, src) in files.items():
        m = name.split("::") if name else []
        kids = children.get(name, set())
        table, reexported = {}, []
        for stmt in PUB_USE.finditer(src):
            text = stmt.group()
            body = text[re.match(r"pub(?:\s*\([a-z]+\))?\s+use\s+", text).end():]
            for p in paths_in(m, body, kids):
                if p:
                    table[p[-1]] = p
                    reexported.append(p)
            for alias in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\s+as\s+([A-Za-z_][A-Za-z0-9_]*)", body):
                for p in paths_in(m, body, kids):
                    if p and p[-1] == alias.group(1):
                        table[alias.group(2)] = p
        exports[name] = table
        named[name] = paths_in(m, PUB_USE.sub(";", src), kids), reexported

    def module_of(path):
        for n in range(len(path), 0, -1):
            if "::".join(path[:n]) in files:
                return n
        return 0

    def resolve(path, depth=0):
        """The module where the item `path` names lives (None: the crate root or outside)."""
        n = module_of(path)
        mod = "::".join(path[:n])
        rest = path[n:]
        if rest and rest[0] in exports.get(mod, {}) and depth < 8:
            target = exports[mod][rest[0]] + rest[1:]
            if target != path:
                got = resolve(target, depth + 1)
                if got is not None:
                    return got
        return mod or None

    out = {}
    for name in files:
        if name == "":
            continue
        used, reexported = named[name]
        d = {resolve(p) for p in used}
        d |= {t for t in map(resolve, reexported) if t is not None and not t.startswith(name + "::")}
        out[name] = {t for t in d if t is not None and t != name and not name.startswith(t + "::")}
    return out


def cycles(graph):
    index, low, stack, on, found, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def circles(graph, comp):
    """The shortest circle through each module of a strongly connected component, without
    repeats: what to cut, where `cycles` gives only the whole knot."""
    inside = set(comp)
    found = []
    for start in sorted(comp):
        prev, queue, seen = {}, [start], {start}
        while queue:
            v = queue.pop(0)
            if v != start and start in graph[v]:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                path.reverse()
                break
            for w in sorted(graph[v] & inside):
                if w not in seen:
                    seen.add(w)
                    prev[w] = v
                    queue.append(w)
        else:
            continue
        i = path.index(min(path))
        path = path[i:] + path[:i]
        if path not in found:
            found.append(path)
    return found


def import_cycles(root, skip_dirs=None):
    """The import cycles among the modules under `root`, each a sorted list of module paths."""
    return cycles(deps(modules(root, skip_dirs)))


WORLD_MOD_MAX = 700
FILE_MAX = 900
MODE_CHECKS_MAX = 5
MODE_CHECK = re.compile(r"is_kraft\(\)|\.kraft\(\)|\bControlPlane::|\bMode::Kraft\b")


def production_lines(path):
    """A file's production lines: up to its `#[cfg(test)] mod tests {` block, if any."""
    src = open(path, encoding="utf-8").read()
    cut = src.find("#[cfg(test)]\nmod tests {")
    if cut >= 0:
        src = src[:cut]
    return src.count("\n")


def size_findings(root=ROOT):
    """Files over their line budget (rule 6)."""
    out = []
    for dp, _, fn in os.walk(root):
        for f in sorted(fn):
            if not f.endswith(".rs") or f == "tests.rs":
                continue
            path = os.path.join(dp, f)
            rel = os.path.relpath(path, root)
            n = production_lines(path)
            limit = WORLD_MOD_MAX if rel == os.path.join("world", "mod.rs") else FILE_MAX
            if n > limit:
                out.append(f"{rel} has {n} production lines (at most {limit})")
    return out


def mode_checks(files):
    """Each ZooKeeper-versus-KRaft check outside the seam, as (path, line text) (rule 7)."""
    seam = (os.path.join("world", "control_plane") + os.sep, "kraft" + os.sep)
    hits = []
    for _, (path, src) in sorted(files.items()):
        if path == "mode.rs" or path.startswith(seam):
            continue
        for line in src.split("\n"):
            if MODE_CHECK.search(line):
                hits.append((path, line.strip()))
    return hits


def main():
    files = modules(ROOT)
    problems = []
    graph = deps(files)
    for c in cycles(graph):
        shortest = circles(graph, c)
        problems.append("import cycle between modules: " + " <-> ".join(c) + "".join(
            "\n  circle: " + " -> ".join(k + k[:1]) for k in shortest
        ))
    app = modules(APP) if os.path.isdir(APP) else {}
    graph = deps(app)
    for c in cycles(graph):
        shortest = circles(graph, c)
        problems.append("import cycle between the web app's modules: " + " <-> ".join(c) + "".join(
            "\n  circle: " + " -> ".join(k + k[:1]) for k in shortest
        ))
    files.pop("", None)
    app.pop("", None)
    variant = re.compile(r"\bMode::(Legacy|Kafka11|Fenced|Kraft)\b")
    for m, (path, src) in files.items():
        if path not in ("mode.rs", "scenario.rs"):
            for hit in variant.findall(src):
                problems.append(f"{path} names Mode::{hit}; ask a Behaviour property (mode.rs) instead")
        if path.startswith("controller" + os.sep) and re.search(r"\bimpl\s+Broker\b", src):
            problems.append(f"{path} has `impl Broker`: the controller is its own type")
        if path.startswith("world" + os.sep) and path != os.path.join("world", "build.rs"):
            call = re.search(r"\bzk\w*\.(apply|expire|touch)\(", src)
            if call:
                problems.append(
                    f"{path} calls the ZooKeeper tree's {call.group(1)}(): server logic belongs in zookeeper/server.rs"
                )
    problems += size_findings(ROOT)
    checks = mode_checks(files)
    if len(checks) > MODE_CHECKS_MAX:
        problems.append(
            f"{len(checks)} ZooKeeper-versus-KRaft checks outside the control-plane seam (at most {MODE_CHECKS_MAX}):"
            + "".join(f"\n  {p}: {l}" for p, l in checks)
        )
    for p in problems:
        print("check-structure:", p)
    print(
        f"check-structure: {len(files)} core modules, {len(app)} app modules, "
        f"{len(checks)} mode check(s) outside the seam, {len(problems)} finding(s)"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
