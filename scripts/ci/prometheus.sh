#!/usr/bin/env bash
# Installs Prometheus's promtool (Debian's prometheus package, without its
# recommends) for TestAlertRules: it checks and unit-tests the shipped
# alerting rules (docs/prometheus/) and lints what serve exposes on
# /metrics. No Prometheus server is started: the package's service needs
# systemd, and the tests need only the tool.
# Idempotent: re-running only checks what is there.
set -euo pipefail
# Prints nothing on stdout: callers eval its "export" lines (it has none).

if ! command -v promtool >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends prometheus >&2
fi
promtool --version >&2
