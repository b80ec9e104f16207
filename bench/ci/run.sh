#!/usr/bin/env bash
# The README's test command, build and run, from a clean target folder, for one commit:
#   bench/ci/run.sh <rev> [label]
# Clones <rev> of this repository into /tmp/vults-bench-<label>, then runs, one after the other:
#   1. cargo test --workspace --no-run --timings   (the build: what both test runners build)
#   2. the README's test command at <rev>: `bash tests/run` where the commit has it, else
#      `cargo test --workspace` (it builds nothing more by then, and runs every test)
# in CI's environment (VULTS_REAL_AGENTS=1 VULTS_PHONE_BROWSER=1 VULTS_DESKTOP_TESTS=1, as
# .ci/run sets them), and prints wall, user and sys seconds of each (GNU time), the tests passed
# and the target's size. The cargo timings page is copied to /tmp/vults-bench-<label>-timings.html.
# Results go in BENCHMARKS.md ("## CI").
set -euo pipefail
rev=${1:?rev}
label=${2:-$rev}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=/tmp/vults-bench-$label
rm -rf "$dir"
git clone -q "$root" "$dir"
git -C "$dir" checkout -q "$rev"
cd "$dir"
# The real-agent cache and the browser test's node_modules are installs, not builds: reuse them.
[ -d "$root/tests/real-agents/.cache" ] && cp -al "$root/tests/real-agents/.cache" tests/real-agents/ 2>/dev/null || true
[ -d "$root/tests/phone-browser/node_modules" ] && [ -d tests/phone-browser ] \
    && cp -al "$root/tests/phone-browser/node_modules" tests/phone-browser/ 2>/dev/null || true
export CARGO_INCREMENTAL=0 CARGO_TERM_COLOR=never
export VULTS_REAL_AGENTS=1 VULTS_PHONE_BROWSER=1 VULTS_DESKTOP_TESTS=1
mkdir -p -m 700 /tmp/vults-ci-xdg
export XDG_RUNTIME_DIR=/tmp/vults-ci-xdg
t() { # label, command...
    local l=$1; shift
    /usr/bin/time -f "$l: wall %e s, user %U s, sys %S s, max rss %M KB" -o /tmp/vults-bench-$label.time -a "$@"
}
: >/tmp/vults-bench-$label.time
t build cargo test --workspace --no-run --timings --quiet
cp target/cargo-timings/cargo-timing.html "/tmp/vults-bench-$label-timings.html" 2>/dev/null || true
if [ -x tests/run ]; then readme=(bash tests/run); else readme=(cargo test --workspace); fi
echo "README's test command: ${readme[*]}"
t test "${readme[@]}" >/tmp/vults-bench-$label.test.log 2>&1 || echo "tests failed: see /tmp/vults-bench-$label.test.log"
cat /tmp/vults-bench-$label.time
# libtest's lines (cargo test, and the doc tests after nextest) and nextest's summary.
echo "tests: $(grep -E '^test result|^ +Summary' /tmp/vults-bench-$label.test.log | awk '
    /^test result/ {p += $4; f += $6}
    /Summary/ {for (i = 1; i <= NF; i++) {if ($i == "passed,"  || $i == "passed") p += $(i-1); if ($i == "failed" || $i == "failed,") f += $(i-1)}}
    END {print p " passed, " f " failed"}')"
echo "target: $(du -sh target | cut -f1)"
cd / && rm -rf "$dir"
