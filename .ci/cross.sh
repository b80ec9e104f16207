#!/usr/bin/env bash
# Windows and macOS from this Linux machine (docs/platforms.md). Called by .ci/run; runs alone too.
#
# 1. Lints for x86_64-pc-windows-gnu and x86_64-apple-darwin (`cargo clippy --all-targets -D
#    warnings`). macOS is type-checked only: ring's build script wants a C compiler for macOS, so
#    .ci/fake-cc / .ci/fake-ar stand in (they write empty outputs; nothing is linked).
#    aarch64-apple-darwin differs from x86_64-apple-darwin in no line of Vults' code (nothing in
#    it asks for target_arch but the Linux-only agent harness), and checking every dependency
#    again for it took 128 s of CI's 30 minutes: CROSS_APPLE_ARM=1 adds it.
# 2. The Windows binaries linked with Debian's mingw-w64, built once: vults-app.exe and
#    vults-hook.exe (left in target/x86_64-pc-windows-gnu/debug/ for packaging) and the test
#    executables below, which then run under Wine (.ci/wine-setup.sh makes the prefix); then
#    the floating windows driven from outside on an X desktop (tests/windows/popups.rs).
#
# Env: CROSS_SKIP_APPLE=1 / CROSS_SKIP_CLIPPY=1 skip parts while iterating; CROSS_RELEASE=1
# also builds the release exes (target/x86_64-pc-windows-gnu/release/, for the installer);
# CROSS_PRUNE=1 (CI) deletes each target's intermediates and the Wine prefix once they have been
# used, keeping only the two Windows exes packaging needs: CI machines are short of disk.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
start=${CI_START:-$(date +%s)}
last=$(date +%s)
step() {
    local now
    now=$(date +%s)
    printf '\n== %s (at %ss; previous step %ss; disk free: %s)\n' "$1" "$((now - start))" \
        "$((now - last))" "$(df -h --output=avail . | tail -1 | tr -d ' ')"
    last=$now
}
prune() { # paths under target/ to delete when CROSS_PRUNE=1
    [ "${CROSS_PRUNE:-0}" = 1 ] || return 0
    local p
    for p in "$@"; do rm -rf "${root:?}/target/$p"; done
}

WIN=x86_64-pc-windows-gnu
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export WINEPREFIX=${WINEPREFIX:-/tmp/vults-wine} WINEDEBUG=-all WINEARCH=win64

step "cross: system packages and rustup targets"
if ! command -v x86_64-w64-mingw32-gcc >/dev/null || ! command -v wine >/dev/null \
    || ! command -v jq >/dev/null || ! command -v Xvfb >/dev/null \
    || ! command -v openbox >/dev/null || ! command -v xwininfo >/dev/null; then
    apt-get install -y -qq --no-install-recommends gcc-mingw-w64-x86-64 wine wine64 jq xvfb \
        imagemagick xdotool openbox xterm x11-utils >/dev/null
fi
rustup target add "$WIN" x86_64-apple-darwin aarch64-apple-darwin >/dev/null 2>&1

