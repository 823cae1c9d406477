#!/usr/bin/env bash
# Installs what the test suite needs beyond Python packages: Debian's chromium for the
# real-browser test of the HTML report (tests/report/test_browser.py). Idempotent and quiet;
# without root it only says what is missing (the browser test then skips, except on CI).
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "setup_test_env: $CHROMIUM is missing and we are not root; the browser test will skip" \
         "(install it with: sudo apt-get install chromium)." >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup_test_env: $CHROMIUM is missing and apt-get is not available; install chromium by hand." >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q chromium >/dev/null
[ -x "$CHROMIUM" ] || { echo "setup_test_env: installing chromium did not provide $CHROMIUM" >&2; exit 1; }
