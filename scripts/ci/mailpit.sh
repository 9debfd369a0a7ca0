#!/usr/bin/env bash
# Installs mailpit (pinned) and starts it on loopback: SMTP 127.0.0.1:1025,
# HTTP API 127.0.0.1:8025. Idempotent. Prints the export lines the tests read:
#   export DOWNLOADER_TEST_MAILPIT=127.0.0.1:1025,http://127.0.0.1:8025
#   export DOWNLOADER_TEST_MAILPIT_BIN=/path/to/mailpit
# (the mail tests start mailpits of their own with the binary: with TLS
# certificates made at test time, or to stop one and start it again).
# --allow-internal-http-requests lets its link check reach the test servers
# on loopback (the links of the notices).
set -euo pipefail
# Only the final export line goes to stdout (callers eval it).
exec 3>&1 1>&2
bin="$(go env GOPATH)/bin/mailpit"
if [ ! -x "$bin" ]; then
  go install github.com/axllent/mailpit@v1.33.1
fi
if ! curl -fsS http://127.0.0.1:8025/api/v1/info >/dev/null 2>&1; then
  nohup "$bin" --smtp 127.0.0.1:1025 --listen 127.0.0.1:8025 --smtp-auth-accept-any --smtp-auth-allow-insecure \
    --allow-internal-http-requests \
    >/tmp/mailpit.log 2>&1 &
  for _ in $(seq 1 30); do
    curl -fsS http://127.0.0.1:8025/api/v1/info >/dev/null 2>&1 && break
    sleep 1
  done
fi
echo "export DOWNLOADER_TEST_MAILPIT='127.0.0.1:1025,http://127.0.0.1:8025'" >&3
echo "export DOWNLOADER_TEST_MAILPIT_BIN='$bin'" >&3
