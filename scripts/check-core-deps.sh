#!/usr/bin/env bash
# The core must know nothing of the web: no yew, web-sys, js-sys, wasm-bindgen or gloo in
# its normal dependency tree, and it must build for both native and wasm32.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$(cargo tree -p eos-core -e normal --prefix none --locked)
if bad=$(echo "$tree" | grep -E '^(yew|web-sys|js-sys|wasm-bindgen|gloo)[a-z-]* ' | sort -u) && [ -n "$bad" ]; then
  echo "eos-core depends on web crates:"
  echo "$bad"
  exit 1
fi
echo "eos-core dependencies: $(echo "$tree" | awk '{print $1}' | sort -u | tr '\n' ' ')"
cargo build --locked -p eos-core --lib --target wasm32-unknown-unknown
