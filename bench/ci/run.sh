#!/usr/bin/env bash
# The README's test command, build and run, from a clean target folder, for one commit:
#   bench/ci/run.sh <rev> [label]
# Clones <rev> of this repository into /tmp/vults-bench-<label>, then runs, one after the other:
#   1. cargo build --workspace --all-targets --timings   (what `cargo test --workspace` builds)
#   2. cargo test --workspace                            (the README's command: builds nothing more, runs)
# and prints wall, user and sys seconds of each (GNU time), the test binaries and the target's
# size. The cargo timings page is copied to /tmp/vults-bench-<label>-timings.html. Results go in
# BENCHMARKS.md ("## CI").
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
export CARGO_INCREMENTAL=0 CARGO_TERM_COLOR=never
t() { # label, command...
    local l=$1; shift
    /usr/bin/time -f "$l: wall %e s, user %U s, sys %S s, max rss %M KB" -o /tmp/vults-bench-$label.time -a "$@"
}
: >/tmp/vults-bench-$label.time
t build cargo build --workspace --all-targets --timings --quiet
cp target/cargo-timings/cargo-timing.html "/tmp/vults-bench-$label-timings.html" 2>/dev/null || true
t test cargo test --workspace >/tmp/vults-bench-$label.test.log 2>&1 || echo "tests failed: see /tmp/vults-bench-$label.test.log"
cat /tmp/vults-bench-$label.time
echo "test binaries run: $(grep -c '^     Running' /tmp/vults-bench-$label.test.log || true)"
echo "tests: $(grep '^test result' /tmp/vults-bench-$label.test.log | awk '{p+=$4; f+=$6} END {print p " passed, " f " failed"}')"
echo "target: $(du -sh target | cut -f1)"
cd / && rm -rf "$dir"
