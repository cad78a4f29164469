#!/usr/bin/env bash
# The Quint specification's checks (issue 35, docs/spec.md):
#   1. installs the pinned Quint under spec/ when missing (npm ci from spec/package-lock.json);
#   2. the bounded random search (`quint run --backend typescript`) of the three properties in
#      1.0 (legacy) and 2.1 (fenced);
#   3. the incident as a schedule of spec actions (spec/incident.qnt, `quint test`);
#   4. trace validation: the simulator's built-in scenarios, projected onto the spec's actions by
#      crates/sim/tests/spec_traces.rs, each run with `quint test`.
# Prints one JSON line last:
#   {"legacy_violation": .., "fenced_violation": .., "samples": N, "traces_validated": N, "traces_rejected": N}
#
#   scripts/spec-check.sh              full run
#   SPEC_QUICK=1 scripts/spec-check.sh the CI version (fewer samples, two traces)
#   SPEC_SAMPLES=N SPEC_STEPS=M SPEC_SEED=S override the search bounds
# Exit status: 0 when legacy violates, fenced does not, the incident tests pass and no trace is
# rejected; 1 otherwise. Works offline once spec/node_modules is installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SPEC="$ROOT/spec"
QUINT_VERSION=0.33.1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

if [[ "${SPEC_QUICK:-0}" == 1 ]]; then
  SAMPLES="${SPEC_SAMPLES:-300}"
  STEPS="${SPEC_STEPS:-40}"
else
  SAMPLES="${SPEC_SAMPLES:-3000}"
  STEPS="${SPEC_STEPS:-40}"
fi
SEED="${SPEC_SEED:-1}"

# 1. Quint, pinned (npm's 0.33.1 needs antlr4ts 0.5.0-alpha.4: spec/package.json's override).
quint_ok() { [[ -x "$SPEC/node_modules/.bin/quint" ]] && [[ "$("$SPEC/node_modules/.bin/quint" --version 2>/dev/null)" == "$QUINT_VERSION" ]]; }
if ! quint_ok; then
  echo "== installing Quint $QUINT_VERSION under spec/ (npm ci)"
  (cd "$SPEC" && npm ci --no-audit --no-fund --prefer-offline)
  quint_ok || { echo "spec-check: Quint $QUINT_VERSION did not install" >&2; exit 1; }
fi
QUINT="$SPEC/node_modules/.bin/quint"
cd "$SPEC"

# 2. The bounded search. `quint run` exits non-zero on a violation.
legacy_violation=false
fenced_violation=false
for inv in coordinatorLed noDeposedWrite cacheAgrees; do
  for init in initLegacy initFenced; do
    start=$SECONDS
    if out=$("$QUINT" run --backend typescript --init "$init" --invariant "$inv" \
      --max-samples "$SAMPLES" --max-steps "$STEPS" --seed "$SEED" --verbosity 1 properties.qnt 2>&1); then
      verdict="no violation"
    else
      if grep -q "violation\] Found" <<<"$out"; then
        verdict="VIOLATED"
        [[ $init == initLegacy ]] && legacy_violation=true || fenced_violation=true
      else
        echo "$out" | tail -20 >&2
        echo "spec-check: quint run failed for $inv/$init" >&2
        exit 1
      fi
    fi
    seed=$(grep -o 'seed=0x[0-9a-f]*' <<<"$out" | tail -1 || true)
    printf '  search %-15s %-10s %s (%d samples x %d steps, --seed %s, reproduce with %s, %d s)\n' \
      "$inv" "$init" "$verdict" "$SAMPLES" "$STEPS" "$SEED" "$seed" $((SECONDS - start))
  done
done

# 3. The incident's schedule, 1.0 and 2.1.
incident_ok=true
if ! "$QUINT" test --backend typescript incident.qnt >/tmp/spec-incident.$$ 2>&1; then
  incident_ok=false
  grep -v '^\s*\^\|^ *[0-9]*:' /tmp/spec-incident.$$ | head -20 >&2
fi
rm -f /tmp/spec-incident.$$
echo "  incident.qnt (1.0 reaches leader -1, 2.1 refuses the write): $([[ $incident_ok == true ]] && echo passed || echo FAILED)"

# 4. Trace validation.
echo "== projecting the simulator's traces (cargo test -p splitbrain-sim --test spec_traces)"
rm -rf "$SPEC/traces/generated"
(cd "$ROOT" && cargo test -q -p splitbrain-sim --test spec_traces >/dev/null)
validated=0
rejected=0
traces=("$SPEC"/traces/generated/*.qnt)
if [[ "${SPEC_QUICK:-0}" == 1 ]]; then
  traces=("$SPEC/traces/generated/seed-incident-legacy.qnt" "$SPEC/traces/generated/seed-incident-fenced.qnt")
fi
for f in "${traces[@]}"; do
  start=$SECONDS
  if "$QUINT" test --backend typescript --match traceTest "$f" >/tmp/spec-trace.$$ 2>&1; then
    validated=$((validated + 1))
    printf '  trace %-40s validated (%d s)\n' "$(basename "$f")" $((SECONDS - start))
  else
    rejected=$((rejected + 1))
    why=$(grep -o 'Error \[QNT[0-9]*\]: [^"]*"*[a-z]*"*' /tmp/spec-trace.$$ | head -1)
    printf '  trace %-40s REJECTED: %s (%d s)\n' "$(basename "$f")" "$why" $((SECONDS - start))
  fi
done
rm -f /tmp/spec-trace.$$
if [[ -s "$SPEC/traces/generated/SKIPPED.txt" ]]; then
  echo "  not projected:"; sed 's/^/    /' "$SPEC/traces/generated/SKIPPED.txt"
fi

printf '{"legacy_violation": %s, "fenced_violation": %s, "samples": %d, "traces_validated": %d, "traces_rejected": %d}\n' \
  "$legacy_violation" "$fenced_violation" "$SAMPLES" "$validated" "$rejected"
[[ $legacy_violation == true && $fenced_violation == false && $incident_ok == true && $rejected == 0 ]]
