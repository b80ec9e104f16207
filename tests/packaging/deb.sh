#!/usr/bin/env bash
# The .deb as a person meets it (CI, as root; changes /usr, so not part of `cargo test`):
#  1. build it (PROFILE=debug by default: the binaries the tests built), `dpkg -i` it;
#  2. both binaries on PATH at the same version; `desktop-file-validate` on the menu entry;
#  3. the installed app, started under Xvfb (openbox as the window manager) with a fake HOME that
#     has ~/.claude/, installs its hook there; one PermissionRequest through that hook becomes a
#     card, and a real mouse click (xdotool) on its green Allow button answers it;
#  4. the systemd user unit passes `systemd-analyze verify`, and the headless app started as its
#     ExecStart says (the environment a user manager gives: HOME, XDG_RUNTIME_DIR, umask 0077)
#     serves the hook socket and the phone commands' channel, keeps its keys in the 0600 fallback
#     without D-Bus and says so, and stops with exit 0 on SIGTERM (systemctl --user stop);
#  5. `vults-app --uninstall` gives back ~/.claude/settings.json byte for byte; `dpkg -r` removes
#     every file the package installed.
# Needs: dpkg, xvfb, openbox, xdotool, imagemagick, librsvg2-bin, desktop-file-utils, python3, Mesa,
# systemd (systemd-analyze).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
profile="${PROFILE:-debug}"
fail() { echo "deb test FAILED: $*" >&2; exit 1; }
say() { echo "deb test: $*"; }

t=$(mktemp -d /tmp/vults-deb.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    dpkg -P vults >/dev/null 2>&1 || true
    rm -rf "$t"
}
trap cleanup EXIT

bash packaging/build.sh "$profile" >"$t/build.out"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
deb="dist/vults_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || fail "$deb was not built"
[ -f "dist/vults-${version}-linux-$(dpkg --print-architecture).tar.gz" ] || fail "no .tar.gz"
dpkg -i "$deb" >/dev/null
say "installed $deb"

[ "$(command -v vults-app)" = /usr/bin/vults-app ] || fail "vults-app is not on PATH"
[ "$(command -v vults-hook)" = /usr/bin/vults-hook ] || fail "vults-hook is not on PATH"
app_v=$(vults-app --version); hook_v=$(vults-hook --version)
[ "${app_v#vults-app }" = "${hook_v#vults-hook }" ] || fail "versions differ: $app_v / $hook_v"
[ "${app_v#vults-app }" = "$version (hook protocol 9)" ] || fail "unexpected version: $app_v"
say "$app_v / $hook_v"
desktop-file-validate /usr/share/applications/vults.desktop || fail "desktop entry"
for n in 16 24 32 48 64 128 256 512; do
    [ -s "/usr/share/icons/hicolor/${n}x${n}/apps/vults.png" ] || fail "no ${n}x${n} icon"
done

# A fake user: HOME with Claude Code's folder and a settings file of their own.
home="$t/home"; run="$t/run"
mkdir -p "$home/.claude" "$run"; chmod 700 "$run"
printf '{\n  "model": "opus",\n  "env": {"A": "1"}\n}\n' >"$home/.claude/settings.json"
cp "$home/.claude/settings.json" "$t/settings.before"
as_user() { env -i PATH=/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="$run" "$@"; }

display=":$(( 90 + $$ % 50 ))"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 & pids+=($!)
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
export DISPLAY="$display"
as_user DISPLAY="$display" openbox >/dev/null 2>&1 & pids+=($!)
# The app itself is the background job (exec), so that killing $app_pid stops the app and not
# a subshell around it: the headless app below must find the socket free.
(exec env -i PATH=/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="$run" DISPLAY="$display" \
    LIBGL_ALWAYS_SOFTWARE=1 /usr/bin/vults-app) >"$t/app.out" 2>&1 & pids+=($!)
app_pid=$!
hook="$home/.local/share/vults/bin/vults-hook"
for _ in $(seq 100); do grep -q "$hook --agent claude PermissionRequest" "$home/.claude/settings.json" 2>/dev/null && break; sleep 0.2; done
grep -q "$hook --agent claude PermissionRequest" "$home/.claude/settings.json" \
    || fail "the app did not install its hook in ~/.claude: $(cat "$t/app.out")"
say "the installed app put its hook in ~/.claude/settings.json"

