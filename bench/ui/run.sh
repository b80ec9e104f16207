#!/bin/sh
# run.sh — the real window under Xvfb + openbox + xcompmgr, fed by the real hook; measures
# idle CPU and RSS, and takes screenshots.
#
#   bench/ui/run.sh [debug|release] [seconds]      (default: release, 60)
#
# Needs: xvfb openbox xcompmgr imagemagick xdotool (apt). Prints a Markdown table row.
# Everything it starts it stops by pid; the app's home is a temp folder (VULTS_HOME).
set -eu
PROFILE=${1:-release}
SECS=${2:-60}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$ROOT/target/$PROFILE
SHOTS=${SHOTS:-/tmp/vults-shots}
DISPLAY_NUM=${DISPLAY_NUM:-:97}
mkdir -p "$SHOTS"
[ -x "$BIN/vults-app" ] && [ -x "$BIN/vults-hook" ] || {
    echo "build first: cargo build --$PROFILE -p vults-app -p vults-hook" >&2
    exit 2
}

VULTS_HOME=$(mktemp -d /tmp/vults-bench.XXXXXX)
export VULTS_HOME VULTS_SOCKET="$VULTS_HOME/run/vults.sock" HOME="$VULTS_HOME/home"
mkdir -p "$HOME"
export XDG_RUNTIME_DIR="$VULTS_HOME/xdg" LANG=C.UTF-8 DISPLAY=$DISPLAY_NUM
mkdir -p -m700 "$XDG_RUNTIME_DIR"
export HOOK="$BIN/vults-hook" OUT="$VULTS_HOME/out"
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    rm -rf "$VULTS_HOME"
}
trap cleanup EXIT INT TERM

Xvfb "$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
pids="$! $pids"
sleep 1
openbox >/dev/null 2>&1 &
pids="$! $pids"
xcompmgr >/dev/null 2>&1 &
pids="$! $pids"
sleep 1

"$BIN/vults-app" >"$VULTS_HOME/app.log" 2>&1 &
APP=$!
pids="$APP $pids"
i=0
while [ ! -S "$VULTS_SOCKET" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2

FEED=$ROOT/bench/ui/feed.sh
"$FEED" sessions 20
c1=$("$FEED" card bash)
sleep 0.5
c2=$("$FEED" card edit)
pids="$c1 $c2 $pids"
sleep 3
import -window root "$SHOTS/island-and-cards.png"

# Show the flock: a click on the island (top centre).
xdotool mousemove 640 24 click 1
sleep 2
import -window root "$SHOTS/flock-and-cards.png"
xdotool mousemove 1 790
sleep 1

# Idle: let the cards' "waiting" clock pass its first minute (then it repaints once a minute).
sleep 62
ticks() { awk '{print $14 + $15}' "/proc/$APP/stat"; }
t0=$(ticks)
sleep "$SECS"
t1=$(ticks)
hz=$(getconf CLK_TCK)
cpu=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$SECS" 'BEGIN { printf "%.2f", (b - a) / hz / s * 100 }')
rss=$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$APP/status")
echo "| $PROFILE | 20 | 2 | ${SECS} s | $((t1 - t0)) ticks = ${cpu} % of a core | ${rss} MB |"
grep -i "card drawn" "$VULTS_HOME/app.log" || true
