#!/usr/bin/env bash
# On a Mac: assembles dist/Vults.app (Info.plist, both binaries, the icon) and dist/Vults-<v>.dmg.
#   bash packaging/macos/build-app.sh [PROFILE]    PROFILE = release (default) or debug
# Needs Xcode's command line tools (iconutil, hdiutil) and rsvg-convert (brew install librsvg).
# Not run in CI (no Mac there); CI validates Info.plist and the LaunchAgent plist with plistlib
# (vults-app/tests/desktop.rs). The app is not signed or notarized here: for that,
# run `codesign --deep --options runtime -s <identity> dist/Vults.app` before making the .dmg.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
profile="${1:-release}"
case "$profile" in
    release) cargo_flags=(--release); dir=target/release ;;
    debug|dev) cargo_flags=(); dir=target/debug ;;
    *) echo "unknown profile $profile (release | debug)" >&2; exit 2 ;;
esac
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
[ "${VULTS_NO_BUILD:-0}" = 1 ] || cargo build "${cargo_flags[@]}" -p vults-app -p vults-hook
app=dist/Vults.app
rm -rf "$app"
mkdir -p "$app/Contents/MacOS" "$app/Contents/Resources"
install -m755 "$dir/vults-app" "$dir/vults-hook" "$app/Contents/MacOS/"
sed -e "s|<string>0\.1\.0</string>|<string>$version</string>|g" packaging/macos/Info.plist \
    >"$app/Contents/Info.plist"
plutil -lint "$app/Contents/Info.plist"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
iconset="$work/vults.iconset"
mkdir -p "$iconset"
for n in 16 32 128 256 512; do
    rsvg-convert -w "$n" -h "$n" assets/icons/vults.svg -o "$iconset/icon_${n}x${n}.png"
    rsvg-convert -w $((n * 2)) -h $((n * 2)) assets/icons/vults.svg -o "$iconset/icon_${n}x${n}@2x.png"
done
iconutil -c icns "$iconset" -o "$app/Contents/Resources/vults.icns"
stage="$work/dmg"
mkdir -p "$stage"
cp -R "$app" "$stage/"
ln -s /Applications "$stage/Applications"
hdiutil create -volname Vults -srcfolder "$stage" -ov -format UDZO "dist/Vults-$version.dmg"
echo "dist/Vults-$version.dmg"
