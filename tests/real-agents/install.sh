#!/usr/bin/env bash
# Installs the five real agent CLIs, at the versions pinned in agents/<name>/package.json (+ lockfile),
# each into its own folder tests/real-agents/.cache/<name>/ (git-ignored). Idempotent: an agent whose
# pinned version is already there is skipped. Usage: install.sh [agent…]   (default: all five)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="$here/.cache"
mkdir -p "$cache"

# agent → npm package, native entry (relative to the agent's node_modules) that must exist afterwards
declare -A PKG=(
  [claude]=@anthropic-ai/claude-code
  [codex]=@openai/codex
  [qwen]=@qwen-code/qwen-code
  [opencode]=opencode-ai
  [copilot]=@github/copilot
  [opencode-plugin]=@opencode-ai/plugin
)
declare -A ENTRY=(
  [claude]=@anthropic-ai/claude-code-linux-x64/claude
  [codex]=.bin/codex
  [qwen]=@qwen-code/qwen-code/cli.js
  [opencode]=opencode-linux-x64/bin/opencode
  [copilot]=@github/copilot-linux-x64/copilot
  [opencode-plugin]=@opencode-ai/plugin/package.json
)

agents=("$@")
# opencode-plugin: what OpenCode itself npm-installs into its config folder once a plugin is there;
# agent.sh copies it into the fake HOME so no run waits ~15 s for npm.
[ ${#agents[@]} -eq 0 ] && agents=(claude codex qwen opencode copilot opencode-plugin)

pinned() { node -e 'const p=require(process.argv[1]);console.log(Object.values(p.dependencies)[0])' "$here/agents/$1/package.json"; }
installed() { node -e 'try{console.log(require(process.argv[1]).version)}catch(e){}' "$cache/$1/node_modules/${PKG[$1]}/package.json"; }

install_one() {
  local a="$1" dir="$cache/$1" want have
  want="$(pinned "$a")"
  have="$(installed "$a")"
  if [ "$have" = "$want" ] && [ -e "$dir/node_modules/${ENTRY[$a]}" ]; then
    echo "real-agents: $a ${PKG[$a]}@$want already installed"
    return 0
  fi
  mkdir -p "$dir"
  cp "$here/agents/$a/package.json" "$dir/package.json"
  if [ -f "$here/agents/$a/package-lock.json" ]; then
    cp "$here/agents/$a/package-lock.json" "$dir/package-lock.json"
  fi
  local t0=$SECONDS
  if ! (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >"$dir/npm-install.log" 2>&1); then
    echo "real-agents: npm install of $a failed; tail of $dir/npm-install.log:" >&2
    tail -n 30 "$dir/npm-install.log" >&2
    return 1
  fi
  if [ ! -e "$dir/node_modules/${ENTRY[$a]}" ]; then
    echo "real-agents: $a installed but its entry node_modules/${ENTRY[$a]} is missing" >&2
    return 1
  fi
  # first install: keep the lockfile so later installs get exactly the same tree
  [ -f "$here/agents/$a/package-lock.json" ] || cp "$dir/package-lock.json" "$here/agents/$a/package-lock.json"
  echo "real-agents: installed $a ${PKG[$a]}@$want in $((SECONDS - t0)) s"
}

pids=() ; names=()
for a in "${agents[@]}"; do
  [ -n "${PKG[$a]:-}" ] || { echo "real-agents: unknown agent $a" >&2; exit 2; }
  install_one "$a" & pids+=($!); names+=("$a")
done
fail=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { echo "real-agents: install of ${names[$i]} FAILED" >&2; fail=1; }
done
exit $fail
