#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine with Go: installs and starts
# the real services the integration tests use on loopback (PostgreSQL,
# versitygw for S3, mailpit for SMTP, a single-node HBase) and the third-party
# readers the archives are checked with (unzip, 7z, python-dwca-reader,
# pyarrow/DuckDB), then runs every test with CI=true so
# that a service that cannot start fails the run instead of skipping tests.
# gofmt, go vet and staticcheck (pinned, installed with go install) run first.
# Safe to re-run: every setup step is idempotent.
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
bash scripts/check-layers.sh
log "staticcheck"
go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck ./...

# Each setup script installs and starts what it needs and prints the settings
# the tests read as "export KEY=VALUE" lines on stdout.
# Their output goes through a file, not a pipe: a daemon a script starts in
# the background may inherit the pipe and would keep it open forever.
setup() {
	log "setup: $*"
	local out="$root/.work-setup.out"
	bash "$@" >"$out" </dev/null
	cat "$out"
	while IFS= read -r line; do
		case "$line" in
		"export "*=*) eval "$line" ;;
		esac
	done <"$out"
}
if command -v apt-get >/dev/null; then
	apt-get update -qq || true
fi
for step in scripts/ci/*.sh; do
	setup "$step"
done
setup scripts/hbase/start.sh
trap 'bash scripts/hbase/stop.sh >/dev/null 2>&1 || true' EXIT

log "go test"
go test -count=1 -timeout 40m ./... 2>&1 | tee "$root/.work-test.log"
