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
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
  --out-dir "$out" \
  "$target/wasm32-unknown-unknown/wasm-release/hooke_studio.wasm"
# binaryen's wasm-opt, pinned in web/package.json (npm; Debian's binaryen 108 breaks the
# externref tables of wasm-bindgen 0.2.130). -O1: -Os and -Oz shrink the raw file further
# but not the gzipped one, and take four times as long.
wasm_opt=web/node_modules/.bin/wasm-opt
if [ "${WASM_OPT:-1}" = 1 ] && [ -x "$wasm_opt" ]; then
  "$wasm_opt" -O1 --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$out/hooke_studio_bg.wasm" -o "$out/hooke_studio_bg.wasm"
  optimised="$("$wasm_opt" --version) -O1"
else
  echo "note: wasm-opt skipped (run cargo xtask setup for the pinned binaryen; WASM_OPT=0 skips it)" >&2
  optimised=""
fi
cp web/index.html "$out/"
wasm=$(stat -c %s "$out/hooke_studio_bg.wasm")
gz=$(gzip -9 -c "$out/hooke_studio_bg.wasm" | wc -c)
echo "web/dist: hooke_studio_bg.wasm $((wasm / 1024)) KiB ($((gz / 1024)) KiB gzipped), wasm-opt: ${optimised:-not run}"
# What was built, for the browser test to report.
printf '{"wasm_bytes": %d, "wasm_gzip_bytes": %d, "wasm_opt": "%s"}\n' "$wasm" "$gz" "$optimised" > "$out/build.json"
