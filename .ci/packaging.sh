#!/usr/bin/env bash
# CI: the packages, built and installed (packaging/). Called from .ci/run after the tests, so the
# debug binaries exist. The .deb is installed with dpkg and driven under Xvfb; the NSIS
# installer runs silently under Wine. PROFILE=release packages release binaries instead.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq --no-install-recommends \
    xvfb openbox xdotool imagemagick librsvg2-bin desktop-file-utils python3 \
    nsis wine wine64 mingw-w64 systemd >/dev/null
rustup target add x86_64-pc-windows-gnu >/dev/null 2>&1 || true
bash tests/packaging/deb.sh
# The Windows binaries: .ci/cross.sh builds them when it runs first; otherwise build them here.
bash tests/packaging/nsis.sh
