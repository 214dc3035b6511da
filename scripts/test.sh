#!/usr/bin/env bash
# Sets up what is missing, then runs every layer, stopping at the first red:
# format, lints, guards, native tests, the authors' check, browser tests, the release
# build, and end-to-end tests against the built site. Ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver || echo /usr/bin/chromedriver)}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# A whole run builds once: incremental state would only take disk (a clean clone's target/
# is several GB) and time.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

passed=0
started=$(date +%s)
step() {
  local name="$1"; shift
  local t0=$(date +%s)
  printf '\n\033[1m== %s\033[0m\n' "$name"
  if "$@"; then
    passed=$((passed + 1))
    printf '\033[32m-- ok: %s (%ss)\033[0m\n' "$name" "$(( $(date +%s) - t0 ))"
  else
    printf '\033[31m-- FAILED: %s\033[0m\n' "$name"
    echo "test: $passed passed, 1 failed (stopped at: $name)"
    exit 1
  fi
}

step "setup" bash scripts/setup.sh
step "cargo fmt --check" cargo fmt --all -- --check
step "cargo clippy -D warnings" cargo clippy --workspace --all-targets --locked -- -D warnings
step "core stays free of web crates and builds for wasm32" bash scripts/check-core-deps.sh
step "native tests" cargo test --workspace --locked
step "eos-sim check over every scenario" cargo run --quiet --locked -p eos-core --bin eos-sim -- check scenarios/*.toml
step "eos-sim check over every lesson" cargo run --quiet --locked -p eos-core --bin eos-sim -- check lessons/*.toml
step "the examples in docs/ pass eos-sim check" bash scripts/check-doc-examples.sh
step "browser tests (wasm-bindgen-test, headless Chromium)" cargo test --locked -p eos-web --target wasm32-unknown-unknown
step "trunk build --release" trunk build --release
step "shipped size" bash scripts/size.sh
step "end-to-end (playwright-core, headless Chromium)" node e2e/run.mjs

echo
echo "test: $passed passed, 0 failed ($(( $(date +%s) - started ))s)"
