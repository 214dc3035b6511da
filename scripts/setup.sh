#!/usr/bin/env bash
# Installs what building and testing the playground needs, skipping what is present.
# Idempotent: on a ready machine it takes about a second. Safe to run again at any time.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
die() { printf '\033[1;31msetup: %s\033[0m\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

export PATH="$HOME/.cargo/bin:$PATH"

have cargo || die "cargo is missing: install Rust with rustup (https://rustup.rs), then run this again."
have rustup || die "rustup is missing: the wasm32 target is installed through rustup. Install Rust with rustup, then run this again."

# 1. Rust components and the wasm target.
for component in rustfmt clippy; do
  if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
    say "adding the $component component"
    rustup component add "$component"
  fi
done
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 2. Chromium and chromedriver, for the browser tests.
if ! have chromium || ! have chromedriver; then
  if have apt-get && [ "$(id -u)" = 0 ]; then
    say "installing chromium and chromium-driver from apt"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    die "chromium and chromedriver are missing and apt-get cannot install them here (it needs Debian/Ubuntu and root). Install Chromium and a matching ChromeDriver by hand, put both on PATH as 'chromium' and 'chromedriver', then run this again."
  fi
fi

# 3. Trunk, pinned (0.22 needs a newer rustc than this toolchain).
if ! have trunk || [ "$(trunk --version 2>/dev/null | awk '{print $2}')" != "$TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (a few minutes, once)"
  cargo install --locked trunk --version "$TRUNK_VERSION"
fi

# 4. The wasm-bindgen CLI at exactly the version Cargo.lock resolves (not --locked: its own
#    lock file names a crate version this registry lacks).
WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
[ -n "$WBG_VERSION" ] || die "cannot find the wasm-bindgen version in Cargo.lock"
if ! have wasm-bindgen || [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WBG_VERSION" ] \
   || ! have wasm-bindgen-test-runner; then
  say "installing wasm-bindgen-cli $WBG_VERSION (a couple of minutes, once)"
  cargo install wasm-bindgen-cli --version "$WBG_VERSION"
fi
grep -q "wasm_bindgen = \"$WBG_VERSION\"" Trunk.toml \
  || die "Trunk.toml pins a wasm_bindgen version other than Cargo.lock's $WBG_VERSION: make them equal."

# 5. npm packages (wasm-opt from binaryen, terser for the page's JavaScript, playwright-core),
#    from the committed lock file.
have node && have npm || die "node and npm are missing: install Node.js 18 or newer (with npm), then run this again."
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/terser ] \
   || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages from package-lock.json"
  npm ci --no-audit --no-fund --loglevel=error
fi

# 6. Crates, so that later steps may run offline.
cargo fetch --locked >/dev/null 2>&1 || cargo fetch >/dev/null

say "ready"
