#!/usr/bin/env bash
# Stage-2 check, no Vults involved: each real agent's permission hook fires and is obeyed.
# For every agent: one run with a stand-in hook that allows (the marker file must exist afterwards)
# and one with a stand-in that denies (the marker must not exist).   Usage: standin.sh [agent…]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agents=("$@")
[ ${#agents[@]} -eq 0 ] && agents=(claude codex qwen opencode copilot)
work="$(mktemp -d /tmp/vults-standin.XXXXXX)"
fail=0

start_mock() { # <command> <log> → sets MOCK_PID, MOCK_PORT
  local fifo="$work/mock.fifo.$RANDOM"
  mkfifo "$fifo"
  node "$here/mock-model.mjs" --command "$1" --log "$2" >"$fifo" &
  MOCK_PID=$!
  read -r _ MOCK_PORT <"$fifo"
  rm -f "$fifo"
}

for a in "${agents[@]}"; do
  for verdict in allow deny; do
    d="$work/$a-$verdict"; home="$d/home"; project="$d/project"; marker="$project/marker.txt"
    mkdir -p "$home" "$project"
    start_mock "echo vults-e2e > '$marker'" "$d/mock.log"
    "$here/agent.sh" setup "$a" "$home" "$project" "$MOCK_PORT"
    "$here/agent.sh" hooks "$a" "$home" "$here/standin-hook.sh $verdict $a"
    t0=$EPOCHREALTIME
    "$here/agent.sh" run "$a" "$home" "$project" "$MOCK_PORT" >"$d/agent.out" 2>"$d/agent.err"
    rc=$?
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')
    kill "$MOCK_PID" 2>/dev/null; wait "$MOCK_PID" 2>/dev/null
    fired=no; ls "$home"/standin-* >/dev/null 2>&1 && fired=yes
    ok=no
    if [ "$verdict" = allow ] && [ -f "$marker" ]; then ok=yes; fi
    if [ "$verdict" = deny ] && [ ! -f "$marker" ] && [ $fired = yes ]; then ok=yes; fi
    printf '%-9s %-6s rc=%-3s hook-fired=%-3s marker=%-3s %5ss  %s\n' "$a" "$verdict" "$rc" "$fired" \
      "$([ -f "$marker" ] && echo yes || echo no)" "$secs" "$([ $ok = yes ] && echo PASS || echo FAIL)"
    if [ $ok = no ]; then
      fail=1
      echo "---- $a $verdict: agent stdout (tail) ----"; tail -n 20 "$d/agent.out"
      echo "---- $a $verdict: agent stderr (tail) ----"; tail -n 20 "$d/agent.err"
      echo "---- $a $verdict: mock requests: $(wc -l <"$d/mock.log" 2>/dev/null || echo 0) (in $d/mock.log)"
    fi
  done
done
[ $fail = 0 ] && rm -rf "$work" || echo "kept $work for inspection"
exit $fail
