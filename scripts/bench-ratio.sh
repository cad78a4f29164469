#!/usr/bin/env bash
# Measures the core and the explorer of two revisions side by side, on this machine, in one run:
#
#   scripts/bench-ratio.sh [BASE_REV] [ROUNDS]     (default 341df54, the main issue 12 measures against; 3 rounds)
#
# It checks BASE_REV out in a git worktree under target/bench-ratio/, copies the same workload source
# (scripts/bench/probe.rs) into both trees as an example, builds both with the release profile, then
# alternates the two binaries ROUNDS times (so drift on a shared machine hits both alike) and prints,
# per workload, the best rate of each and the ratio new / base. The working tree's build also runs the
# probe's `structured` workloads: the same runs with text rendering off (`World::set_render(false)`,
# which the base does not have; its figure for those rows is its only way of running, with text).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BASE_REV="${1:-341df54}"
ROUNDS="${2:-3}"
WORK="$ROOT/target/bench-ratio"
mkdir -p "$WORK"
BASE_TREE="$WORK/base"
if [[ ! -d "$BASE_TREE" ]]; then
  git worktree add --detach "$BASE_TREE" "$BASE_REV" >/dev/null
else
  git -C "$BASE_TREE" checkout --quiet --detach "$BASE_REV"
fi
build() { # tree, target dir, extra rustflags
  mkdir -p "$1/crates/sim/examples"
  cp "$ROOT/scripts/bench/probe.rs" "$1/crates/sim/examples/probe.rs"
  (cd "$1" && RUSTFLAGS="${3:-}" CARGO_TARGET_DIR="$2" cargo build --quiet --release -p splitbrain-sim --example probe)
  rm -f "$1/crates/sim/examples/probe.rs"
  rmdir "$1/crates/sim/examples" 2>/dev/null || true
}
echo "building $BASE_REV and the working tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo ', with changes'))..." >&2
build "$BASE_TREE" "$WORK/target-base"
SWITCH=""
if grep -rq "pub fn set_render" crates/sim/src; then SWITCH="--cfg render_switch"; fi
build "$ROOT" "$WORK/target-new" "$SWITCH"
OLD="$WORK/target-base/release/examples/probe"
NEW="$WORK/target-new/release/examples/probe"
: >"$WORK/old.tsv"
: >"$WORK/new.tsv"
for r in $(seq "$ROUNDS"); do
  echo "round $r/$ROUNDS" >&2
  "$OLD" >>"$WORK/old.tsv"
  "$NEW" >>"$WORK/new.tsv"
done
echo "# $(date -u +%Y-%m-%d), $(nproc) vCPU ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), best of $ROUNDS rounds"
echo "# base $BASE_REV, new $(git rev-parse --short HEAD)"
python3 - "$WORK/old.tsv" "$WORK/new.tsv" <<'PY'
import sys
def best(path):
    out = {}
    for line in open(path):
        name, unit, n, s = line.rstrip("\n").split("\t")
        rate = int(n) / max(float(s), 1e-9)
        prev = out.get(name)
        if prev is None or rate > prev[2]:
            out[name] = (unit, int(n), rate)
    return out
old, new = best(sys.argv[1]), best(sys.argv[2])
print(f"{'workload':<34} {'unit':<10} {'base/s':>12} {'new/s':>12} {'ratio':>7}")
for name in new:
    unit, n, rate = new[name]
    base = old.get(name) or old.get(name.replace("-structured", ""))
    b = base[2] if base else float("nan")
    print(f"{name:<34} {unit:<10} {b:>12,.0f} {rate:>12,.0f} {rate / b:>6.1f}x")
PY
