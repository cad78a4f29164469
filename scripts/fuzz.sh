#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS]: runs the four fuzz targets in fuzz/ (cargo-fuzz + libFuzzer, on the
# `nightly` rustup toolchain), one after the other, SECONDS each (default 600), and prints one
# line per target: executions, seconds, findings. Installs cargo-fuzz from crates.io if missing.
#
#   scenario   Scenario::from_json (a user's scenario file), then the world it builds
#   permalink  share::Link::decode (a permalink fragment), then Link::restore
#   zk_replay  splitbrain zk-replay's input lines (splitbrain_cli::zk_replay)
#   import     splitbrain_import::parse::parse on any bytes split into 1-3 inputs (the log importer)
#
# The contract each target asserts: no panic; a rejection is one non-empty line. A finding is
# written to fuzz/artifacts/<target>/ (replay it: cargo +nightly fuzz run <target> <file>); its
# fix gets a regression test in the native suite (crates/sim/tests/fuzz_regressions.rs,
# crates/cli/tests/zk_replay.rs). The corpus grows in fuzz/corpus/<target>/ (not committed),
# seeded from fuzz/seeds/<target>/. Not run in CI (CI has no nightly toolchain guarantee).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS="${1:-600}"
TOOLCHAIN="${FUZZ_TOOLCHAIN:-nightly}"
TARGETS="${FUZZ_TARGETS:-scenario permalink zk_replay import}"
[[ "$SECS" =~ ^[0-9]+$ && "$SECS" -gt 0 ]] || { echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2; }
rustup run "$TOOLCHAIN" rustc --version >/dev/null 2>&1 \
  || { echo "fuzz.sh: the rustup toolchain '$TOOLCHAIN' is missing (rustup toolchain install nightly)" >&2; exit 2; }
command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz

cd "$ROOT/fuzz"
mkdir -p logs
cargo "+$TOOLCHAIN" fuzz build -O
summary=()
for t in $TARGETS; do
  mkdir -p "corpus/$t" "artifacts/$t"
  cp -n "seeds/$t/"* "corpus/$t/" 2>/dev/null || true
  before=$(find "artifacts/$t" -type f | wc -l)
  log="logs/$t.log"
  start=$(date +%s)
  # -timeout: an input that runs longer than 30 s is a finding (a hang), not a slow unit.
  nice -n 10 cargo "+$TOOLCHAIN" fuzz run -O "$t" "corpus/$t" -- \
    -max_total_time="$SECS" -timeout=30 -dict="$t.dict" -print_final_stats=1 >"$log" 2>&1 || true
  end=$(date +%s)
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  fuzzed=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o '[0-9]* second' | grep -o '[0-9]*' | tail -1)
  after=$(find "artifacts/$t" -type f | wc -l)
  line="$t: ${execs:-?} executions in ${fuzzed:-?} s of fuzzing ($((end - start)) s with the build), $((after - before)) new finding(s), corpus $(find "corpus/$t" -type f | wc -l) inputs (log fuzz/$log)"
  echo "$line"
  summary+=("$line")
done
printf '\n== fuzz summary (%s s per target)\n' "$SECS"
printf '  %s\n' "${summary[@]}"
