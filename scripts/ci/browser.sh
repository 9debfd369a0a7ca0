#!/usr/bin/env bash
# Installs what the portal page's browser tests need (web/page_e2e_test.go):
# Debian's chromium, Node.js with npm, and web/e2e's npm packages
# (playwright-core and axe-core, pinned by web/e2e/package-lock.json, with
# npm ci). playwright-core drives the Debian browser at /usr/bin/chromium;
# no browser build is ever downloaded (never `npx playwright install`).
# Idempotent: nothing is installed again when it is there. Prints nothing
# on stdout (callers eval its "export" lines; it has none).
set -euo pipefail
exec 3>&1 1>&2
root="$(cd "$(dirname "$0")/../.." && pwd)"
export DEBIAN_FRONTEND=noninteractive
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -q
	apt-get install -y -q "${need[@]}"
fi
cd "$root/web/e2e"
stamp=node_modules/.installed-from-lock
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
	npm ci --no-audit --no-fund
	cp package-lock.json "$stamp"
fi
/usr/bin/chromium --version
