#!/usr/bin/env bash
# Stops the HBase started by start.sh (same HBASE_DIR). Idempotent.
set -euo pipefail
dir="${HBASE_DIR:-/tmp/downloader-hbase}"
pidfile="$dir/hbase.pid"
[[ -f "$pidfile" ]] || exit 0
pid="$(cat "$pidfile")"
if kill -0 "$pid" 2>/dev/null; then
  kill "$pid"
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
fi
rm -f "$pidfile" "$dir/ready"
