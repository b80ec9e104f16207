#!/usr/bin/env bash
# Builds dist/vults_<version>_<arch>.deb from release binaries with dpkg-deb (no extra tools).
#   bash packaging/linux/build-deb.sh        # builds the release binaries first
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
arch=$(dpkg --print-architecture)
cargo build --release -p vults-app -p vults-hook
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
install -Dm755 target/release/vults-app "$root/usr/bin/vults-app"
# The app copies this hook into its own data folder on start and points agents at that copy.
install -Dm755 target/release/vults-hook "$root/usr/bin/vults-hook"
install -Dm644 packaging/linux/vults.desktop "$root/usr/share/applications/vults.desktop"
install -Dm644 assets/icons/vults.svg "$root/usr/share/icons/hicolor/scalable/apps/vults.svg"
install -Dm644 README.md "$root/usr/share/doc/vults/README.md"
mkdir -p "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: vults
Version: $version
Architecture: $arch
Maintainer: Vults developers <dev@vults.invalid>
Section: devel
Priority: optional
Depends: libc6, libgl1, libegl1
Recommends: libvulkan1
Description: answer your coding agents' permission requests from one place
 Claude Code, Codex CLI, Copilot CLI, OpenCode, Qwen Code and your own tools call vults-hook;
 the app shows each permission request as a card with the whole command, file or URL.
CONTROL
mkdir -p dist
dpkg-deb --root-owner-group --build "$root" "dist/vults_${version}_${arch}.deb"
