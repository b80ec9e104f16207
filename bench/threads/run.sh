#!/bin/bash
# Threads at rest (issue 39), as BENCHMARKS.md counts them: the window under Xvfb (no window
# manager, no tray host, no phone link enabled) and `vults-app --headless`, each 8 s after its
# hook socket came up: `ls /proc/<pid>/task | wc -l` and the threads' names. Needs Xvfb.
# Usage: cargo build -p vults-app && bench/threads/run.sh   (APP=<vults-app> to count another)
APP=${APP:-target/debug/vults-app}
count() { # pid label
  local pid=$1
  echo "$2: $(ls /proc/$pid/task | wc -l) threads"
  cat /proc/$pid/task/*/comm | sort | uniq -c | sort -rn | awk '{printf "%s×%s ", $2, $1}'; echo
}
H=$(mktemp -d /tmp/vults-threads.XXXX); mkdir -p $H/home $H/config
echo '{"welcome":{"shown":true}}' > $H/config/settings.json
Xvfb :93 -screen 0 1280x800x24 >/dev/null 2>&1 & X=$!
sleep 1
env -i PATH=$PATH DISPLAY=:93 VULTS_HOME=$H HOME=$H/home LIBGL_ALWAYS_SOFTWARE=1 $APP >/dev/null 2>$H/err & P=$!
for i in $(seq 60); do [ -S $H/run/vults.sock ] && break; sleep 1; done
sleep 8; count $P "the window"
kill $P; wait $P 2>/dev/null; kill $X; wait $X 2>/dev/null
H=$(mktemp -d /tmp/vults-threads.XXXX); mkdir -p $H/home
env -i PATH=$PATH VULTS_HOME=$H HOME=$H/home $APP --headless </dev/null >/dev/null 2>$H/err & P=$!
for i in $(seq 60); do [ -S $H/run/vults.sock ] && break; sleep 1; done
sleep 8; count $P "vults-app --headless"
kill $P; wait $P 2>/dev/null
rm -rf /tmp/vults-threads.*