if [ "${CROSS_SKIP_CLIPPY:-0}" != 1 ]; then
    step "cross: cargo clippy --target $WIN"
    cargo clippy --workspace --all-targets --target "$WIN" --quiet -- -D warnings
    if [ "${CROSS_SKIP_APPLE:-0}" != 1 ]; then
        apple=(x86_64-apple-darwin)
        [ "${CROSS_APPLE_ARM:-0}" != 1 ] || apple+=(aarch64-apple-darwin)
        for t in "${apple[@]}"; do
            step "cross: cargo clippy --target $t (type check, stand-in C compiler)"
            u=${t//-/_}
            env "CC_$u=$root/.ci/fake-cc" "AR_$u=$root/.ci/fake-ar" \
                cargo clippy --workspace --all-targets --target "$t" --quiet -- -D warnings
            prune "$t"
        done
    fi
fi

step "cross: Windows build (vults-app.exe, vults-hook.exe, test executables; once)"
cargo build --target "$WIN" -p vults-hook -p vults-app --bins --quiet
# The test executables, one line each: "<target name> <path>". Every suite that needs no
# Unix-only part and no GPU runs under Wine; the others, and why not:
# - zeca: its stand-in CLIs are `sh` scripts (tests/zeca); the real CLI is covered on Linux.
# - remote (vults-app/tests remote_hosts, link_orphan): an SSH host is a Unix machine reached
#   through ssh's Unix-socket forwarding.
# - vults-tests real_agents / zeca: the agents' npm CLIs run on Linux here, with tmux.
# - engine's crash, hosts, named_tools, socket and truth modules: signals (SIGKILL, SIGSTOP),
#   Unix file modes and peer uids, `sh` examples (each says so in engine/tests/tests.rs).
# - ui snapshots: `VULTS_NO_SNAPSHOTS=1` skips only the pixel comparison, which the Linux run
#   makes (the CPU renderer has not been checked against Windows' maths); every other check of
#   the ui suite runs.
# `--lib` (once) means each selected package's unit tests.
cargo test --no-run --target "$WIN" --quiet --message-format=json --lib \
    -p vults-core -p vults-notify -p vults-terminal -p vults-engine -p vults-installer \
    -p vults-phone -p vults-remote -p vults-zeca -p vults-ui -p vults-desktop -p vults-app \
    -p vults-hook --test hook_e2e \
    -p vults-tests --test windows_pipe --test installer_windows \
    --test engine --test installer --test app --test phone --test ui \
    | jq -r 'select(.reason == "compiler-artifact" and .profile.test and .executable != null)
             | "\(.target.name) \(.executable)"' \
    >"$root/target/cross-tests.txt"
cat "$root/target/cross-tests.txt"
exe() { # the test executable of a target
    awk -v k="$1" '$1 == k { print $2 }' "$root/target/cross-tests.txt" | head -1
}
out="$root/target/$WIN/debug"
ls -l "$out/vults-app.exe" "$out/vults-hook.exe"
if [ "${CROSS_RELEASE:-0}" = 1 ]; then
    step "cross: Windows release build"
    cargo build --release --target "$WIN" -p vults-hook -p vults-app --bins --quiet
    ls -l "$root/target/$WIN/release/vults-app.exe" "$root/target/$WIN/release/vults-hook.exe"
fi

step "cross: Wine prefix with the ProcessPrng stand-in"
bash .ci/wine-setup.sh "$WINEPREFIX"

# Under Wine: the test executables find the real hook by this (Wine sees / as Z:).
export VULTS_HOOK_BIN VULTS_APP_BIN
VULTS_HOOK_BIN=$(winepath -w "$out/vults-hook.exe" 2>/dev/null)
VULTS_APP_BIN=$(winepath -w "$out/vults-app.exe" 2>/dev/null)
wine_test() { # label, target name, [desktop: run under an Xvfb of its own], [test args...]
    local label=$1 bin run=(wine)
    bin=$(exe "$2")
    [ -n "$bin" ] || { echo "no test executable for $2" >&2; exit 1; }
    shift 2
    local mode=${1:-}
    [ $# -gt 0 ] && shift
    step "cross: under Wine: $label"
    if [ "$mode" = desktop ]; then
        # Windows that Wine draws (vults-terminal raises a window and a console window). A
        # wineserver left by the suite before (it lingers a few seconds) was started with no
        # display, and its desktop then draws no window at all: end it first.
        wineserver -k 2>/dev/null || true
        wineserver -w 2>/dev/null || true
        run=(env VULTS_WINDOWS_DESKTOP=1 xvfb-run -a -s "-screen 0 1280x800x24 -noreset" wine)
    fi
    # .ci/run's switches say what this Linux machine has (its X desktop tools, chromium and
    # Mosquitto, the agent CLIs), and none of that is there for a Windows program: under them
    # the desktop and broker tests would demand Xvfb and mosquitto of Wine. They skip here,
    # saying so, as on a Windows machine.
    run=(env -u VULTS_DESKTOP_TESTS -u VULTS_PHONE_BROWSER -u VULTS_REAL_AGENTS "${run[@]}")
    # --test-threads=2: two cores; each test spawns Windows processes of its own.
    "${run[@]}" "$bin" --test-threads=2 "$@" 2>&1 \
        | grep -v -e ':fixme:' -e ':err:' | tee "$root/target/cross-$label.log"
    grep -q '^test result: ok' "$root/target/cross-$label.log"
}
wine_test vults-core vults_core
# The toast XML, the schedule in Windows' own time zone (jiff's bundled tzdb), the gate.
wine_test notify vults_notify
wine_test vults-terminal vults_terminal desktop
wine_test hook-e2e hook_e2e
wine_test engine-pipe windows_pipe
wine_test installer installer_windows
wine_test engine-lib vults_engine
# The engine over the real pipe: rules, policies, audit, questions, cards. Its load test (64
# hooks, 20,000 events) takes two minutes through Wine's process start; the pipe's own 64 at
# once are in engine-pipe above.
wine_test engine engine "" --skip load::
wine_test installer-lib vults_installer
wine_test installer-suite installer
wine_test app app
wine_test phone-lib vults_phone
wine_test phone phone
wine_test zeca-lib vults_zeca
wine_test remote-lib vults_remote
# The one-instance pipe (instance.rs) moved to vults-desktop with its tests.
wine_test desktop-lib vults_desktop
# Under an Xvfb: viewport::windows's tests make real windows, which Wine makes only on a display.
wine_test ui-lib vults_ui desktop
export VULTS_NO_SNAPSHOTS=1
wine_test ui ui
unset VULTS_NO_SNAPSHOTS
# The island and the cards as popups (tests/windows/popups.rs): the real vults-app.exe and
# vults-hook.exe on an Xvfb with openbox and a focused xterm, driven from outside with xdotool,
# so the test itself is a Linux program. It runs with the flags .ci/run built the Linux tests
# with (clippy-driver, -D warnings), so it finds itself built there and nothing is compiled again.
step "cross: under Wine: the floating windows are popups (windows_popups, from X)"
wineserver -k 2>/dev/null || true
wineserver -w 2>/dev/null || true
VULTS_WINE_EXES="$out" VULTS_DESKTOP_TESTS=1 RUSTC_WORKSPACE_WRAPPER=clippy-driver \
    RUSTFLAGS="-D warnings" cargo test -p vults-tests --test windows_popups --quiet \
    -- --nocapture 2>&1 | tee "$root/target/cross-windows-popups.log"
grep -q '^test result: ok. 1 passed' "$root/target/cross-windows-popups.log"
wineserver -k 2>/dev/null || true
# Packaging needs only the two exes; the test executables, deps and the prefix can go.
prune "$WIN/debug/deps" "$WIN/debug/build" "$WIN/debug/incremental" "$WIN/debug/examples" \
    "$WIN/release/deps" "$WIN/release/build" "$WIN/release/incremental"
[ "${CROSS_PRUNE:-0}" = 1 ] && rm -rf "$WINEPREFIX"

step "cross: done"
