#!/bin/sh
# run.sh — the real window under Xvfb + openbox + xcompmgr, fed by the real hook; measures
# idle CPU and RSS, and takes screenshots.
#
#   bench/ui/run.sh [debug|release] [seconds]      (default: release, 60)
#
# Needs: xvfb openbox xcompmgr x11-apps x11-xserver-utils imagemagick xdotool (apt). Prints a
# Markdown table row.
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
# Not a first run: the welcome would open the Vults window (and the island's click below
# would close it).
mkdir -p "$VULTS_HOME/config"
echo '{"welcome": {"shown": true}}' >"$VULTS_HOME/config/settings.json"
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    rm -rf "$VULTS_HOME"
}
trap cleanup EXIT INT TERM

Xvfb "$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
pids="$! $pids"
sleep 1
openbox >/dev/null 2>&1 &
pids="$! $pids"
xcompmgr >/dev/null 2>&1 &
pids="$! $pids"
sleep 1
xsetroot -solid '#3b4252' 2>/dev/null || true

# A window that stands for the user's terminal: it has the focus, and must keep it.
xlogo -geometry 300x200+40+560 >/dev/null 2>&1 &
pids="$! $pids"
sleep 1
TERM_WIN=$(xdotool search --class xlogo | head -n1)
xdotool windowactivate --sync "$TERM_WIN" 2>/dev/null || true

# A session bus, so the tray (ksni) and notifications are tried for real (no host: they log).
if command -v dbus-daemon >/dev/null; then
    bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1 2>/dev/null || true)
    if [ -n "$bus" ]; then
        export DBUS_SESSION_BUS_ADDRESS="$(echo "$bus" | sed -n 1p)"
        pids="$(echo "$bus" | sed -n 2p) $pids"
    fi
fi
VULTS_UI_STATS=1 "$BIN/vults-app" >"$VULTS_HOME/app.log" 2>&1 &
APP=$!
pids="$APP $pids"
i=0
while [ ! -S "$VULTS_SOCKET" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2

FEED=$ROOT/bench/ui/feed.sh
"$FEED" sessions 20
# Two waiting requests; their hooks end when the app does.
"$FEED" card bash >/dev/null
sleep 0.5
"$FEED" card edit >/dev/null
sleep 3
import -window root "$SHOTS/island-and-cards.png"
if [ "$(xdotool getactivewindow 2>/dev/null)" = "$TERM_WIN" ]; then
    echo "focus: the terminal kept the keyboard focus while the island and two cards appeared"
else
    echo "focus: LOST to $(xdotool getactivewindow getwindowname 2>/dev/null)"
fi

# Show the flock: a click on the island (top centre).
xdotool mousemove 640 24 click 1
sleep 2
import -window root "$SHOTS/flock-and-cards.png"
xdotool mousemove 1 790
sleep 1
if [ -n "${SHOTS_ONLY:-}" ]; then
    # Answer both cards (a click into each card's header gives it the keys, then A), then
    # look at Settings -> Agents, the third tab of the Vults window (placed at 16,56), and at
    # a question card.
    for w in $(xdotool search --onlyvisible --name '^Vults: '); do
        eval "$(xdotool getwindowgeometry --shell "$w")"
        xdotool mousemove $((X + 60)) $((Y + 24)) click 1
        sleep 0.5
        xdotool key a
        sleep 1.5
    done
    xdotool mousemove 158 95 click 1
    sleep 1.5
    import -window root "$SHOTS/settings-agents.png"
    xdotool mousemove 47 95 click 1
    "$FEED" card question >/dev/null
    sleep 2
    import -window root "$SHOTS/question-card.png"
    cat "$OUT"/*.out
    echo
    cat "$VULTS_HOME/app.log" "$VULTS_HOME/log/vults.log"
    exit 0
fi

ticks() { awk '{print $14 + $15}' "/proc/$APP/stat"; }
hz=$(getconf CLK_TCK)
pct() { awk -v a="$1" -v b="$2" -v hz="$hz" -v s="$3" 'BEGIN { printf "%.2f", (b - a) / hz / s * 100 }'; }

# While the cards are younger than a minute their "waiting N s" text changes every second.
t0=$(ticks)
sleep 50
t1=$(ticks)
# Then it changes once a minute: this is the idle the goal is about.
sleep 8
t2=$(ticks)
sleep "$SECS"
t3=$(ticks)
rss=$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$APP/status")
echo "| $PROFILE | 20 | 2 | cards < 1 min old: 50 s, $((t1 - t0)) ticks = $(pct "$t0" "$t1" 50) % | idle: ${SECS} s, $((t3 - t2)) ticks = $(pct "$t2" "$t3" "$SECS") % | ${rss} MB |"
# The app logs to VULTS_HOME/log/vults.log (stderr only on a terminal): "card drawn …" is there.
cat "$VULTS_HOME/app.log" "$VULTS_HOME/log/vults.log"
