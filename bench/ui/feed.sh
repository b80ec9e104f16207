#!/bin/sh
# feed.sh — plays agents against a running Vults through the real vults-hook.
#
#   feed.sh sessions N        N sessions of five agents (and a named tool), with tools and costs
#   feed.sh card KIND [ARG]   one waiting request, in the background (KIND: bash, edit, question,
#                             rm, named); its hook's stdout goes to $OUT/card-<pid>.out
#
# Env: HOOK (the vults-hook binary), VULTS_HOME / VULTS_SOCKET (where the app listens),
#      OUT (a folder for what the hooks print; default /tmp/vults-feed).
set -eu
HOOK=${HOOK:-vults-hook}
OUT=${OUT:-/tmp/vults-feed}
mkdir -p "$OUT"

send() { # agent event json [extra args]
    agent=$1 event=$2 json=$3
    shift 3
    printf '%s' "$json" | "$HOOK" --agent "$agent" "$@" "$event" >/dev/null 2>&1 || true
}

sessions() {
    n=$1 i=0
    while [ "$i" -lt "$n" ]; do
        case $((i % 6)) in
            0) agent=claude tool=Bash input='{"command":"cargo test -p vults-core"}' ;;
            1) agent=codex tool=apply_patch input='{"command":"*** Begin Patch\n*** Update File: src/lib.rs"}' ;;
            2) agent=opencode tool=read input='{"filePath":"/home/ada/notes/todo.md"}' ;;
            3) agent=qwen tool=run_shell_command input='{"command":"npm run build"}' ;;
            4) agent=copilot tool=shell input='{"command":"git status --short"}' ;;
            5) agent=deploy-bot tool=deploy input='{"env":"staging"}' ;;
        esac
        sid="bench-$agent-$i"
        dir="/home/ada/src/project-$i"
        send "$agent" SessionStart "{\"session_id\":\"$sid\",\"cwd\":\"$dir\",\"hook_event_name\":\"SessionStart\"}"
        send "$agent" PreToolUse "{\"session_id\":\"$sid\",\"cwd\":\"$dir\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"$tool\",\"tool_input\":$input}"
        if [ "$agent" = claude ]; then
            now=$(date +%s)
            printf '{"session_id":"%s","cwd":"'"$dir"'","cost":{"total_cost_usd":%s.%02d},"rate_limits":{"five_hour":{"used_percentage":%d,"resets_at":%d},"seven_day":{"used_percentage":%d,"resets_at":%d}}}' \
                "$sid" $((i / 6)) $((i * 7 % 100)) $((20 + i * 3)) $((now + 7800)) $((10 + i)) $((now + 259200)) |
                "$HOOK" --agent claude --statusline >/dev/null 2>&1 || true
        fi
        i=$((i + 1))
    done
}

card() {
    kind=$1
    arg=${2:-}
    sid=bench-claude-0
    dir=/home/ada/src/project-0
    case $kind in
        bash) json="{\"session_id\":\"$sid\",\"cwd\":\"$dir\",\"hook_event_name\":\"PermissionRequest\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"${arg:-cargo build --release \\u0026\\u0026 ./target/release/vults-app --headless 2\\u003e\\u00261 | tee build.log}\",\"description\":\"Build and run\"}}"
              args="--agent claude PermissionRequest" ;;
        rm) json="{\"session_id\":\"$sid\",\"cwd\":\"$dir\",\"hook_event_name\":\"PermissionRequest\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf ./target ./node_modules\"}}"
              args="--agent claude PermissionRequest" ;;
        edit) json="{\"session_id\":\"bench-claude-6\",\"cwd\":\"/home/ada/src/project-6\",\"hook_event_name\":\"PermissionRequest\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"/home/ada/src/project-6/src/lib.rs\",\"old_string\":\"fn main() {\\n    println!(\\\"hi\\\");\\n}\",\"new_string\":\"fn main() {\\n    eprintln!(\\\"hello, world\\\");\\n}\"}}"
              args="--agent claude PermissionRequest" ;;
        question) json="{\"session_id\":\"$sid\",\"cwd\":\"$dir\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"AskUserQuestion\",\"tool_input\":{\"questions\":[{\"question\":\"Which database should the cache use?\",\"header\":\"Storage\",\"multiSelect\":false,\"options\":[{\"label\":\"SQLite\",\"description\":\"One file next to the config\"},{\"label\":\"Postgres\",\"description\":\"The shared server\"}]},{\"question\":\"Which platforms must it run on?\",\"header\":\"Platforms\",\"multiSelect\":true,\"options\":[{\"label\":\"Linux\",\"description\":\"\"},{\"label\":\"macOS\",\"description\":\"\"},{\"label\":\"Windows\",\"description\":\"\"}]}]}}"
              args="--agent claude --ask PreToolUse" ;;
        named) json="{\"session_id\":\"bench-deploy-bot-5\",\"cwd\":\"/srv/releases\",\"hook_event_name\":\"PermissionRequest\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"./deploy.sh staging\"}}"
              args="--agent deploy-bot --reply vults PermissionRequest" ;;
        *) echo "feed.sh: unknown card kind $kind" >&2; exit 2 ;;
    esac
    # shellcheck disable=SC2086 # args are words on purpose
    (printf '%s' "$json" | "$HOOK" $args >"$OUT/card-$kind-$$.out" 2>/dev/null) </dev/null >/dev/null 2>&1 &
    echo $!
}

case ${1:-} in
    sessions) sessions "${2:-20}" ;;
    card) card "${2:?kind}" "${3:-}" ;;
    *) echo "usage: feed.sh sessions N | card KIND [ARG]" >&2; exit 2 ;;
esac
