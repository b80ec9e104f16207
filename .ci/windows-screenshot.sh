#!/usr/bin/env bash
# The window on Windows, under Wine + Xvfb: starts vults-app.exe in a temp VULTS_HOME, feeds it
# one Claude Code PermissionRequest through the real vults-hook.exe and the named pipe, takes a
# screenshot of the island and the card (docs/screenshots/windows-card.png), clicks into the card
# and types `a`, and checks that the hook printed Claude's allow. Needs the exes .ci/cross.sh leaves in
# target/x86_64-pc-windows-gnu/debug/. Not part of .ci/run (about a minute, and a screenshot
# is for people); run it by hand: bash .ci/windows-screenshot.sh [out.png]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${1:-$root/docs/screenshots/windows-card.png}
bin="$root/target/x86_64-pc-windows-gnu/debug"
work=$(mktemp -d /tmp/vults-shot.XXXXXX)
export WINEPREFIX=$work/prefix WINEDEBUG=-all WINEARCH=win64 DISPLAY=:77
bash .ci/wine-setup.sh "$WINEPREFIX" >/dev/null
mkdir -p "$work/home/config"
# The welcome already seen: the picture is of the island and a card.
echo '{"welcome": {"shown": true}}' >"$work/home/config/settings.json"
home_win=$(winepath -w "$work/home")

Xvfb :77 -screen 0 1280x800x24 -nolisten tcp -noreset >"$work/xvfb.log" 2>&1 &
xvfb=$!
cleanup() {
    wineserver -k 2>/dev/null || true
    kill "$xvfb" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
sleep 2

VULTS_HOME=$home_win wine "$bin/vults-app.exe" >"$work/app.log" 2>&1 &
sleep 20 # Wine starts, the window's GL context (Mesa llvmpipe through Wine's opengl32)
VULTS_HOME=$home_win wine "$bin/vults-hook.exe" --agent claude PermissionRequest \
    <vults-core/tests/fixtures/samples/claude/PermissionRequest.json >"$work/hook.out" 2>&1 &
sleep 8
import -window root -display :77 "$out"
echo "screenshot: $out"
# A click into the card (its folder line, no button there) gives it the keys, and `a` allows:
# the card is a popup that only a click activates (docs/window.md).
card=$(xdotool search --name '^Vults: ' | head -1)
cx=$(xwininfo -id "$card" | awk '/Absolute upper-left X/ { print $4 }')
cy=$(xwininfo -id "$card" | awk '/Absolute upper-left Y/ { print $4 }')
xdotool mousemove $((cx + 40)) $((cy + 12)) click 1
sleep 1
xdotool key a
for _ in $(seq 20); do [ -s "$work/hook.out" ] && break; sleep 0.5; done
echo "the hook printed: $(cat "$work/hook.out")"
grep -q '"behavior":"allow"' "$work/hook.out"
