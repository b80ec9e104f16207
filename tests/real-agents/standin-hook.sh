#!/bin/sh
# A trivial stand-in for vults-hook (stage 2 of the real-agent tests): always answers the same way.
#   standin-hook.sh allow|deny <agent> <Event>
# Reads the event on stdin (saved to $HOME/standin-<agent>-<Event>.json) and prints the agent's decision.
verdict="$1"; agent="$2"; event="$3"
cat >"$HOME/standin-$agent-$event.json" 2>/dev/null || cat >/dev/null
case "$agent:$verdict" in
  copilot:allow) echo '{"behavior":"allow"}' ;;
  copilot:deny) echo '{"behavior":"deny","message":"Denied by the stand-in"}' ;;
  opencode:allow) echo '{"reply":"once"}' ;;
  opencode:deny) echo '{"reply":"reject"}' ;;
  *:allow) echo "{\"hookSpecificOutput\":{\"hookEventName\":\"$event\",\"decision\":{\"behavior\":\"allow\"}}}" ;;
  *:deny) echo "{\"hookSpecificOutput\":{\"hookEventName\":\"$event\",\"decision\":{\"behavior\":\"deny\",\"message\":\"Denied by the stand-in\"}}}" ;;
esac
exit 0
