#!/usr/bin/env bash
# Installs what the studio's browser and window tests need; safe to run again (each step is
# skipped when its tool is already there). Debian packages need root (or sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
need=()
command -v chromium >/dev/null || need+=(chromium chromium-driver)
command -v xvfb-run >/dev/null || need+=(xvfb xauth)
# Mesa's OpenGL for the desktop window under Xvfb.
[ -e /usr/lib/x86_64-linux-gnu/dri/swrast_dri.so ] || [ -e /usr/lib/x86_64-linux-gnu/dri/llvmpipe_dri.so ] \
  || need+=(libgl1-mesa-dri libegl1 libgl1)
if [ ${#need[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi
rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown
# wasm-bindgen 0.2.130 from web/tools/wasm-bindgen, whose lockfile pins every dependency
# (wasm-bindgen-cli's own fails with --locked: STACK.md). --force replaces a wasm-bindgen
# installed another way.
if ! cargo install --list | grep -q '^hooke-wasm-bindgen v0.2.130'; then
  cargo install --locked --force --path web/tools/wasm-bindgen
fi
# playwright-core, binaryen (wasm-opt) and the Khronos glTF Validator (the export tests),
# the versions in web/package-lock.json.
{ [ -e web/node_modules/playwright-core ] && [ -e web/node_modules/.bin/wasm-opt ] && [ -e web/node_modules/gltf-validator ]; } \
  || npm ci --prefix web --no-audit --no-fund
echo "web/setup.sh: ready (chromium, xvfb-run, wasm32 target, wasm-bindgen 0.2.130, playwright-core, wasm-opt and gltf-validator from npm)"
