#!/usr/bin/env bash
# Renders the one icon, assets/icons/vults.svg, into what each platform wants:
#   <out>/hicolor/<n>x<n>/apps/vults.png  for n in 16 24 32 48 64 128 256 512 (Linux)
#   <out>/vults.ico                       16..256 (Windows installer and shortcuts)
# Needs rsvg-convert (librsvg2-bin); the .ico also needs ImageMagick (convert) and is skipped
# without it. Nothing rendered is committed.
#   bash packaging/icons.sh <out>
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: packaging/icons.sh <out-dir>}"
svg="$root/assets/icons/vults.svg"
for n in 16 24 32 48 64 128 256 512; do
    mkdir -p "$out/hicolor/${n}x${n}/apps"
    rsvg-convert -w "$n" -h "$n" "$svg" -o "$out/hicolor/${n}x${n}/apps/vults.png"
done
mkdir -p "$out/hicolor/scalable/apps"
cp "$svg" "$out/hicolor/scalable/apps/vults.svg"
if command -v convert >/dev/null; then
    convert $(for n in 16 24 32 48 64 128 256; do echo "$out/hicolor/${n}x${n}/apps/vults.png"; done) \
        "$out/vults.ico"
fi
