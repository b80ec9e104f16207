#!/usr/bin/env bash
# Builds dist/vults-<version>-setup.exe (NSIS, per-user, with an uninstaller) on Linux from the
# Windows binaries in target/x86_64-pc-windows-gnu/<profile>/.
# Usage: bash packaging/windows/build.sh [PROFILE]   PROFILE = release (default) or debug.
# VULTS_NO_BUILD=1 uses the binaries already there (CI: .ci/cross.sh built them). Needs
# makensis (nsis), rsvg-convert and ImageMagick (the icon), and for building mingw-w64.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
profile="${1:-release}"
target=x86_64-pc-windows-gnu
case "$profile" in
    release) cargo_flags=(--release); dir="target/$target/release"; compressor=lzma ;;
    debug|dev) cargo_flags=(); dir="target/$target/debug"; compressor=zlib ;;
    *) echo "unknown profile $profile (release | debug)" >&2; exit 2 ;;
esac
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
if [ "${VULTS_NO_BUILD:-0}" != 1 ]; then
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="${CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER:-x86_64-w64-mingw32-gcc}" \
        cargo build --quiet "${cargo_flags[@]}" --target "$target" -p vults-app -p vults-hook
fi
for bin in vults-app.exe vults-hook.exe; do
    [ -f "$dir/$bin" ] || { echo "$dir/$bin is missing" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash packaging/icons.sh "$work/icons"
[ -f "$work/icons/vults.ico" ] || { echo "no vults.ico: install ImageMagick" >&2; exit 1; }
mkdir -p dist
out="dist/vults-${version}-setup.exe"
makensis -V2 -DVERSION="$version" -DSRC="$root/$dir" -DICON="$work/icons/vults.ico" \
    -DOUT="$root/$out" -DCOMPRESSOR="$compressor" packaging/windows/vults.nsi
echo "$out"
