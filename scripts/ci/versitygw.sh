#!/usr/bin/env bash
# Installs versitygw (pinned) and starts it on 127.0.0.1:7070 serving a posix
# directory, with a bucket for the tests. Idempotent. Prints the export line
# the tests read:
#   export DOWNLOADER_TEST_S3=http://127.0.0.1:7070/downloads?access=testkey&secret=testsecret
set -euo pipefail
# Only the final export line goes to stdout (callers eval it).
exec 3>&1 1>&2
bin="$(go env GOPATH)/bin/versitygw"
if [ ! -x "$bin" ]; then
  go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
fi
dir=/tmp/versitygw-data
mkdir -p "$dir/downloads"
if ! curl -s -o /dev/null http://127.0.0.1:7070/ 2>/dev/null; then
  ROOT_ACCESS_KEY=testkey ROOT_SECRET_KEY=testsecret nohup "$bin" --access testkey --secret testsecret \
    --port 127.0.0.1:7070 posix "$dir" >/tmp/versitygw.log 2>&1 &
  for _ in $(seq 1 30); do
    curl -s -o /dev/null http://127.0.0.1:7070/ 2>/dev/null && break
    sleep 1
  done
fi
echo "export DOWNLOADER_TEST_S3='http://127.0.0.1:7070/downloads?access=testkey&secret=testsecret'" >&3
