#!/bin/sh
# named-tool.sh — a tiny tool of your own that asks Vults before it runs a command.
#
#   named-tool.sh <command> [args…]
#
# It sends Claude Code's hook JSON to `vults-hook --agent <name> --reply vults PermissionRequest`
# (docs/hook-protocol.md §7) and honours the one fixed reply:
#   {"decision":"allow"}                              → runs the command
#   {"decision":"deny","reason":"Denied from Vults"}  → does not
#   anything else, empty included                     → asks on its own terminal (stdin)
# POSIX sh and the hook; nothing else. Settings:
#   VULTS_HOOK       the hook binary (default: vults-hook on PATH)
#   VULTS_TOOL_NAME  the name the card and rules are kept under (default: named-tool-sh)
set -u

name=${VULTS_TOOL_NAME:-named-tool-sh}
hook=${VULTS_HOOK:-vults-hook}
cmd=$*
if [ -z "$cmd" ]; then
    echo "usage: named-tool.sh <command> [args…]" >&2
    exit 2
fi

# JSON string escaping for what a shell can hold: backslash, quote, tab, CR, newline. The CR is
# matched as a literal character (`\r` in a sed regex is GNU only). Any other control character
# leaves the JSON invalid: the hook refuses it, prints nothing, and we ask on the terminal.
cr=$(printf '\r')
json_escape() {
    printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/	/\\t/g' -e "s/$cr/\\\\r/g" |
        awk 'BEGIN { ORS = "" } NR > 1 { print "\\n" } { print }'
}

session=${VULTS_TOOL_SESSION:-$name-$$}
payload=$(printf '{"session_id":"%s","cwd":"%s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"%s"}}' \
    "$(json_escape "$session")" "$(json_escape "$PWD")" "$(json_escape "$cmd")")

reply=$(printf '%s' "$payload" | "$hook" --agent "$name" --reply vults PermissionRequest 2>/dev/null) || reply=""

case $reply in
    '{"decision":"allow"}')
        exec sh -c "$cmd"
        ;;
    '{"decision":"deny",'*)
        echo "$name: denied from Vults: $cmd" >&2
        exit 1
        ;;
esac

# No answer from Vults (closed, paused, nobody clicked in time, an old app): ask ourselves.
printf '%s: run `%s`? [y/N] ' "$name" "$cmd" >&2
answer=
read -r answer || answer=
case $answer in
    y | Y | yes | YES) exec sh -c "$cmd" ;;
    *)
        echo "$name: not run" >&2
        exit 1
        ;;
esac
