#!/usr/bin/env bash
# Installs systemd-analyze (Debian's systemd package; Debian's base images
# mostly have it) for TestSystemdUnit, which verifies the shipped unit
# docs/deploy/downloader.service. Nothing is started: systemd need not run.
# Idempotent: re-running only checks what is there.
set -euo pipefail
# Prints nothing on stdout: callers eval its "export" lines (it has none).

if ! command -v systemd-analyze >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends systemd >&2
fi
systemd-analyze --version | head -1 >&2
