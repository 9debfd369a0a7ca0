#!/usr/bin/env bash
# Taxonomy benchmark (issue 14, "Taxonomy" in BENCHMARKS.md): generates a
# checklist of N usages from the structure of the GBIF backbone cut in
# taxonomy/testdata (bench/taxonomy gen), loads it with `downloader taxonomy
# load` (names/s, CPU, peak RSS), then matches R records drawn with a
# Zipf distribution from D distinct names (5% misspelt, 3% unknown species
# of known genera, 70% with kingdom and family) through the match cache,
# with 1 and with 2 goroutines, and every distinct name once uncached.
#
#   bash bench/taxonomy.sh [N] [R] [D]      # defaults 2000000 1000000 50000
#
# Env: BENCH_DIR (default /tmp/downloader-bench) keeps the checklist.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-2000000}"
records="${2:-1000000}"
distinct="${3:-50000}"
work="${BENCH_DIR:-/tmp/downloader-bench}"
runs=1
mkdir -p "$work/bin"
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

(cd "$root" && go build -o "$work/bin/downloader" ./cmd/downloader && go build -o "$work/bin/taxonomy" ./bench/taxonomy)
archive="$work/checklist-$n.zip"
if [ ! -f "$archive" ]; then
	(cd "$root" && "$work/bin/taxonomy" gen -n "$n" -o "$archive")
fi
dir="$work/taxonomy-$n"
rm -rf "$dir"
echo "load: label wall_s cpu_s peak_rss_MB"
timed load "$work/bin/downloader" taxonomy load "$archive" --dir "$dir"
cat "$work/out.txt"
echo "store file: $(du -m "$dir"/checklist-*.tax | cut -f1) MB"
for w in 1 2; do
	echo "match, $w goroutine(s): label wall_s cpu_s peak_rss_MB"
	extra=()
	if [ "$w" = 1 ]; then extra=(-uncached); fi
	GOMAXPROCS=$w timed "match-$w" "$work/bin/taxonomy" match -dir "$dir" -archive "$archive" \
		-records "$records" -distinct "$distinct" -workers "$w" "${extra[@]}"
	cat "$work/out.txt"
done
uptime
