#!/usr/bin/env bash
# Installs what `scripts/serve.sh` and `scripts/test.sh` need. Idempotent: every
# step checks first and skips what is already installed at the right version.
#
#   scripts/setup.sh                 everything
#   scripts/setup.sh --no-browser    skip Chromium/ChromeDriver (enough for serve.sh)
#   scripts/setup.sh --force-debian-wasm
#                                    use the Debian wasm32 fallback even if rustup works
#
# Steps:
#   1. rustup target wasm32-unknown-unknown (timeout 300 s), verified by a real
#      wasm32 build of a throwaway crate; if that fails, the Debian fallback
#      (rustc-web 1.96 + wasm32 std built once into its sysroot + lld-22, linked
#      as the rustup toolchain `debian-wasm`). The choice is written to
#      target/.wasm-toolchain and picked up by `source scripts/wasm-env.sh`.
#   2. wasm-bindgen-cli 0.2.130 (wasm-bindgen, wasm-bindgen-test-runner)
#   3. trunk 0.21.14
#   4. npm packages in tests/ (binaryen@132 -> wasm-opt, playwright-core)
#   5. Debian chromium + chromium-driver (unless --no-browser)
#   6. Debian zookeeper (3.8, with a JRE) and kazoo 2.11.0 from PyPI in target/zkdiff-venv,
#      for the zk-diff stage
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

WASM_BINDGEN_VERSION="0.2.130"
TRUNK_VERSION="0.21.14"
DEBIAN_TOOLCHAIN="debian-wasm"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
TOOLCHAIN_FILE="$TARGET_DIR/.wasm-toolchain"
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"

WITH_BROWSER=1
FORCE_DEBIAN=0
for arg in "$@"; do
  case "$arg" in
    --no-browser) WITH_BROWSER=0 ;;
    --force-debian-wasm) FORCE_DEBIAN=1 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done
[[ "${SPLITBRAIN_FORCE_DEBIAN_WASM:-0}" == 1 ]] && FORCE_DEBIAN=1

log() { printf '[setup] %s\n' "$*"; }
warn() { printf '[setup] WARNING: %s\n' "$*" >&2; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }
run() { printf '[setup] $ %s\n' "$*"; "$@"; }

case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) export PATH="$CARGO_BIN:$PATH" ;; esac

SUDO=""
if [[ "$(id -u)" != 0 ]]; then
  command -v sudo >/dev/null 2>&1 || die "not root and no sudo: cannot install Debian packages"
  SUDO="sudo"
fi

