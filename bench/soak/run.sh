#!/bin/sh
# Benchmark: a day compressed (issue 30). The real app, release build, serves bench/soak's load
# over its real socket — sessions of SessionStart, UserPromptSubmit, 20 x (PreToolUse, PostToolUse
# with a 300-line structuredPatch), one PermissionRequest its Always rule answers, Stop,
# SessionEnd; 16 at a time — while a separate probe process times the rule's round trip. Prints
# the app's anonymous memory at start, after 100 sessions, every 10 %, at the end and after 60 s
# idle, its idle CPU over 40 s, events per second and the probe's p50/p99. Not a test: numbers go
# in BENCHMARKS.md ("Soak").
#
#   bench/soak/run.sh headless [sessions]        the engine alone (vults-app --headless)
#   bench/soak/run.sh window [sessions]          the window under Xvfb + openbox
#   bench/soak/run.sh live [sessions] [minutes]  the window, 50 sessions with an event a second
#                                                each for 10 minutes (memory and CPU a minute)
#   bench/soak/run.sh audit [lines]              start-up with a 1,000,000-line audit log and
#                                                with none: the socket served, in ms
#
# RATE=<events/s> paces the load (headless, window; 0 or unset: as fast as the app takes it);
# IDLE=<s> and CPU=<s> shorten the idle wait (60) and the idle CPU's measure (40).
# VULTS_MALLOC_TRIM=0 in the environment turns the engine's malloc_trim off (to compare);
# VULTS_APP=<path> runs another vults-app build, NO_BUILD=1 skips the cargo build.
# Needs: rustc, and for window/live: xvfb openbox (apt). Linux only (/proc).
set -eu
MODE=${1:-headless}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${VULTS_APP:-$ROOT/target/release/vults-app}
WORK=$(mktemp -d /tmp/vults-soak.XXXXXX)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

[ -n "${NO_BUILD:-}" ] || cargo build --release -p vults-app --manifest-path "$ROOT/Cargo.toml" >&2
rustc -O --edition 2024 -o "$WORK/soak" "$ROOT/bench/soak/soak.rs"

export VULTS_HOME="$WORK/home" LANG=C.UTF-8
export HOME="$VULTS_HOME/home" XDG_RUNTIME_DIR="$WORK/xdg"
mkdir -p "$HOME" "$VULTS_HOME/config" "$VULTS_HOME/data"
mkdir -p -m700 "$XDG_RUNTIME_DIR"
SOCKET=$VULTS_HOME/run/vults.sock
# Not a first run (the welcome would open the Vults window).
echo '{"welcome": {"shown": true}}' >"$VULTS_HOME/config/settings.json"
printf '{"version":1,"rules":[{"id":"r-soak","identity":"claude","folder":"/work/soak","tool":"Bash","target":"cargo test","created":0}]}\n' \
    >"$VULTS_HOME/config/rules.json"

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm), $(nproc) cores, $(git -C "$ROOT" rev-parse --short HEAD); load: $(cut -d' ' -f1-3 /proc/loadavg)"

desktop() {
    DISPLAY_NUM=${DISPLAY_NUM:-:96}
    export DISPLAY=$DISPLAY_NUM
    Xvfb "$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
    pids="$! $pids"
    i=0; while ! xdpyinfo >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    openbox >/dev/null 2>&1 &
    pids="$! $pids"
}

start_app() { # args for vults-app
    "$BIN" "$@" >"$WORK/app.log" 2>&1 &
    APP=$!
    pids="$APP $pids"
    i=0; while [ ! -S "$SOCKET" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    [ -S "$SOCKET" ] || { echo "the app never served $SOCKET" >&2; cat "$WORK/app.log" >&2; exit 1; }
    # Let the window settle (its first frames, fonts) before the start is measured.
    sleep 3
}

case "$MODE" in
headless)
    start_app --headless
    "$WORK/soak" load "$SOCKET" "$APP" "${2:-4000}" 16 20 300 "${IDLE:-60}" "${CPU:-40}" "${RATE:-0}"
    ;;
window)
    desktop
    start_app
    "$WORK/soak" load "$SOCKET" "$APP" "${2:-4000}" 16 20 300 "${IDLE:-60}" "${CPU:-40}" "${RATE:-0}"
    ;;
live)
    desktop
    start_app
    "$WORK/soak" live "$SOCKET" "$APP" "${2:-50}" "${3:-10}"
    ;;
audit)
    LINES=${2:-1000000}
    "$WORK/soak" audit-file "$VULTS_HOME/data/audit.jsonl" "$LINES"
    big=$(stat -c %s "$VULTS_HOME/data/audit.jsonl")
    for label in "$LINES-line audit ($((big / 1048576)) MiB)" "empty audit"; do
        t0=$(date +%s%N)
        "$BIN" --headless >"$WORK/app.log" 2>&1 &
        APP=$!
        pids="$APP $pids"
        # Served: the Always rule's answer came back.
        until "$WORK/soak" ping "$SOCKET" 2>/dev/null; do :; done
        t1=$(date +%s%N)
        echo "start-up, $label: the rule answering after $(((t1 - t0) / 1000000)) ms; anon $(awk '/RssAnon/ {printf "%.1f MiB", $2 / 1024}' "/proc/$APP/status")"
        kill "$APP"
        wait "$APP" 2>/dev/null || true
        # Past ROTATE_BYTES the first new line moves the log to audit.jsonl.1 (a rename):
        # together they hold all it held.
        now=$(cat "$VULTS_HOME/data/audit.jsonl"* 2>/dev/null | wc -c)
        [ "$now" -ge "$big" ] || echo "the audit log shrank: $big -> $now bytes"
        rm -f "$VULTS_HOME/data/audit.jsonl" "$VULTS_HOME/data/audit.jsonl.1"
        big=0
    done
    ;;
*)
    echo "usage: $0 headless|window|live|audit [...]" >&2
    exit 2
    ;;
esac
