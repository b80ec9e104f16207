#!/usr/bin/env bash
# Per-agent recipes for the real-agent end-to-end tests (see README.md beside this file).
#
#   agent.sh setup  <agent> <home> <project> <port>     model/provider config only (no hooks) in the fake HOME
#   agent.sh hooks  <agent> <home> <hook-cmd>           stand-in hook registration (what Vults' installer does for real)
#   agent.sh run    <agent> <home> <project> <port>     one headless run (outer timeout), stdout+stderr to the caller
#
# OpenCode runs as `opencode serve` driven over HTTP (opencode-serve.mjs), as its TUI is, or with
# OPENCODE_VIA=run | run-auto as the headless `opencode run` [--auto], which answers every permission
# request itself at once (reject; once with --auto) unless a plugin answers first.
#
# <agent>: claude | codex | qwen | opencode | copilot. The agents come from .cache/<agent> (install.sh).
# Env: REAL_AGENT_TIMEOUT (seconds, default 60), CODEX_BYPASS_HOOK_TRUST (default 1: pass Codex's
# documented one-run --dangerously-bypass-hook-trust; tests only), OPENCODE_VIA (serve | run |
# run-auto; default serve).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nm() { echo "$here/.cache/$1/node_modules"; }

cmd="${1:?usage: agent.sh setup|hooks|run <agent> …}"
agent="${2:?agent}"
home="${3:?home}"

json_str() { node -e 'process.stdout.write(JSON.stringify(process.argv[1]))' "$1"; }

setup() {
  local project="$1" port="$2"
  mkdir -p "$home" "$project"
  case "$agent" in
    claude)
      mkdir -p "$home/.claude"
      [ -f "$home/.claude/settings.json" ] || echo '{}' >"$home/.claude/settings.json"
      ;;
    codex)
      mkdir -p "$home/.codex"
      cat >"$home/.codex/config.toml" <<EOF
model = "mock-model"
model_provider = "mock"
approval_policy = "on-request"
sandbox_mode = "workspace-write"

[model_providers.mock]
name = "Mock"
base_url = "http://127.0.0.1:$port/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"

[projects.$(json_str "$project")]
trust_level = "trusted"
EOF
      ;;
    qwen)
      mkdir -p "$home/.qwen"
      cat >"$home/.qwen/settings.json" <<'EOF'
{
  "security": {"auth": {"selectedType": "openai"}},
  "model": {"name": "mock-model"},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "tools": {"approvalMode": "default", "toolSearch": {"enabled": false}},
  "memory": {"enableManagedAutoMemory": false, "enableAutoSkill": false}
}
EOF
      ;;
    opencode)
      mkdir -p "$home/.config/opencode/plugin"
      # What OpenCode npm-installs here on its first start with a plugin (~15 s): pre-seeded.
      local seed="$here/.cache/opencode-plugin"
      if [ -d "$seed/node_modules" ] && [ ! -e "$home/.config/opencode/node_modules" ]; then
        cp -a "$seed/package.json" "$seed/package-lock.json" "$seed/node_modules" "$home/.config/opencode/"
      fi
      cat >"$home/.config/opencode/opencode.json" <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "mock/mock-model",
  "small_model": "mock/mock-model",
  "provider": {
    "mock": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Mock",
      "options": {"baseURL": "http://127.0.0.1:$port/v1", "apiKey": "sk-test"},
      "models": {"mock-model": {"name": "Mock Model", "tool_call": true, "limit": {"context": 128000, "output": 4096}}}
    }
  },
  "permission": {"bash": "ask", "edit": "ask", "external_directory": "allow"}
}
EOF
      ;;
    copilot)
      mkdir -p "$home/.copilot"
      cat >"$home/.copilot/settings.json" <<'EOF'
{
  "autoUpdate": false,
  "banner": "never"
}
EOF
      ;;
    *) echo "agent.sh: unknown agent $agent" >&2; exit 2 ;;
  esac
}

