#!/usr/bin/env python3
"""Proves scripts/check-structure.py finds import circles in every path form it claims to read:
temp trees with a planted circle (through `super::`, `super::super::`, `self::`, grouped
`use crate::{..}`, a child's bare name, a re-export) must be reported, and clean trees (a child
using its parent, a parent re-exporting its child) must pass. Run: python3 scripts/test_check_structure.py
"""
import importlib.util
import os
import shutil
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("check_structure", os.path.join(HERE, "check-structure.py"))
cs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cs)


class Tree:
    """A temp crate `src/` built from {relative path: source}."""

    def __init__(self, files):
        self.root = tempfile.mkdtemp(prefix="check-structure-")
        for rel, text in files.items():
            path = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(textwrap.dedent(text))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.root)

    def cycles(self):
        return cs.import_cycles(self.root)

    def graph(self):
        return cs.deps(cs.modules(self.root))


LIB = "pub mod a;\npub mod b;\n"
A_MOD = "pub mod x;\npub mod y;\n"


class PlantedCircles(unittest.TestCase):
    def test_siblings_through_super(self):
        with Tree(
            {
                "lib.rs": LIB,
                "a/mod.rs": A_MOD + "pub struct Parent;\n",
                "a/x.rs": "use super::y::Thing;\npub struct Other;\n",
                "a/y.rs": "use super::{x::Other, Parent};\npub struct Thing;\n",
                "b.rs": "",
            }
        ) as t:
            self.assertEqual(t.cycles(), [["a::x", "a::y"]])
            # `super::Parent` is containment; `super::x` an import of the sibling.
            self.assertEqual(t.graph()["a::y"], {"a::x"})

    def test_super_super_and_grouped_crate(self):
        with Tree(
            {
                "lib.rs": "pub mod p;\n",
                "p/mod.rs": "pub mod q;\npub mod s;\n",
                "p/q/mod.rs": "pub mod r;\n",
                "p/q/r.rs": "fn f() -> super::super::s::T { todo!() }\npub struct U;\n",
                "p/s.rs": "use crate::{p::{q::{r::U}}};\npub struct T;\n",
            }
        ) as t:
            self.assertEqual(t.cycles(), [["p::q::r", "p::s"]])
            g = t.graph()
            self.assertEqual(cs.circles(g, ["p::q::r", "p::s"]), [["p::q::r", "p::s"]])

    def test_self_and_bare_child_in_a_folder_module(self):
        with Tree(
            {
                "lib.rs": LIB,
                "a/mod.rs": A_MOD + "use self::x::T;\npub struct W;\n",
                "a/x.rs": "pub struct T(crate::b::V);\n",
                "a/y.rs": "",
                "b.rs": "pub struct V(crate::a::W);\n",
            }
        ) as t:
            self.assertEqual(t.cycles(), [["a", "a::x", "b"]])
        with Tree(
            {
                "lib.rs": LIB,
                "a/mod.rs": A_MOD + "fn f() { x::go() }\npub struct W;\n",
                "a/x.rs": "pub fn go() { let _ = crate::b::V; }\n",
                "a/y.rs": "",
                "b.rs": "pub struct V;\nfn g(_: crate::a::W) {}\n",
            }
        ) as t:
            self.assertEqual(t.cycles(), [["a", "a::x", "b"]])

    def test_through_a_reexport(self):
        with Tree(
            {
                "lib.rs": LIB,
                "a/mod.rs": A_MOD + "pub use x::Thing;\n",
                "a/x.rs": "use super::y::Z;\npub struct Thing;\n",
                "a/y.rs": "use super::Thing;\npub struct Z;\n",
                "b.rs": "",
            }
        ) as t:
            self.assertEqual(t.cycles(), [["a::x", "a::y"]])

    def test_multiline_group_with_alias(self):
        with Tree(
            {
                "lib.rs": LIB,
                "a/mod.rs": A_MOD,
                "a/x.rs": "use super::{\n    y::{Z as Zed},\n    *,\n};\npub struct Thing;\n",
                "a/y.rs": "pub struct Z;\nfn f(_: super::x::Thing) {}\n",
                "b.rs": "",
            }
        ) as t:
            self.assertEqual(t.cycles(), [["a::x", "a::y"]])

    def test_main_fails_on_a_circle(self):
        with Tree(
            {
                "lib.rs": LIB,
                "a/mod.rs": A_MOD,
                "a/x.rs": "use super::y::Z;\npub struct T;\n",
                "a/y.rs": "use super::x::T;\npub struct Z;\n",
                "b.rs": "",
            }
        ) as t:
            root, app = cs.ROOT, cs.APP
            cs.ROOT, cs.APP = t.root, os.path.join(t.root, "no-app")
            try:
                self.assertEqual(cs.main(), 1)
            finally:
                cs.ROOT, cs.APP = root, app


