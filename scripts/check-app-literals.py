#!/usr/bin/env python3
"""Checks that the web app names no Kafka topic or consumer group of its own (issue 32, "the page
renders typed facts"): every such name comes from the scenario through the core's view.

The names looked for are the ones the core and its built-in scenarios define:
  * the internal topics: the core's OFFSETS_TOPIC (crates/sim/src/scenario.rs) and KRaft's
    `__cluster_metadata`;
  * every `consumers[].group` and `cluster.topics[].name` of crates/sim/scenarios/*.json.
Any of them anywhere in crates/app/src (code, comments, test modules, logs/) is a finding.
crates/app/tests/ (expectations about a built-in's run, like the e2e specs) is not checked.

Usage: check-app-literals.py              check crates/app/src
       check-app-literals.py --self-test  show that the check fails on a planted literal
Prints what it finds and exits 1 on any finding.
"""
import glob
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
APP = os.path.join(ROOT, "crates", "app", "src")


def kafka_names():
    """The topic and group names the core and its scenarios define."""
    names = {"__cluster_metadata"}
    src = open(os.path.join(ROOT, "crates", "sim", "src", "scenario.rs"), encoding="utf-8").read()
    m = re.search(r'pub const OFFSETS_TOPIC: &str = "([^"]+)";', src)
    if not m:
        sys.exit("check-app-literals: OFFSETS_TOPIC not found in crates/sim/src/scenario.rs")
    names.add(m.group(1))
    files = sorted(glob.glob(os.path.join(ROOT, "crates", "sim", "scenarios", "*.json")))
    if not files:
        sys.exit("check-app-literals: no built-in scenario found in crates/sim/scenarios")
    for f in files:
        s = json.load(open(f, encoding="utf-8"))
        names.update(c["group"] for c in s.get("consumers", []) if c.get("group"))
        names.update(t["name"] for t in s.get("cluster", {}).get("topics", []) if t.get("name"))
    return names


def findings(root, names):
    """(path, line number, name) for every name written in a file under `root`."""
    out = []
    for dp, _, fn in os.walk(root):
        for f in sorted(fn):
            if not f.endswith((".rs", ".html", ".css", ".js", ".json")):
                continue
            path = os.path.join(dp, f)
            for i, line in enumerate(open(path, encoding="utf-8"), 1):
                out.extend((path, i, n) for n in sorted(names) if n in line)
    return sorted(out)


def report(found, root):
    for path, line, name in found:
        print(f"{os.path.relpath(path, root)}:{line}: names '{name}': take it from the core's view instead")
    return 1 if found else 0


def self_test(names):
    """The check finds a planted topic and a planted group, and passes the same file without."""
    with tempfile.TemporaryDirectory() as d:
        clean = 'let tp = c.coordinator_tp();\nlet title = format!("{}\'s partition", v.watched_group);\n'
        open(os.path.join(d, "clean.rs"), "w").write(clean)
        if findings(d, names):
            print("self-test: a clean file was flagged")
            return 1
        for planted in sorted(names):
            open(os.path.join(d, "planted.rs"), "w").write(clean + f'let t = "{planted}";\n')
            found = findings(d, names)
            if [(os.path.basename(p), l, n) for p, l, n in found] != [("planted.rs", 3, planted)]:
                print(f"self-test: a planted '{planted}' was not found: {found}")
                return 1
    print(f"self-test: ok ({len(names)} names, each found when planted)")
    return 0


def main():
    names = kafka_names()
    if sys.argv[1:] == ["--self-test"]:
        return self_test(names)
    if sys.argv[1:]:
        sys.exit(__doc__)
    found = findings(APP, names)
    if not found:
        print(f"check-app-literals: crates/app/src names none of {len(names)} Kafka topics and groups")
    return report(found, ROOT)


if __name__ == "__main__":
    sys.exit(main())