# One permission request through the installed hook, as Claude Code would send it.
cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hooks"]["PermissionRequest"][0]["hooks"][0]["command"])' "$home/.claude/settings.json")
echo '{"session_id":"deb-1","cwd":"/tmp","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"echo packaged","description":"Say packaged"}}' >"$t/payload.json"
as_user sh -c "$cmd" <"$t/payload.json" >"$t/hook.out" 2>"$t/hook.err" & hook_pid=$!
wid=""
for _ in $(seq 100); do wid=$(xdotool search --onlyvisible --name '^Vults: Claude Code' 2>/dev/null | head -1) && [ -n "$wid" ] && break; sleep 0.2; done
[ -n "$wid" ] || fail "no card window appeared: $(cat "$t/hook.err") $(tail -5 "$home/.local/state/vults/vults.log")"
# The card's buttons are faded until it has been up card::ARM_DELAY (0.5 s) in its place, and a
# click before that does nothing: look, as a person does, until the green Allow button shows at
# full colour (theme::GREEN, #3DB86B: the card's widest row of it), click it, and look again if
# the hook is still waiting (the card re-arms when it settles to its measured height).
answered=""; seen=""
for _ in $(seq 60); do
    eval "$(xdotool getwindowgeometry --shell "$wid")"
    import -window "$wid" "$t/card.png" 2>/dev/null || { sleep 0.2; continue; }
    bx=""; by=""
    read -r bx by < <(convert "$t/card.png" txt:- | awk -F'[,: ]+' '/#3DB86B/ {n[$2]++; sx[$2]+=$1}
        END {for (y in n) if (n[y] > best) {best = n[y]; by = y; bx = int(sx[y] / n[y])} print bx, by}')
    if [ -z "${bx:-}" ]; then sleep 0.2; continue; fi
    seen=1
    xdotool mousemove $((X + bx)) $((Y + by)) click 1
    say "clicked Allow at $((X + bx)),$((Y + by))"
    for _ in $(seq 20); do kill -0 "$hook_pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$hook_pid" 2>/dev/null || { answered=1; break; }
done
[ -n "$seen" ] || fail "no Allow button found on the card"
[ -n "$answered" ] || fail "clicking Allow did not answer the card: $(tail -5 "$home/.local/state/vults/vults.log")"
wait "$hook_pid" || fail "the hook exited non-zero"
grep -q '"behavior":"allow"' "$t/hook.out" || fail "the hook printed: $(cat "$t/hook.out") / $(cat "$t/hook.err")"
say "the hook got: $(cat "$t/hook.out")"

kill "$app_pid"; wait "$app_pid" 2>/dev/null || true

# The headless app as the systemd user unit runs it.
unit=/usr/lib/systemd/user/vults.service
[ -f "$unit" ] || fail "no systemd user unit at $unit"
verify=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $verify"
[ -z "$verify" ] || fail "systemd-analyze verify warns: $verify"
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[ "$exec_start" = "/usr/bin/vults-app --headless" ] || fail "unexpected ExecStart: $exec_start"
# shellcheck disable=SC2086 # ExecStart's words, as systemd splits them
(umask 0077; exec env -i PATH=/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="$run" $exec_start) \
    >"$t/headless.out" 2>&1 & headless_pid=$!; pids+=($headless_pid)
for _ in $(seq 100); do [ -S "$run/vults/vults.phone.sock" ] && break; sleep 0.1; done
[ -S "$run/vults/vults.phone.sock" ] || fail "the headless app serves no phone channel: $(cat "$t/headless.out")"
grep -q "serving $run/vults/vults.sock" "$t/headless.out" || fail "not serving the hook socket: $(cat "$t/headless.out")"
as_user vults-app phone list >"$t/phone.out" 2>"$t/phone.err" || fail "phone list: $(cat "$t/phone.err")"
grep -q "No paired phones" "$t/phone.out" || fail "phone list said: $(cat "$t/phone.out")"
grep -q "readable only by you" "$t/phone.err" || fail "phone list does not say where the keys are: $(cat "$t/phone.err")"
[ "$(stat -c %a "$home/.config/vults/phone-link.key")" = 600 ] || fail "the key file is not 0600"
kill -TERM "$headless_pid"; wait "$headless_pid" || fail "the headless app did not exit 0 on SIGTERM: $(tail -5 "$t/headless.out")"
say "the unit verifies; its ExecStart serves the socket and the phone commands, and stops on SIGTERM"

# The user's own undo, then the package's removal.
as_user vults-app --uninstall >"$t/uninstall.out"
cmp -s "$t/settings.before" "$home/.claude/settings.json" \
    || fail "settings.json differs after --uninstall: $(diff "$t/settings.before" "$home/.claude/settings.json")"
say "--uninstall gave ~/.claude/settings.json back byte for byte"
files=$(dpkg -L vults | while read -r f; do [ -f "$f" ] && echo "$f"; done)
dpkg -r vults >/dev/null
for f in $files; do [ ! -e "$f" ] || fail "$f is still there after dpkg -r"; done
command -v vults-app >/dev/null && fail "vults-app still on PATH after dpkg -r"
say "dpkg -r removed $(echo "$files" | wc -l) files; PASSED"
