#!/usr/bin/env bash
# Prints the transfer sizes of the built web app (dist/ from `trunk build --release`)
# as a markdown table: raw and `gzip -9` bytes and KB per file, per kind and in total;
# then the playground's two loads, and fails (exit 1) above their budgets:
#   - first paint: every file fetched until the graph is drawn. index.html carries the
#     default scenario's page rendered at build time (crates/app/src/bin/prerender.rs),
#     so that is index.html and style.css (budget FIRST_PAINT_BUDGET_KB, default 25);
#   - live page: what the page fetches until it runs (index.html, style.css, the JS glue
#     and the page's wasm; not the explorer's worker, fetched when a search starts, nor
#     embed/docs pages) (budget LIVE_BUDGET_KB, default 480);
#   - embed widget: what embed.html in an iframe fetches until the widget is drawn and takes
#     keys (embed.html, style.css, the widget's JS glue and wasm: splitbrain-widget*, the app
#     built without the full playground's chrome) (budget EMBED_BUDGET_KB, default 400), and
#     the same for a <div> mounted by splitbrain-embed.js (the host page itself not counted);
#   - embed widget drawn from a snapshot: a <div data-splitbrain> holding its picture rendered
#     at build time (`prerender --embeds`, as dist/docs.html's two do) is drawn before the
#     widget's wasm is fetched, which splitbrain-embed.js does only when the div nears the view;
#     so the host page (docs.html, with both snapshots and the docs' own text), style.css and
#     splitbrain-embed.js (budget EMBED_DRAWN_BUDGET_KB, default 100, the issue's own figure);
#     and an <iframe> whose URL names its snapshot page (`&snapshot=KEY`, the same tool, as
#     dist/blog-sample.html's do): embed.html, style.css and the largest snapshots/*.html.
#   - "Your logs" (logs.html, issue 31): counted only when opened, never in the loads above. Its
#     page (logs.html, style.css, logs.css, the splitbrain-logs JS glue and wasm) and, once logs
#     are given, its import worker (import_worker_loader.js, import_worker.js and its wasm, the
#     only wasm that links splitbrain-import) (budget LOGS_BUDGET_KB, default 600, for both).
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

gzsize() { gzip -9 -c "$1" | wc -c; }
load_row() {
  local name=$1 budget=$2; shift 2
  local sum=0 f
  for f in "$@"; do
    [[ -f "$DIST/$f" ]] || { echo "size-report: $DIST/$f missing" >&2; return 1; }
    sum=$((sum + $(gzsize "$DIST/$f")))
  done
  local verdict="within"
  (( sum <= budget * 1024 )) || verdict="OVER"
  echo "| $name | $* | $sum | $(kb "$sum") | $budget | $verdict |"
  [[ $verdict == within ]]
}
echo
echo "### The playground's loads (gzip -9)"
echo
echo "| load | files | bytes | KB | budget KB | |"
echo "| --- | --- | ---: | ---: | ---: | --- |"
rc=0
if grep -q 'data-testid="first-paint"' "$DIST/index.html"; then
  load_row "first paint (graph drawn)" "${FIRST_PAINT_BUDGET_KB:-25}" index.html style.css || rc=1
else
  echo "| first paint | index.html has no build-time first paint: the graph waits for the live page | | | | OVER |"
  rc=1
fi
load_row "live page (interactive)" "${LIVE_BUDGET_KB:-480}" index.html style.css splitbrain-app.js splitbrain-app_bg.wasm || rc=1
load_row "embed widget, iframe (taking keys)" "${EMBED_BUDGET_KB:-400}" embed.html style.css splitbrain-widget.js splitbrain-widget_bg.wasm || rc=1
load_row "embed widget, div (taking keys)" "${EMBED_BUDGET_KB:-400}" splitbrain-embed.js style.css splitbrain-widget.js splitbrain-widget_bg.wasm || rc=1
if grep -q 'data-testid="snapshot"' "$DIST/docs.html"; then
  load_row "embed widget, div with a build-time snapshot (drawn; host page counted)" "${EMBED_DRAWN_BUDGET_KB:-100}" docs.html style.css splitbrain-embed.js || rc=1
else
  echo "| embed widget, div with a snapshot | docs.html has no build-time snapshot: its widgets wait for the wasm | | | | OVER |"
  rc=1
fi
biggest=$(cd "$DIST" && ls -S snapshots/*.html 2>/dev/null | head -n 1 || true)
if [[ -n "$biggest" ]]; then
  load_row "embed widget, iframe with a build-time snapshot (drawn)" "${EMBED_DRAWN_BUDGET_KB:-100}" embed.html style.css "$biggest" || rc=1
else
  echo "| embed widget, iframe with a snapshot | dist/snapshots/ is empty: blog-sample.html's iframes wait for the wasm | | | | OVER |"
  rc=1
fi
echo
echo "### \"Your logs\" (logs.html): counted only when opened (gzip -9)"
echo
echo "| load | files | bytes | KB | budget KB | |"
echo "| --- | --- | ---: | ---: | ---: | --- |"
load_row "logs page (drawn, taking files)" "${LOGS_BUDGET_KB:-600}" logs.html style.css logs.css splitbrain-logs.js splitbrain-logs_bg.wasm || rc=1
load_row "logs page with its import worker (reading logs)" "${LOGS_BUDGET_KB:-600}" logs.html style.css logs.css splitbrain-logs.js splitbrain-logs_bg.wasm import_worker_loader.js import_worker.js import_worker_bg.wasm || rc=1
exit $rc
