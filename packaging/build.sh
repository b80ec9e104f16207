#!/usr/bin/env bash
# Builds the Linux packages from one profile's binaries:
#   dist/vults_<version>_<arch>.deb          (dpkg-deb: both binaries, desktop entry, icons, the
#                                            systemd user unit for the headless app)
#   dist/vults-<version>-linux-<arch>.tar.gz (portable: bin/ and share/; run bin/vults-app)
# Usage: bash packaging/build.sh [PROFILE]   PROFILE = release (default) or debug (CI: the
# binaries the tests already built; a release build of the app takes ~10 min on 2 cores).
# VULTS_NO_BUILD=1 packages what is in target/<profile>/ without running cargo.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
profile="${1:-release}"
case "$profile" in
    release) cargo_flags=(--release); dir=target/release ;;
    debug|dev) cargo_flags=(); dir=target/debug ;;
    *) echo "unknown profile $profile (release | debug)" >&2; exit 2 ;;
esac
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
arch=$(dpkg --print-architecture)
if [ "${VULTS_NO_BUILD:-0}" != 1 ]; then
    cargo build --quiet "${cargo_flags[@]}" -p vults-app -p vults-hook
fi
for bin in vults-app vults-hook; do
    [ -x "$dir/$bin" ] || { echo "$dir/$bin is missing" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash packaging/icons.sh "$work/icons"
mkdir -p dist

# One tree, /usr layout, for both packages.
stage() { # <prefix-root>
    local r="$1"
    install -Dm755 "$dir/vults-app" "$r/bin/vults-app"
    # The app copies this hook into its own data folder on start and points agents at that copy.
    install -Dm755 "$dir/vults-hook" "$r/bin/vults-hook"
    install -Dm644 packaging/linux/vults.desktop "$r/share/applications/vults.desktop"
    mkdir -p "$r/share/icons"
    cp -r "$work/icons/hicolor" "$r/share/icons/"
    install -Dm644 README.md "$r/share/doc/vults/README.md"
    # The headless app as a systemd user service (docs/server.md): systemctl --user enable --now vults
    install -Dm644 packaging/linux/vults.service "$r/lib/systemd/user/vults.service"
    install -Dm644 docs/server.md "$r/share/doc/vults/server.md"
}

deb="$work/deb"
stage "$deb/usr"
mkdir -p "$deb/DEBIAN"
cat > "$deb/DEBIAN/control" <<CONTROL
Package: vults
Version: $version
Architecture: $arch
Maintainer: Vults developers <dev@vults.invalid>
Section: devel
Priority: optional
Installed-Size: $(du -sk "$deb/usr" | cut -f1)
Depends: libc6, libgl1, libegl1
Recommends: libvulkan1
Description: answer your coding agents' permission requests from one place
 Claude Code, Codex CLI, Copilot CLI, OpenCode, Qwen Code and your own tools call vults-hook;
 the app shows each permission request as a card with the whole command, file or URL.
 .
 Before removing the package, run 'vults-app --uninstall' as each user who ran Vults: it takes
 Vults' hooks out of the agents' settings (a package cannot reach users' home folders).
CONTROL
cat > "$deb/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    command -v update-desktop-database >/dev/null && update-desktop-database -q /usr/share/applications || true
    command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t /usr/share/icons/hicolor || true
fi
exit 0
POSTINST
cp "$deb/DEBIAN/postinst" "$deb/DEBIAN/postrm"
sed -i 's/if \[ "\$1" = configure \]/if [ "$1" = remove ] || [ "$1" = purge ]/' "$deb/DEBIAN/postrm"
chmod 755 "$deb/DEBIAN/postinst" "$deb/DEBIAN/postrm"
# xz for a release; gzip keeps CI's debug package (~100 MB of binaries) quick.
compress=-Zxz
[ "$profile" = release ] || compress=-Zgzip
dpkg-deb --root-owner-group "$compress" --build "$deb" "dist/vults_${version}_${arch}.deb" >/dev/null
echo "dist/vults_${version}_${arch}.deb"

name="vults-${version}-linux-${arch}"
stage "$work/$name"
tar -C "$work" --owner=0 --group=0 -czf "dist/$name.tar.gz" "$name"
echo "dist/$name.tar.gz"
