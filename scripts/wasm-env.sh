# shellcheck shell=bash
# Source this file (do not execute it) to get the environment for wasm32 builds:
#
#   source scripts/wasm-env.sh
#   cargo build -p splitbrain-sim --target wasm32-unknown-unknown
#   trunk build --release
#
# It
#   * puts ~/.cargo/bin (wasm-bindgen, wasm-bindgen-test-runner, trunk) and
#     tests/node_modules/.bin (wasm-opt from npm binaryen@132) first on PATH, so
#     Trunk finds the pinned tool versions and never downloads them;
#   * selects the Rust toolchain that can build wasm32, as recorded by
#     scripts/setup.sh in target/.wasm-toolchain:
#       "default"     -> the rustup toolchain with the wasm32 target (RUSTUP_TOOLCHAIN untouched)
#       "debian-wasm" -> Debian's rustc 1.96 with a prebuilt wasm32 std (RUSTUP_TOOLCHAIN=debian-wasm)
#   * sets the variables for wasm-bindgen-test in headless Chromium.
#
# Native builds (cargo test on the host, clippy, rustfmt) should NOT run with this
# environment when the toolchain is debian-wasm (that toolchain has no clippy/rustfmt).

SPLITBRAIN_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SPLITBRAIN_ROOT

_sb_path_prepend() {
  case ":${PATH}:" in
    *":$1:"*) ;;
    *) PATH="$1:${PATH}" ;;
  esac
}
_sb_path_prepend "${SPLITBRAIN_ROOT}/tests/node_modules/.bin"
_sb_path_prepend "${CARGO_HOME:-$HOME/.cargo}/bin"
unset -f _sb_path_prepend
export PATH

SPLITBRAIN_WASM_TOOLCHAIN_FILE="${CARGO_TARGET_DIR:-${SPLITBRAIN_ROOT}/target}/.wasm-toolchain"
if [[ -s "${SPLITBRAIN_WASM_TOOLCHAIN_FILE}" ]]; then
  SPLITBRAIN_WASM_TOOLCHAIN="$(tr -d '[:space:]' <"${SPLITBRAIN_WASM_TOOLCHAIN_FILE}")"
elif command -v rustup >/dev/null 2>&1 \
  && ! rustup target list --installed 2>/dev/null | grep -qx 'wasm32-unknown-unknown' \
  && rustup toolchain list 2>/dev/null | grep -q '^debian-wasm'; then
  # setup.sh has not recorded a choice (e.g. after `cargo clean`), but the
  # fallback toolchain exists and rustup has no wasm32 target.
  SPLITBRAIN_WASM_TOOLCHAIN="debian-wasm"
else
  SPLITBRAIN_WASM_TOOLCHAIN="default"
fi
export SPLITBRAIN_WASM_TOOLCHAIN
if [[ "${SPLITBRAIN_WASM_TOOLCHAIN}" != "default" ]]; then
  export RUSTUP_TOOLCHAIN="${SPLITBRAIN_WASM_TOOLCHAIN}"
fi

# wasm-bindgen-test in headless Chromium (cargo test --target wasm32-unknown-unknown).
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER:-wasm-bindgen-test-runner}"
if [[ -z "${CHROMEDRIVER:-}" && -x /usr/bin/chromedriver ]]; then
  export CHROMEDRIVER=/usr/bin/chromedriver
fi
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="${WASM_BINDGEN_TEST_WEBDRIVER_JSON:-${SPLITBRAIN_ROOT}/tests/webdriver.json}"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"

# Trunk: no update check over the network. (TRUNK_OFFLINE=true would also pass
# --offline to cargo, so the scripts set it only after `cargo fetch`.)
export TRUNK_SKIP_VERSION_CHECK=true
