#!/usr/bin/env bash
# Shipped size of the release site (wasm + JS + CSS), raw and gzipped -9. Fails past the
# budget so that a size regression is noticed. Run after `trunk build --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET_GZ_BYTES=${BUDGET_GZ_BYTES:-560000}
[ -d dist ] || { echo "no dist/: run trunk build --release first"; exit 1; }
total_raw=0; total_gz=0
for f in dist/*.wasm dist/*.js dist/*.css; do
  [ -e "$f" ] || continue
  raw=$(wc -c < "$f"); gz=$(gzip -9 -c "$f" | wc -c)
  printf '%-40s %9d bytes  %9d gzipped\n' "$(basename "$f")" "$raw" "$gz"
  total_raw=$((total_raw + raw)); total_gz=$((total_gz + gz))
done
printf '%-40s %9d bytes  %9d gzipped (budget %d)\n' "total" "$total_raw" "$total_gz" "$BUDGET_GZ_BYTES"
[ "$total_gz" -le "$BUDGET_GZ_BYTES" ] || { echo "over the size budget"; exit 1; }
