#!/usr/bin/env bash
# Compares what two builds of the CLI print for every built-in scenario in every mode:
# `run NAME --mode M --json` (with the structured fields named in IGNORE removed first) and the
# readable `run NAME --mode M`, plus the golden trace, and a few explorer runs.
#
#   scripts/trace-compare.sh [BASE_REV]      (default 341df54, main before the core redesign)
#
# It builds BASE_REV in a git worktree under target/trace-compare/, builds the working tree, and
# prints one line per comparison; it exits 1 if any output differs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BASE_REV="${1:-341df54}"
IGNORE="${IGNORE:-marks}"
WORK="$ROOT/target/trace-compare"
mkdir -p "$WORK"
BASE_TREE="${BASE_TREE:-$WORK/base}" # an existing checkout of BASE_REV may be given
if [[ ! -d "$BASE_TREE" ]]; then
  git worktree add --detach "$BASE_TREE" "$BASE_REV" >/dev/null
else
  git -C "$BASE_TREE" checkout --quiet --detach "$BASE_REV"
fi
(cd "$BASE_TREE" && cargo build --quiet --release -p splitbrain-cli)
cargo build --quiet --release -p splitbrain-cli
OLD="$BASE_TREE/target/release/splitbrain"
NEW="$ROOT/target/release/splitbrain"

strip() { jq -c "del($(echo "$IGNORE" | sed 's/[^ ,]\+/.&/g'))"; }

diffs=0
compare() { # label, then the command's arguments
  local label="$1"; shift
  "$OLD" "$@" >"$WORK/old.out" 2>&1 || true
  "$NEW" "$@" >"$WORK/new.out" 2>&1 || true
  if [[ " $* " == *" explore "* ]]; then # the explorer's JSON carries its wall-clock time
    jq -c 'del(.result.seconds)' <"$WORK/old.out" >"$WORK/old.cmp"
    jq -c 'del(.result.seconds)' <"$WORK/new.out" >"$WORK/new.cmp"
  elif [[ " $* " == *" --json "* ]]; then
    strip <"$WORK/old.out" >"$WORK/old.cmp"; strip <"$WORK/new.out" >"$WORK/new.cmp"
  else
    cp "$WORK/old.out" "$WORK/old.cmp"; cp "$WORK/new.out" "$WORK/new.cmp"
  fi
  if cmp -s "$WORK/old.cmp" "$WORK/new.cmp"; then
    printf 'same     %-40s %6d lines\n' "$label" "$(wc -l <"$WORK/new.cmp")"
  else
    printf 'DIFFERS  %-40s\n' "$label"
    diff "$WORK/old.cmp" "$WORK/new.cmp" | head -n 6
    diffs=$((diffs + 1))
  fi
}

names=$("$NEW" scenarios | awk '{print $1}')
for n in $names; do
  for m in legacy 1.1 fenced kraft; do
    compare "run $n --mode $m --json" run "$n" --mode "$m" --json
    compare "run $n --mode $m" run "$n" --mode "$m"
  done
  compare "run $n (its own mode) --json" run "$n" --json
  compare "run $n --seed 7 --json" run "$n" --seed 7 --json
done
for m in legacy 1.1 fenced kraft; do
  compare "explore --mode $m --seed 3" explore --mode "$m" --seed 3 --budget-schedules 150 --json
done
compare "explore 1.1 --operator" explore --mode 1.1 --operator --seed 3 --budget-schedules 150 --json
if [[ $diffs -gt 0 ]]; then
  echo "trace-compare: $diffs outputs differ from $BASE_REV"
  exit 1
fi
echo "trace-compare: every output is the same as $BASE_REV's (ignoring: $IGNORE)"
