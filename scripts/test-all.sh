#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine with Go: installs and starts
# the real services the integration tests use on loopback (PostgreSQL,
# versitygw for S3, mailpit for SMTP, a single-node HBase), the third-party
# readers the archives are checked with (unzip, 7z, python-dwca-reader,
# pyarrow/DuckDB), GBIF's Python client (pygbif), Prometheus's promtool
# (the shipped alerting rules and /metrics) and systemd-analyze (the
# shipped unit), then runs every test
# with CI=true so that a service that cannot start fails the run instead of
# skipping tests.
# gofmt, go vet and staticcheck (pinned, installed with go install) run first;
# the packages with concurrent pipelines run again under the race detector
# last.
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
# The fault-injection build (the process tests' --test-export-throttle).
go vet -tags faultinject ./cmd/downloader
bash scripts/check-layers.sh
log "staticcheck"
go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck ./...
staticcheck -tags faultinject ./cmd/downloader

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

# The packages that run goroutines over shared state: the parallel scan
# (occurrence), the Parquet store's split scans and dictionaries, the ingest
# pipeline, the HBase store's minting and its client's batched calls, the parallel ABCD source, the parallel zip writer, the archive
# and download writers, the job service, the search (shared counts and facets, concurrent page reads). -short skips only pzip's two zip64 tests: they
# push multi-GiB streams through the writer TestRoundTrip already races
# (over 6 minutes under the race detector on 2 cores, under 30 s for the
# rest of the package), and the run above has checked them; and, in the
# Parquet store, the rollover tests that add no concurrency of their own to
# what its other tests race (the pruning measurement across three layouts,
# the conformance suite on rolled-over tables, the killed rollover
# processes, two of the three sort cases), and, in the HBase store, the
# conformance suite without pushdown (the same suite evaluated client-side),
# which the run above has checked. The whole step
# took 2m11s on 2 cores with the race build cached (3.5 CPU-minutes).
log "go test -race"
go test -race -short -count=1 -timeout 20m ./occurrence ./occurrence/parquet ./ingest \
	./occurrence/hbase ./occurrence/hbase/hrpc ./abcd ./internal/pzip ./dwca ./download ./jobs ./taxonomy ./search 2>&1 | tee "$root/.work-race.log"
