#!/usr/bin/env python3
"""Checks the core's shape (crates/sim/src), as the structure issue states it:

1. no import cycle between the core's modules (each file is a module; a folder's mod.rs is the
   folder's module; a child using its parent through `super::` is containment, not an import);
2. no `Mode::<Variant>` named outside mode.rs (the seam) and scenario.rs (the parser) — the rest
   of the core asks `Behaviour` properties;
3. no `impl Broker` in the controller's files (the controller is its own type);
4. no ZooKeeper server logic in the world: world/ never calls the data tree's `apply`, `expire`
   or `touch` outside the steady-state build.

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


def modules(root=ROOT):
    files = {}
    for dp, dirs, fn in os.walk(root):
        dirs[:] = [d for d in dirs if not (root == APP and d == "bin")]
        for f in fn:
            if not f.endswith(".rs"):
                continue
            parts = os.path.relpath(os.path.join(dp, f), root)[:-3].split(os.sep)
            if parts[-1] == "mod":
                parts = parts[:-1]
            if parts in (["lib"], ["main"]) or parts[-1] == "tests":
                continue
            src = open(os.path.join(dp, f), encoding="utf-8").read()
            cut = src.find("#[cfg(test)]\nmod tests {")
            if cut >= 0:
                src = src[:cut]
            src = "\n".join(l for l in src.split("\n") if not l.strip().startswith("//"))
            files["::".join(parts)] = (os.path.relpath(os.path.join(dp, f), root), src)
    return files


def deps(files):
    out = {}
    for m, (_, src) in files.items():
        d = set()
        for a, b in re.findall(r"crate::([a-z_0-9]+)(?:::([a-z_0-9]+))?", src):
            t = f"{a}::{b}" if b and f"{a}::{b}" in files else a
            d.add(t)
        for a, inner in re.findall(r"crate::([a-z_0-9]+)::\{([^}]*)\}", src):
            for b in re.findall(r"\b([a-z_0-9]+)\b", inner):
                if f"{a}::{b}" in files:
                    d.add(f"{a}::{b}")
        out[m] = {t for t in d if t in files and t != m and not m.startswith(t + "::")}
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


def main():
    files = modules()
    problems = []
    for c in cycles(deps(files)):
        problems.append("import cycle between modules: " + " <-> ".join(c))
    app = modules(APP) if os.path.isdir(APP) else {}
    for c in cycles(deps(app)):
        problems.append("import cycle between the web app's modules: " + " <-> ".join(c))
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
    for p in problems:
        print("check-structure:", p)
    print(f"check-structure: {len(files)} core modules, {len(app)} app modules, {len(problems)} finding(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