# Stand-in registration of a hook command (stage 2 of the tests; Vults' own installer replaces this).
hooks() {
  local hook="$1" h
  h="$(json_str "$hook")"
  case "$agent" in
    claude)
      node -e '
        const fs=require("fs"),f=process.argv[1],h=process.argv[2];
        const s=JSON.parse(fs.readFileSync(f,"utf8")); s.hooks=s.hooks||{};
        s.hooks.PermissionRequest=[{matcher:"*",hooks:[{type:"command",command:h+" PermissionRequest",timeout:30}]}];
        fs.writeFileSync(f,JSON.stringify(s,null,2));' "$home/.claude/settings.json" "$hook" ;;
    codex)
      cat >"$home/.codex/hooks.json" <<EOF
{"hooks": {"PermissionRequest": [{"hooks": [{"type": "command", "command": $(json_str "$hook PermissionRequest"), "timeout": 30}]}]}}
EOF
      ;;
    qwen)
      node -e '
        const fs=require("fs"),f=process.argv[1],h=process.argv[2];
        const s=JSON.parse(fs.readFileSync(f,"utf8")); s.hooks=s.hooks||{};
        s.hooks.PermissionRequest=[{matcher:"*",hooks:[{type:"command",command:h+" PermissionRequest",timeout:30}]}];
        fs.writeFileSync(f,JSON.stringify(s,null,2));' "$home/.qwen/settings.json" "$hook" ;;
    copilot)
      node -e '
        const fs=require("fs"),f=process.argv[1],h=process.argv[2];
        const s=JSON.parse(fs.readFileSync(f,"utf8")); s.hooks=s.hooks||{};
        s.hooks.permissionRequest=[{type:"command",bash:h+" permissionRequest",timeoutSec:30}];
        fs.writeFileSync(f,JSON.stringify(s,null,2));' "$home/.copilot/settings.json" "$hook" ;;
    opencode)
      # No command hooks in OpenCode: a thin plugin runs the hook command with the permission.asked
      # event on stdin and replies with what it printed ({"reply":"once"|"reject"}).
      cat >"$home/.config/opencode/plugin/standin.js" <<EOF
import { spawnSync } from "node:child_process";
const HOOK = $h;
export const StandIn = async ({ client }) => ({
  event: async ({ event }) => {
    if (event.type !== "permission.asked") return;
    const p = event.properties;
    const r = spawnSync("/bin/sh", ["-c", HOOK + " permission.asked"], { input: JSON.stringify(event), encoding: "utf8" });
    let reply = null;
    try { reply = JSON.parse(r.stdout).reply; } catch {}
    if (!reply) return;
    await client.postSessionIdPermissionsPermissionId({ path: { id: p.sessionID, permissionID: p.id }, body: { response: reply } });
  },
});
EOF
      ;;
  esac
}

run() {
  local project="$1" port="$2" t="${REAL_AGENT_TIMEOUT:-60}"
  cd "$project"
  local -a base=(env -u CI -u GITHUB_ACTIONS HOME="$home" NO_COLOR=1)
  case "$agent" in
    claude)
      exec timeout -k 5 "$t" "${base[@]}" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-test \
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
        "$(nm claude)/@anthropic-ai/claude-code-linux-x64/claude" -p "write the file" </dev/null ;;
    codex)
      local -a bypass=()
      [ "${CODEX_BYPASS_HOOK_TRUST:-1}" = 1 ] && bypass=(--dangerously-bypass-hook-trust)
      exec timeout -k 5 "$t" "${base[@]}" CODEX_HOME="$home/.codex" MOCK_API_KEY=sk-test \
        "$(nm codex)/.bin/codex" exec --skip-git-repo-check --approve-for-me "${bypass[@]}" "write the file" </dev/null ;;
    qwen)
      echo '{"type":"user","session_id":"s1","message":{"role":"user","content":"write the file"},"parent_tool_use_id":null}' |
        exec timeout -k 5 "$t" "${base[@]}" OPENAI_BASE_URL="http://127.0.0.1:$port/v1" OPENAI_API_KEY=sk-test \
        OPENAI_MODEL=mock-model node "$(nm qwen)/@qwen-code/qwen-code/cli.js" --auth-type openai \
        --approval-mode default --input-format stream-json --output-format stream-json ;;
    opencode)
      local opencode="$(nm opencode)/opencode-linux-x64/bin/opencode"
      local -a how
      case "${OPENCODE_VIA:-serve}" in
        serve) how=(node "$here/opencode-serve.mjs" "$opencode" "write the file") ;;
        run) how=("$opencode" run "write the file") ;;
        run-auto) how=("$opencode" run --auto "write the file") ;;
        *) echo "agent.sh: OPENCODE_VIA must be serve, run or run-auto" >&2; exit 2 ;;
      esac
      exec timeout -k 5 "$t" "${base[@]}" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
        XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state" \
        OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 \
        OPENCODE_DISABLE_LSP_DOWNLOAD=1 \
        "${how[@]}" </dev/null ;;
    copilot)
      exec timeout -k 5 "$t" "${base[@]}" COPILOT_HOME="$home/.copilot" COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false \
        COPILOT_PROVIDER_BASE_URL="http://127.0.0.1:$port/v1" COPILOT_PROVIDER_API_KEY=sk-test COPILOT_MODEL=mock-model \
        "$(nm copilot)/@github/copilot-linux-x64/copilot" --no-auto-update --disable-client-telemetry \
        -p "write the file" </dev/null ;;
    *) echo "agent.sh: unknown agent $agent" >&2; exit 2 ;;
  esac
}

case "$cmd" in
  setup) setup "${4:?project}" "${5:?port}" ;;
  hooks) hooks "${4:?hook command}" ;;
  run) run "${4:?project}" "${5:?port}" ;;
  *) echo "agent.sh: unknown command $cmd" >&2; exit 2 ;;
esac
