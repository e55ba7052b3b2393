#!/bin/sh
# Installs Debian's Chromium for the console's browser tests (apps/registry/e2e/console.spec.ts).
# Idempotent: exits at once when /usr/bin/chromium exists.
set -eu
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
test -x /usr/bin/chromium
