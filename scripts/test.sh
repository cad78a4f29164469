#!/usr/bin/env bash
# Runs every check of the project, in order; stops at the first failing stage.
#
#   scripts/test.sh                 setup + all stages
#   SKIP_SETUP=1 scripts/test.sh    skip scripts/setup.sh
#   CLIPPY_STRICT=1                 clippy with -D warnings
#   scripts/test.sh native e2e      only the named stages (keys: setup fmt clippy
#                                   native zk-diff no-std sim-wasm sim-wasm-test
#                                   app-wasm-test trunk size e2e)
#
# Stages: setup, rustfmt, clippy, native cargo test (the workspace; the web app only its lib tests),
# `splitbrain zk-replay` against a real ZooKeeper 3.8 (tests/zk-diff/zkdiff.py),
# splitbrain-sim on wasm32, wasm-bindgen-test for crates/sim and crates/app in
# headless Chromium, trunk build --release, dist size report, end-to-end tests
# (tests/e2e, playwright-core + Chromium). A stage that needs a crate is skipped,
# with a message, only while that crate has no Cargo.toml.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

STAGE_NAMES=()
STAGE_RESULTS=()
STAGE_SECS=()
SKIP_RC=77

skip() { printf '  SKIP: %s\n' "$*"; return $SKIP_RC; }
x() { printf '  $ %s\n' "$*"; "$@"; }

ONLY=("$@")
for k in "${ONLY[@]}"; do
  case "$k" in
    setup | fmt | clippy | native | zk-diff | no-std | sim-wasm | sim-wasm-test | app-wasm-test | trunk | size | e2e) ;;
    *) echo "test.sh: unknown stage '$k' (see the header of $0)" >&2; exit 2 ;;
  esac
done
wanted() {
  [[ ${#ONLY[@]} -eq 0 ]] && return 0
  local k
  for k in "${ONLY[@]}"; do [[ "$k" == "$1" ]] && return 0; done
  return 1
}

# run_stage KEY TITLE FUNCTION : runs FUNCTION in a subshell with errexit on.
run_stage() {
  local key="$1" title="$2" fn="$3" rc start
  wanted "$key" || return 0
  printf '\n======================================================================\n'
  printf '== %s\n' "$title"
  printf '======================================================================\n'
  start=$SECONDS
  set +e
  (set -euo pipefail; "$fn")
  rc=$?
  set -e
  local secs=$((SECONDS - start))
  STAGE_NAMES+=("$title")
  STAGE_SECS+=("$secs")
  if [[ $rc == 0 ]]; then
    STAGE_RESULTS+=("passed")
    printf '== %s: passed (%d s)\n' "$title" "$secs"
  elif [[ $rc == "$SKIP_RC" ]]; then
    STAGE_RESULTS+=("skipped")
    printf '== %s: skipped (%d s)\n' "$title" "$secs"
  else
    STAGE_RESULTS+=("FAILED")
    printf '== %s: FAILED with exit code %d (%d s)\n' "$title" "$rc" "$secs"
    summary
    exit "$rc"
  fi
}

summary() {
  local i passed=0 failed=0 skipped=0
  printf '\n== stage timings\n'
  for i in "${!STAGE_NAMES[@]}"; do
    printf '  %-8s %5d s  %s\n' "${STAGE_RESULTS[$i]}" "${STAGE_SECS[$i]}" "${STAGE_NAMES[$i]}"
    case "${STAGE_RESULTS[$i]}" in
      passed) passed=$((passed + 1)) ;;
      skipped) skipped=$((skipped + 1)) ;;
      *) failed=$((failed + 1)) ;;
    esac
  done
  printf '  total    %5d s\n' "$SECONDS"
  printf 'stages: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
}

