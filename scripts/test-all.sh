#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine with Go: installs and starts
# the real services the integration tests use (PostgreSQL, an S3 server, an
# SMTP server, a single-node HBase, third-party archive readers) on loopback,
# then runs every test with CI=true so that a service that cannot start fails
# the run instead of skipping tests. Safe to re-run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export CI=true
export PATH="$(go env GOPATH)/bin:$PATH"
log() { printf '\n== %s (%s)\n' "$*" "$(date +%T)"; }

log "format and vet"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi
go vet ./...

# Each setup script installs and starts what it needs and appends the
# settings the tests read (export KEY=VALUE lines) to $DOWNLOADER_TEST_ENV.
export DOWNLOADER_TEST_ENV="$root/.work/test.env"
mkdir -p "$root/.work"
: >"$DOWNLOADER_TEST_ENV"
for step in scripts/ci/*.sh; do
	log "setup: $step"
	bash "$step"
done
# shellcheck disable=SC1090
source "$DOWNLOADER_TEST_ENV"

cleanup() {
	for stop in scripts/ci/stop/*.sh; do
		[ -f "$stop" ] && bash "$stop" || true
	done
}
trap cleanup EXIT

log "go test"
go test -count=1 -timeout 30m ./... 2>&1 | tee /tmp/downloader-test.log
