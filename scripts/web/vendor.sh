#!/usr/bin/env bash
# Regenerates the portal page's vendored files from npm pins (package.json,
# package-lock.json beside this script): web/ui/vendor/world.json, the map's
# world outline. The page never fetches anything at run time; its output is
# committed, so running this is only needed to change the pins.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund >&2
mkdir -p ../../web/ui/vendor
node world.mjs