APT_UPDATED=0
apt_install() {
  local missing=()
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "Debian packages already installed: $*"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install these packages by hand: ${missing[*]}"
  if [[ $APT_UPDATED == 0 ]]; then
    run $SUDO apt-get update -q
    APT_UPDATED=1
  fi
  run $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

SECONDS=0
step_start=0
step() { step_start=$SECONDS; log "=== $* ==="; }
step_done() { log "    done in $((SECONDS - step_start)) s"; }

command -v cargo >/dev/null 2>&1 || die "cargo not found (install rustup stable first)"
command -v rustup >/dev/null 2>&1 || die "rustup not found (install rustup stable first)"
command -v node >/dev/null 2>&1 || die "node not found (Node.js 20+ with npm is required)"
command -v npm >/dev/null 2>&1 || die "npm not found (Node.js 20+ with npm is required)"

# ---------------------------------------------------------------------------
# 1. wasm32 target
# ---------------------------------------------------------------------------

# verify_wasm_build TOOLCHAIN : build a throwaway cdylib that uses std for wasm32.
verify_wasm_build() {
  local tc="$1" dir rc
  dir="$(mktemp -d)"
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<'EOF'
[package]
name = "wasm-probe"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
crate-type = ["cdylib"]
path = "src/lib.rs"

[workspace]
EOF
  cat >"$dir/src/lib.rs" <<'EOF'
use std::collections::BTreeMap;

#[no_mangle]
pub extern "C" fn probe(n: u32) -> u32 {
    let mut m = BTreeMap::new();
    for i in 0..n {
        m.insert(i, format!("{i}"));
    }
    m.values().map(|s| s.len() as u32).sum()
}
EOF
  rc=0
  (
    cd "$dir"
    if [[ "$tc" == default ]]; then unset RUSTUP_TOOLCHAIN; else export RUSTUP_TOOLCHAIN="$tc"; fi
    CARGO_TARGET_DIR="$dir/target" cargo build --quiet --release --offline --target wasm32-unknown-unknown
  ) >"$dir/build.log" 2>&1 || rc=$?
  if [[ $rc == 0 && -s "$dir/target/wasm32-unknown-unknown/release/wasm_probe.wasm" ]]; then
    rm -rf "$dir"
    return 0
  fi
  sed 's/^/[setup]     | /' "$dir/build.log" | tail -n 15 >&2
  rm -rf "$dir"
  return 1
}

# The toolchain cargo picks in the repo (rust-toolchain.toml, override or default).
repo_toolchain() {
  (unset RUSTUP_TOOLCHAIN; rustup show active-toolchain 2>/dev/null | awk '{print $1; exit}')
}

record_toolchain() {
  mkdir -p "$TARGET_DIR"
  echo "$1" >"$TOOLCHAIN_FILE"
  log "wasm builds use toolchain '$1' (written to ${TOOLCHAIN_FILE#"$ROOT"/}; source scripts/wasm-env.sh)"
}

debian_fallback() {
  log "Debian fallback: Debian's rustc-web (1.96) with a wasm32 std built once into its sysroot"
  apt_install rustc-web cargo-web rust-web-src lld-22

  [[ -x /usr/bin/rustc && -x /usr/bin/cargo ]] || die "Debian's /usr/bin/rustc or /usr/bin/cargo is missing after install"
  local host sysroot libdir vendor stamp want
  host="$(/usr/bin/rustc -vV | sed -n 's/^host: //p')"
  sysroot="$(/usr/bin/rustc --print sysroot)"
  libdir="$sysroot/lib/rustlib/wasm32-unknown-unknown/lib"
  vendor="$sysroot/lib/rustlib/src/rust/library/vendor"
  stamp="$libdir/.splitbrain-std-stamp"
  want="$(/usr/bin/rustc -vV | tr '\n' ' ')"

  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && compgen -G "$libdir/libstd-*.rlib" >/dev/null; then
    log "wasm32 std for Debian rustc already in $libdir"
  else
    [[ -d "$vendor" ]] || die "Debian's vendored library sources not found at $vendor (package rust-web-src)"
    log "building the wasm32 std from Debian's sources (about 1 min on 2 cores)"
    local dir
    dir="$(mktemp -d)"
    mkdir -p "$dir/src"
    printf '[package]\nname = "std-probe"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n' >"$dir/Cargo.toml"
    echo 'pub fn f() -> usize { std::vec![1u8].len() }' >"$dir/src/lib.rs"
    (
      cd "$dir"
      # rustup's ~/.cargo/bin proxies must not shadow Debian's compiler here.
      env -u RUSTUP_TOOLCHAIN PATH="/usr/bin:$PATH" \
        RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS=-Cembed-bitcode=yes \
        CARGO_TARGET_DIR="$dir/target" \
        /usr/bin/cargo build --release --target wasm32-unknown-unknown \
        -Zbuild-std=std,panic_abort,test \
        --config 'source.crates-io.replace-with="debian-vendor"' \
        --config "source.debian-vendor.directory=\"$vendor\""
    ) || { rm -rf "$dir"; die "building the wasm32 std with Debian's cargo failed"; }
    run $SUDO mkdir -p "$libdir"
    $SUDO find "$libdir" -maxdepth 1 \( -name '*.rlib' -o -name '*.rmeta' \) -delete
    local f n=0
    for f in "$dir"/target/wasm32-unknown-unknown/release/deps/*.rlib "$dir"/target/wasm32-unknown-unknown/release/deps/*.rmeta; do
      case "$(basename "$f")" in libstd_probe-*) continue ;; esac
      $SUDO cp "$f" "$libdir/"
      n=$((n + 1))
    done
    log "copied $n std rlib/rmeta files to $libdir"
    echo "$want" | $SUDO tee "$stamp" >/dev/null
    rm -rf "$dir"
  fi

  # rustc's default wasm linker is rust-lld; Debian does not ship it.
  local lld="" v
  for v in 22 21 20 19; do
    if [[ -x "/usr/lib/llvm-$v/bin/lld" ]]; then lld="/usr/lib/llvm-$v/bin/lld"; break; fi
  done
  [[ -n "$lld" ]] || die "no /usr/lib/llvm-*/bin/lld found (package lld-22)"
  local rust_lld="$sysroot/lib/rustlib/$host/bin/rust-lld"
  if [[ -e "$rust_lld" ]]; then
    log "rust-lld already present: $rust_lld"
  else
    run $SUDO mkdir -p "$(dirname "$rust_lld")"
    run $SUDO ln -sf "$lld" "$rust_lld"
  fi

  # A rustup toolchain whose cargo/rustc/rustdoc are Debian's.
  local tcdir="${RUSTUP_HOME:-$HOME/.rustup}/splitbrain-debian-wasm"
  mkdir -p "$tcdir/bin" "$tcdir/lib"
  for v in cargo rustc rustdoc; do ln -sf "/usr/bin/$v" "$tcdir/bin/$v"; done
  if rustup toolchain list | grep -q "^$DEBIAN_TOOLCHAIN"; then
    log "rustup toolchain $DEBIAN_TOOLCHAIN already linked"
  else
    run rustup toolchain link "$DEBIAN_TOOLCHAIN" "$tcdir"
  fi

  log "verifying a wasm32 build with toolchain $DEBIAN_TOOLCHAIN"
  verify_wasm_build "$DEBIAN_TOOLCHAIN" || die "wasm32 build with the Debian fallback failed"
  record_toolchain "$DEBIAN_TOOLCHAIN"
}

step "wasm32-unknown-unknown target"
if [[ $FORCE_DEBIAN == 1 ]]; then
  log "--force-debian-wasm: skipping the rustup route"
  debian_fallback
else
  TC="$(repo_toolchain)"
  log "repo toolchain: ${TC:-unknown}"
  if (unset RUSTUP_TOOLCHAIN; rustup target list --installed 2>/dev/null) | grep -qx wasm32-unknown-unknown; then
    log "rustup target wasm32-unknown-unknown already installed"
  else
    (unset RUSTUP_TOOLCHAIN; run timeout 300 rustup target add wasm32-unknown-unknown) \
      || warn "rustup target add failed or timed out"
  fi
  log "verifying a real wasm32 build of a throwaway crate"
  if verify_wasm_build default; then
    log "rustup's wasm32 target works"
    record_toolchain default
  else
    warn "wasm32 build with rustup's toolchain failed; using the Debian fallback"
    debian_fallback
  fi
fi
step_done

# A target without std proves splitbrain-sim is really no_std (wasm32-unknown-unknown has std).
# Best effort: when rustup cannot download it, test.sh says so and skips that one check.
step "wasm32v1-none target (no_std check, optional)"
if (unset RUSTUP_TOOLCHAIN; rustup target list --installed 2>/dev/null) | grep -qx wasm32v1-none; then
  log "rustup target wasm32v1-none already installed"
else
  (unset RUSTUP_TOOLCHAIN; run timeout 180 rustup target add wasm32v1-none) \
    || warn "rustup could not add wasm32v1-none; the no_std build check will be skipped"
fi
step_done

# ---------------------------------------------------------------------------
# 2. wasm-bindgen-cli (version must equal the wasm-bindgen crate in Cargo.lock)
# ---------------------------------------------------------------------------
step "wasm-bindgen-cli $WASM_BINDGEN_VERSION"
if [[ -f Cargo.lock ]]; then
  lock_wb="$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)"
  if [[ -n "$lock_wb" && "$lock_wb" != "$WASM_BINDGEN_VERSION" ]]; then
    warn "Cargo.lock has wasm-bindgen $lock_wb but the tools are pinned to $WASM_BINDGEN_VERSION (pin wasm-bindgen = \"=$WASM_BINDGEN_VERSION\")"
  fi
fi
have_wb="$("$CARGO_BIN/wasm-bindgen" --version 2>/dev/null | awk '{print $2}' || true)"
have_wbtr=0
[[ -x "$CARGO_BIN/wasm-bindgen-test-runner" ]] && have_wbtr=1
if [[ "$have_wb" == "$WASM_BINDGEN_VERSION" && $have_wbtr == 1 ]]; then
  log "wasm-bindgen $have_wb already installed"
else
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (found: ${have_wb:-none}; about 4 min)"
  # No --locked: its lock file pins a crate version the registry may not serve.
  (unset RUSTUP_TOOLCHAIN; run cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force)
fi
step_done

# ---------------------------------------------------------------------------
# 3. trunk
# ---------------------------------------------------------------------------
step "trunk $TRUNK_VERSION"
have_trunk="$("$CARGO_BIN/trunk" --version 2>/dev/null | awk '{print $2}' || true)"
if [[ "$have_trunk" == "$TRUNK_VERSION" ]]; then
  log "trunk $have_trunk already installed"
else
  log "installing trunk $TRUNK_VERSION (found: ${have_trunk:-none}; 9-20 min on 2 cores)"
  # --locked is required: without it a newer cssparser breaks lightningcss.
  (unset RUSTUP_TOOLCHAIN; run cargo install trunk --version "$TRUNK_VERSION" --locked --force)
fi
step_done

# ---------------------------------------------------------------------------
# 4. npm packages (wasm-opt from binaryen@132, playwright-core)
# ---------------------------------------------------------------------------
step "npm packages in tests/ (binaryen -> wasm-opt, playwright-core)"
npm_ok() {
  [[ -f tests/node_modules/.package-lock.json ]] || return 1
  # node_modules must be at least as new as the lock file
  [[ ! tests/package-lock.json -nt tests/node_modules/.package-lock.json ]] || return 1
  tests/node_modules/.bin/wasm-opt --version 2>/dev/null | grep -q 'version_132' || return 1
  (cd tests && node -e "require.resolve('playwright-core')") >/dev/null 2>&1 || return 1
}
if npm_ok; then
  log "tests/node_modules up to date ($(tests/node_modules/.bin/wasm-opt --version))"
else
  (cd tests && run npm ci --no-audit --no-fund)
  npm_ok || die "npm packages in tests/ not usable after npm ci"
  log "$(tests/node_modules/.bin/wasm-opt --version)"
fi
step_done

# ---------------------------------------------------------------------------
# 5. Chromium + ChromeDriver (headless browser tests)
# ---------------------------------------------------------------------------
if [[ $WITH_BROWSER == 1 ]]; then
  step "chromium + chromium-driver"
  if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
    log "already installed: $(/usr/bin/chromium --version 2>/dev/null || echo chromium), $(/usr/bin/chromedriver --version 2>/dev/null | awk '{print $1, $2}')"
  else
    apt_install chromium chromium-driver
  fi
  step_done
else
  log "--no-browser: skipping chromium/chromium-driver"
fi

# ---------------------------------------------------------------------------
# 6. ZooKeeper 3.8 and kazoo (tests/zk-diff/zkdiff.py)
# ---------------------------------------------------------------------------
KAZOO_VERSION="2.11.0"
step "zookeeper (Debian) + kazoo $KAZOO_VERSION (venv)"
if [[ -f /usr/share/java/zookeeper.jar ]] && command -v java >/dev/null 2>&1; then
  log "zookeeper already installed: $(readlink -f /usr/share/java/zookeeper.jar)"
else
  apt_install zookeeper
fi
ZKDIFF_VENV="$TARGET_DIR/zkdiff-venv"
if [[ -x "$ZKDIFF_VENV/bin/python" ]] && "$ZKDIFF_VENV/bin/python" -c \
  "import importlib.metadata as m, sys; sys.exit(m.version('kazoo') != '$KAZOO_VERSION')" 2>/dev/null; then
  log "kazoo $KAZOO_VERSION already in ${ZKDIFF_VENV#"$ROOT"/}"
else
  command -v python3 >/dev/null 2>&1 || apt_install python3 python3-venv
  python3 -m venv "$ZKDIFF_VENV" 2>/dev/null || { apt_install python3-venv; python3 -m venv "$ZKDIFF_VENV"; }
  run "$ZKDIFF_VENV/bin/pip" install --quiet --disable-pip-version-check "kazoo==$KAZOO_VERSION"
fi
step_done

log "setup complete in ${SECONDS} s"