# --- what exists yet ------------------------------------------------------
# Workspace members from the root Cargo.toml (cargo cannot load the workspace
# while any of them lacks a Cargo.toml).
mapfile -t MEMBERS < <(awk '/^members[[:space:]]*=/{f=1} f{print} f&&/\]/{exit}' Cargo.toml | grep -o '"[^"]*"' | tr -d '"')
[[ ${#MEMBERS[@]} -gt 0 ]] || MEMBERS=(crates/sim crates/cli crates/app)
missing_members() {
  local m out=()
  for m in "${MEMBERS[@]}"; do [[ -f "$m/Cargo.toml" ]] || out+=("$m"); done
  echo "${out[*]:-}"
}
need_workspace() {
  local miss
  miss="$(missing_members)"
  [[ -z "$miss" ]] || skip "workspace member(s) without Cargo.toml yet: $miss (cargo cannot load the workspace)"
}
need_crate() {
  [[ -f "$1/Cargo.toml" ]] || skip "$1/Cargo.toml does not exist yet"
}

# Runs "$@" with the wasm32 environment of scripts/wasm-env.sh.
with_wasm_env() {
  # shellcheck source=scripts/wasm-env.sh
  source "$ROOT/scripts/wasm-env.sh"
  printf '  (wasm toolchain: %s)\n' "$SPLITBRAIN_WASM_TOOLCHAIN"
  "$@"
}

# Native stages use the repo's own toolchain, with the tools on PATH.
native_env() {
  local keep="${RUSTUP_TOOLCHAIN-}"
  # shellcheck source=scripts/wasm-env.sh
  source "$ROOT/scripts/wasm-env.sh"
  if [[ -n "$keep" ]]; then export RUSTUP_TOOLCHAIN="$keep"; else unset RUSTUP_TOOLCHAIN; fi
}

# --- stages -----------------------------------------------------------------
stage_setup() {
  if [[ "${SKIP_SETUP:-0}" == 1 ]]; then skip "SKIP_SETUP=1"; fi
  x "$ROOT/scripts/setup.sh"
}

stage_fmt() {
  need_workspace
  native_env
  if ! cargo fmt --version >/dev/null 2>&1; then
    echo "  WARNING: rustfmt is not installed (rustup component add rustfmt); format not checked"
    return $SKIP_RC
  fi
  x cargo fmt --all --check
}

stage_clippy() {
  need_workspace
  native_env
  if ! cargo clippy --version >/dev/null 2>&1; then
    skip "clippy is not installed (rustup component add clippy)"
  fi
  local deny=()
  [[ "${CLIPPY_STRICT:-0}" == 1 ]] && deny=(-- -D warnings)
  x cargo clippy --workspace --exclude splitbrain-app --all-targets "${deny[@]}"
  if [[ -f crates/app/Cargo.toml ]]; then
    source "$ROOT/scripts/wasm-env.sh"
    if [[ "$SPLITBRAIN_WASM_TOOLCHAIN" == default ]]; then
      x cargo clippy -p splitbrain-app --target wasm32-unknown-unknown --all-targets "${deny[@]}"
    else
      echo "  (no clippy for the $SPLITBRAIN_WASM_TOOLCHAIN toolchain: splitbrain-app not linted)"
    fi
  fi
}

stage_native_tests() {
  need_workspace
  native_env
  x cargo test --workspace --exclude splitbrain-app
  # The page's reducer and helpers, natively (nothing there needs a browser; the same tests run
  # in Chromium in app-wasm-test).
  [[ -f crates/app/Cargo.toml ]] && x cargo test -p splitbrain-app --lib
  x python3 scripts/test_check_structure.py
  x python3 scripts/check-structure.py
  # The page names no Kafka topic or group of its own (issue 32); the check shows it can fail.
  x python3 scripts/check-app-literals.py --self-test
  x python3 scripts/check-app-literals.py
}

# zk-replay against Debian's ZooKeeper 3.8 on a loopback port (started and stopped by the script),
# with kazoo from the venv scripts/setup.sh made; the binary is the one `cargo test` built.
stage_zk_diff() {
  need_workspace
  native_env
  local venv="${CARGO_TARGET_DIR:-$ROOT/target}/zkdiff-venv"
  [[ -x "$venv/bin/python" ]] || { echo "  $venv missing: run scripts/setup.sh"; return 1; }
  x cargo test -p splitbrain-cli --no-run --quiet
  x "$venv/bin/python" tests/zk-diff/zkdiff.py --bin "${CARGO_TARGET_DIR:-$ROOT/target}/debug/splitbrain" \
    --seed "${ZKDIFF_SEED:-1}" --ops 10000 --sequences 40 --expiry-sequences 5 --self-check
}

stage_no_std() {
  need_workspace
  native_env
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32v1-none; then
    skip "target wasm32v1-none is not installed (rustup could not download it); no_std not checked"
  fi
  x cargo build -p splitbrain-sim --target wasm32v1-none
  # The log importer is no_std too (it runs in the page's worker).
  x cargo build -p splitbrain-import --target wasm32v1-none
}

stage_sim_wasm_build() {
  need_workspace
  with_wasm_env x cargo build -p splitbrain-sim --target wasm32-unknown-unknown
}

wasm_browser_test() {
  local crate_dir="$1" pkg="$2"
  need_workspace
  [[ -x "${CHROMEDRIVER:-/usr/bin/chromedriver}" ]] || { echo "  chromedriver not found (scripts/setup.sh installs it)"; return 1; }
  # Tests that do not configure a mode run in the browser too.
  export WASM_BINDGEN_USE_BROWSER=1
  # No -q: wasm-bindgen-test-runner rejects --quiet. --tests: no doctests on wasm32.
  with_wasm_env x cargo test -p "$pkg" --target wasm32-unknown-unknown --tests
}
stage_sim_wasm_tests() { wasm_browser_test crates/sim splitbrain-sim; }
stage_app_wasm_tests() { need_crate crates/app; wasm_browser_test crates/app splitbrain-app; }

stage_trunk_build() {
  need_crate crates/app
  need_workspace
  # Fetch once with the network, then let Trunk run fully offline so that a
  # missing tool is an error instead of a download.
  with_wasm_env x cargo fetch
  export TRUNK_OFFLINE=true
  with_wasm_env x trunk build --release
  [[ -f dist/index.html ]] || { echo "  dist/index.html missing after trunk build"; return 1; }
  compgen -G 'dist/*.wasm' >/dev/null || { echo "  no .wasm in dist/ after trunk build"; return 1; }
}

stage_size_report() {
  [[ -f crates/app/Cargo.toml ]] || skip "crates/app/Cargo.toml does not exist yet (no dist/ built)"
  x "$ROOT/scripts/size-report.sh" dist
}

stage_e2e() {
  [[ -f crates/app/Cargo.toml ]] || skip "crates/app/Cargo.toml does not exist yet (no dist/ built)"
  rm -rf tests/screenshots
  x node tests/e2e/run.mjs
}

run_stage setup "setup (scripts/setup.sh)" stage_setup
run_stage fmt "rustfmt (cargo fmt --check)" stage_fmt
run_stage clippy "clippy" stage_clippy
run_stage native "native tests (cargo test --workspace --exclude splitbrain-app)" stage_native_tests
run_stage zk-diff "zk-replay against ZooKeeper 3.8 (tests/zk-diff/zkdiff.py)" stage_zk_diff
run_stage no-std "splitbrain-sim without std (cargo build --target wasm32v1-none)" stage_no_std
run_stage sim-wasm "splitbrain-sim on wasm32 (cargo build --target wasm32-unknown-unknown)" stage_sim_wasm_build
run_stage sim-wasm-test "wasm-bindgen-test crates/sim (headless Chromium)" stage_sim_wasm_tests
run_stage app-wasm-test "wasm-bindgen-test crates/app (headless Chromium)" stage_app_wasm_tests
run_stage trunk "trunk build --release" stage_trunk_build
run_stage size "dist size report" stage_size_report
run_stage e2e "end-to-end tests (node tests/e2e/run.mjs)" stage_e2e

if compgen -G 'tests/screenshots/*.png' >/dev/null; then
  printf '\n== screenshots\n'
  for f in tests/screenshots/*.png; do printf '  %s\n' "$ROOT/$f"; done
fi
summary