class CleanTrees(unittest.TestCase):
    def test_containment_and_one_way_siblings_pass(self):
        with Tree(
            {
                "lib.rs": LIB + "pub use a::x::T;\n",
                "a/mod.rs": A_MOD + "pub use x::T;\npub use y::Z;\npub struct W;\nfn f() { y::go() }\n",
                "a/x.rs": "use super::{W, y::Z};\nuse crate::a::W as W2;\npub struct T;\n",
                "a/y.rs": "use super::*;\npub struct Z;\npub fn go() {}\n",
                "b.rs": "use crate::a::T;\nuse crate::T as T2;\n// use crate::b::whatever; use super::b;\n",
            }
        ) as t:
            self.assertEqual(t.cycles(), [])
            g = t.graph()
            self.assertEqual(g["a::x"], {"a::y"})
            self.assertEqual(g["a"], {"a::y"})  # its re-exports are containment, its call is not
            self.assertEqual(g["b"], {"a::x"})  # through both re-exports, to where T lives

    def test_test_modules_are_not_read(self):
        with Tree(
            {
                "lib.rs": LIB,
                "a/mod.rs": A_MOD,
                "a/x.rs": "use super::y::Z;\n#[cfg(test)]\nmod tests {\n    use super::super::y::*;\n}\n",
                "a/y.rs": "pub struct Z;\n#[cfg(test)]\nmod tests {\n    use crate::a::x::*;\n}\n",
                "a/tests.rs": "use super::x::*;\nuse super::y::*;\n",
                "b.rs": "",
            }
        ) as t:
            self.assertEqual(t.cycles(), [])

    def test_a_long_file_and_a_long_world_are_reported(self):
        with Tree(
            {
                "lib.rs": "pub mod world;\npub mod big;\n",
                "world/mod.rs": "fn f() {}\n" * (cs.WORLD_MOD_MAX + 1),
                "big.rs": "fn g() {}\n" * cs.FILE_MAX + "#[cfg(test)]\nmod tests {\n" + "fn t() {}\n" * 50 + "}\n",
                "world/tests.rs": "fn t() {}\n" * 2000,
            }
        ) as t:
            found = cs.size_findings(t.root)
            self.assertEqual(len(found), 1, found)
            self.assertIn(os.path.join("world", "mod.rs"), found[0])

    def test_mode_checks_outside_the_seam_are_counted(self):
        with Tree(
            {
                "lib.rs": "pub mod world;\npub mod kraft;\npub mod view;\n",
                "world/mod.rs": "mod control_plane;\n",
                "world/control_plane/mod.rs": "fn a(w: &W) -> bool { w.plane.kraft().is_some() }\n",
                "kraft/mod.rs": "fn b(m: Mode) -> bool { m.behaviour().is_kraft() }\n",
                "view.rs": "fn c(w: &W) -> bool { w.kraft().is_some() }\n"
                "// w.kraft() in a comment is not a check\n"
                "fn d(p: &ControlPlane) -> bool { matches!(p, ControlPlane::Kraft(_)) }\n",
            }
        ) as t:
            hits = cs.mode_checks(cs.modules(t.root))
            self.assertEqual([p for p, _ in hits], ["view.rs", "view.rs"])

    def test_the_real_tree_is_readable(self):
        files = cs.modules(cs.ROOT)
        self.assertIn("zookeeper", files)
        self.assertNotIn("zookeeper::tests", files)


if __name__ == "__main__":
    unittest.main()
