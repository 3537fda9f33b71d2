#!/usr/bin/env bash
# Builds the browser studio into web/dist (a static page: serve it from anywhere, or run
# `hooke studio --web`). Needs the wasm32-unknown-unknown target, wasm-bindgen-cli 0.2.130
# (`cargo install wasm-bindgen-cli --version 0.2.130`) and, optionally, binaryen's wasm-opt.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --locked --profile wasm-release --target wasm32-unknown-unknown -p hooke-studio --lib
out=web/dist
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" \
  "$target/wasm32-unknown-unknown/wasm-release/hooke_studio.wasm"
if [ "${WASM_OPT:-0}" = 1 ] && command -v wasm-opt >/dev/null; then
  wasm-opt -O2 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$out/hooke_studio_bg.wasm" -o "$out/hooke_studio_bg.wasm"
else
  echo "note: wasm-opt skipped (WASM_OPT=1 runs it; binaryen 108 from Debian 12 breaks wasm-bindgen 0.2.130 externref tables)" >&2
fi
cp web/index.html "$out/"
wasm=$(stat -c %s "$out/hooke_studio_bg.wasm")
gz=$(gzip -9 -c "$out/hooke_studio_bg.wasm" | wc -c)
echo "web/dist: hooke_studio_bg.wasm $((wasm / 1024)) KiB ($((gz / 1024)) KiB gzipped)"
