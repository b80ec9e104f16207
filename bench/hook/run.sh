#!/bin/sh
# Benchmark: median spawn-to-exit of `vults-hook` for a PostToolUse event, with the app up (a
# listener that reads lines) and with no app, side by side with a minimal Python forwarder and a
# minimal Node forwarder doing the same socket write. Not a test: numbers go in BENCHMARKS.md.
#
# Usage: bench/hook/run.sh [runs]   (default 300; needs python3, node; hyperfine optional)
set -eu
RUNS="${1:-300}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$ROOT/bench/hook"
WORK="$(mktemp -d /tmp/vults-bench.XXXXXX)"
trap 'kill "$LISTENER" 2>/dev/null || true; rm -rf "$WORK"' EXIT INT TERM

cargo build --release -p vults-hook --manifest-path "$ROOT/Cargo.toml" >&2
HOOK="$ROOT/target/release/vults-hook"
rustc -O --edition 2024 -o "$WORK/spawn_timer" "$HERE/spawn_timer.rs"
printf 'fn main() {}\n' > "$WORK/empty.rs"
rustc -O -o "$WORK/empty" "$WORK/empty.rs"
INPUT="$ROOT/vults-core/tests/fixtures/samples/claude/PostToolUse.json"
PERMISSION="$ROOT/vults-core/tests/fixtures/samples/claude/PermissionRequest.json"
# The interpreters themselves, not version-manager shims (pyenv's shim alone costs ~100 ms).
PY="$(python3 -c 'import sys; print(sys.executable)')"
NODE="$(command -v node)"

export VULTS_HOME="$WORK/home"
export VULTS_SOCKET="$WORK/app.sock"
mkdir -p "$VULTS_HOME"

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -srm), $(nproc) cores; $RUNS runs each"
echo "# $($PY --version 2>&1) ($PY), node $($NODE --version) ($NODE); load: $(cut -d" " -f1-3 /proc/loadavg 2>/dev/null || uptime)"
echo
echo "| command | median ms | p10 | p90 | mean | runs |"
echo "|---|---|---|---|---|---|"

measure() { # label, stdin file, then the command
    label="$1"; input="$2"; shift 2
    "$WORK/spawn_timer" "$RUNS" "$input" "$label" -- "$@"
}

# The floor on this machine: spawning any process, and an empty Rust program.
measure "/bin/true (floor)" "$INPUT" /bin/true
measure "empty Rust main (floor)" "$INPUT" "$WORK/empty"
"$PY" "$HERE/listener.py" "$VULTS_SOCKET" &
LISTENER=$!
i=0; while [ ! -S "$VULTS_SOCKET" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
measure "vults-hook, app up" "$INPUT" "$HOOK" --agent claude PostToolUse
# Spawn-to-reply: a PermissionRequest the stand-in app allows at once (as an Always rule would).
measure "vults-hook PermissionRequest, answered at once" "$PERMISSION" "$HOOK" --agent claude PermissionRequest
measure "python forwarder, app up" "$INPUT" "$PY" "$HERE/forward.py" PostToolUse
measure "node forwarder, app up" "$INPUT" "$NODE" "$HERE/forward.js" PostToolUse
kill "$LISTENER"; wait "$LISTENER" 2>/dev/null || true
rm -f "$VULTS_SOCKET"
measure "vults-hook, no app" "$INPUT" "$HOOK" --agent claude PostToolUse
measure "python forwarder, no app" "$INPUT" "$PY" "$HERE/forward.py" PostToolUse
measure "node forwarder, no app" "$INPUT" "$NODE" "$HERE/forward.js" PostToolUse

if command -v hyperfine >/dev/null 2>&1; then
    echo
    echo "# hyperfine, app up (it subtracts the shell's own start-up):"
    "$PY" "$HERE/listener.py" "$VULTS_SOCKET" &
    LISTENER=$!
    i=0; while [ ! -S "$VULTS_SOCKET" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
    hyperfine --warmup 10 --runs "$RUNS" --style basic \
        -n vults-hook "$HOOK --agent claude PostToolUse < $INPUT" \
        -n python "$PY $HERE/forward.py PostToolUse < $INPUT" \
        -n node "$NODE $HERE/forward.js PostToolUse < $INPUT" 2>&1 |
        grep -E "Benchmark|Time|Range|faster" || true
fi
