#!/usr/bin/env bash
# Prints the transfer sizes of the built web app (dist/ from `trunk build --release`)
# as a markdown table: raw and `gzip -9` bytes and KB per file, per kind and in total.
#
#   scripts/size-report.sh [DIST_DIR]      (default: dist)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="${1:-$ROOT/dist}"
[[ -d "$DIST" ]] || { echo "size-report: $DIST not found; run trunk build --release first" >&2; exit 1; }

kb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1024 }'; }

declare -A RAW GZ
total_raw=0
total_gz=0
rows=()
while IFS= read -r -d '' f; do
  case "$f" in
    *.wasm) kind=wasm ;;
    *.js | *.mjs) kind=js ;;
    *.css) kind=css ;;
    *.html) kind=html ;;
    *) kind=other ;;
  esac
  raw=$(wc -c <"$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  RAW[$kind]=$(( ${RAW[$kind]:-0} + raw ))
  GZ[$kind]=$(( ${GZ[$kind]:-0} + gz ))
  total_raw=$((total_raw + raw))
  total_gz=$((total_gz + gz))
  rows+=("| \`${f#"$DIST"/}\` | $kind | $raw | $(kb "$raw") | $gz | $(kb "$gz") |")
done < <(find "$DIST" -type f -print0 | sort -z)

echo "### Transfer sizes of \`${DIST#"$ROOT"/}/\`"
echo
echo "| file | kind | raw bytes | raw KB | gzip -9 bytes | gzip -9 KB |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
for r in "${rows[@]}"; do echo "$r"; done
for kind in wasm js css html other; do
  [[ -n "${RAW[$kind]:-}" ]] || continue
  echo "| **all $kind** | $kind | ${RAW[$kind]} | $(kb "${RAW[$kind]}") | ${GZ[$kind]} | $(kb "${GZ[$kind]}") |"
done
echo "| **total** | | $total_raw | $(kb "$total_raw") | $total_gz | $(kb "$total_gz") |"
