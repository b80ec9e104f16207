#!/usr/bin/env bash
# The Windows installer under Wine (CI; not part of `cargo test`): build it with makensis from
# target/x86_64-pc-windows-gnu/<PROFILE>/ (PROFILE=debug by default; VULTS_NO_BUILD=1 when
# .ci/cross.sh built them already), run it silently (/S) in a Wine prefix of its own, check the
# installed `vults-app.exe --version` and `vults-hook.exe --version` agree, and that the
# uninstaller (/S) removes the files, the Start menu shortcut and its HKCU uninstall entry.
# Needs: nsis, wine, mingw-w64, librsvg2-bin, imagemagick.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
profile="${PROFILE:-debug}"
fail() { echo "nsis test FAILED: $*" >&2; exit 1; }
say() { echo "nsis test: $*"; }

bash packaging/windows/build.sh "$profile" >/tmp/vults-nsis-build.out
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
setup="$root/dist/vults-${version}-setup.exe"
[ -f "$setup" ] || fail "$setup was not built"
say "built $setup"

export WINEPREFIX="${VULTS_NSIS_WINEPREFIX:-/tmp/vults-wine-nsis}" WINEDEBUG=-all
bash .ci/wine-setup.sh "$WINEPREFIX" >/dev/null
user_dir=$(find "$WINEPREFIX/drive_c/users" -mindepth 1 -maxdepth 1 -type d ! -name Public | head -1)
inst="$user_dir/AppData/Local/Programs/Vults"
rm -rf "$inst"

wine "$setup" /S
wineserver -w
for f in vults-app.exe vults-hook.exe uninstall.exe vults.ico; do
    [ -f "$inst/$f" ] || fail "$inst/$f was not installed"
done
say "installed into $inst"
app_v=$(wine "$inst/vults-app.exe" --version | tr -d '\r')
hook_v=$(wine "$inst/vults-hook.exe" --version | tr -d '\r')
[ "$app_v" = "vults-app $version (hook protocol 9)" ] || fail "vults-app.exe --version: $app_v"
[ "${hook_v#vults-hook }" = "${app_v#vults-app }" ] || fail "versions differ: $app_v / $hook_v"
say "$app_v / $hook_v"
# The window opens no console of its own (GUI subsystem; its commands attach to the caller's
# console), while the hook stays a console program: agents read its stdout.
subsystem() { x86_64-w64-mingw32-objdump -p "$1" | awk '$1 == "Subsystem" { print $2 }'; }
[ "$(subsystem "$inst/vults-app.exe")" = 00000002 ] || fail "vults-app.exe is not a GUI program"
[ "$(subsystem "$inst/vults-hook.exe")" = 00000003 ] || fail "vults-hook.exe is not a console program"
wine reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Vults' /v DisplayVersion \
    | tr -d '\r' | grep -q "$version" || fail "no uninstall entry in HKCU"
lnk=$(find "$user_dir" -name Vults.lnk | head -1)
[ -n "$lnk" ] || fail "no Start menu shortcut"

wine "$inst/uninstall.exe" /S
wineserver -w
# The uninstaller re-runs itself from a temp copy; give it a moment past wineserver.
for _ in $(seq 50); do [ -e "$inst" ] || break; sleep 0.2; done
[ ! -e "$inst" ] || fail "the uninstaller left $(ls "$inst")"
[ ! -e "$lnk" ] || fail "the uninstaller left $lnk"
if wine reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Vults' >/dev/null 2>&1; then
    fail "the uninstaller left its HKCU entry"
fi
say "the uninstaller removed the files, the shortcut and the entry; PASSED"
