#!/usr/bin/env bash
# Makes a Wine prefix that can run Rust-built Windows binaries: Debian's Wine 8 lacks
# bcryptprimitives.dll (ProcessPrng, which Rust's std calls), so build a stand-in from
# packaging/windows/wine-shim/ with mingw-w64 and put it in the prefix's system32.
# Usage: .ci/wine-setup.sh [prefix]   (default: $WINEPREFIX or /tmp/vults-wine). Idempotent.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export WINEPREFIX="${1:-${WINEPREFIX:-/tmp/vults-wine}}" WINEDEBUG=-all WINEARCH=win64
shim="$root/packaging/windows/wine-shim"
out="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    wineboot --init >/dev/null 2>&1 || true
    wineserver -w || true
fi
mkdir -p "$(dirname "$out")"
x86_64-w64-mingw32-gcc -shared -O2 -o "$out" "$shim/bcryptprimitives.c" "$shim/bcryptprimitives.def" -ladvapi32
echo "wine prefix ready: $WINEPREFIX"
