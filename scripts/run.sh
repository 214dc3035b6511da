#!/usr/bin/env bash
# Sets up what is missing, builds the release site, and serves it at http://127.0.0.1:8080.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
trunk build --release
PORT="${PORT:-8080}"
printf '\n\033[1mThe Exactly-Once Playground is at http://127.0.0.1:%s/\033[0m  (Ctrl+C stops it)\n\n' "$PORT"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist
