#!/usr/bin/env bash
# Every ```toml example in docs/ must be a scenario that passes `eos-sim check`, and so must
# every file in docs/examples/ (scenarios or lessons), so that the documentation cannot drift
# from the format.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import pathlib, re, sys
out = pathlib.Path(sys.argv[1])
n = 0
for doc in sorted(pathlib.Path("docs").glob("*.md")):
    for i, block in enumerate(re.findall(r"```toml\n(.*?)```", doc.read_text(), re.S)):
        (out / f"{doc.stem}-{i}.toml").write_text(block)
        n += 1
print(f"{n} TOML example(s) in docs/")
PY
shopt -s nullglob
files=("$dir"/*.toml docs/examples/*.toml)
[ ${#files[@]} -gt 0 ] || { echo "no TOML examples found in docs/"; exit 1; }
cargo run --quiet --locked -p eos-core --bin eos-sim -- check "${files[@]}"
