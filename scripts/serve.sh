#!/usr/bin/env bash
# Builds the web app and serves it with live reload: http://127.0.0.1:8080/
#
#   scripts/serve.sh [extra trunk serve arguments]
#   SKIP_SETUP=1        skip scripts/setup.sh (which runs with --no-browser here)
#   ADDRESS=0.0.0.0     listen address (default 127.0.0.1)
#   PORT=9000           port (default 8080)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [[ "${SKIP_SETUP:-0}" != 1 ]]; then
  echo "[serve] running scripts/setup.sh --no-browser (SKIP_SETUP=1 skips it)"
  "$ROOT/scripts/setup.sh" --no-browser
fi

[[ -f crates/app/Cargo.toml ]] || { echo "[serve] crates/app/Cargo.toml does not exist yet: nothing to serve" >&2; exit 1; }

# shellcheck source=scripts/wasm-env.sh
source "$ROOT/scripts/wasm-env.sh"
echo "[serve] wasm toolchain: $SPLITBRAIN_WASM_TOOLCHAIN; wasm-bindgen: $(command -v wasm-bindgen); wasm-opt: $(command -v wasm-opt)"

# Fetch the crates once, then run Trunk offline: it then never tries to download
# wasm-bindgen or wasm-opt (a wrong version on PATH is a plain error).
echo "[serve] \$ cargo fetch"
cargo fetch
export TRUNK_OFFLINE=true

ADDRESS="${ADDRESS:-127.0.0.1}"
PORT="${PORT:-8080}"
echo "[serve] \$ trunk serve --open=false --address $ADDRESS --port $PORT $*"
echo "[serve] open http://$ADDRESS:$PORT/ once the build has finished"
exec trunk serve --open=false --address "$ADDRESS" --port "$PORT" "$@"
