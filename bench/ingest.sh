#!/usr/bin/env bash
# Ingest benchmark (issue 2, "Ingest:" in BENCHMARKS.md): re-ingesting a DWCA
# download of N generated records (occurrence.txt + verbatim.txt +
# multimedia.txt, verbatim documents of ~200 terms; the star join runs on
# disk), side by side for this tree and a base revision, in one run:
#
#   bash bench/ingest.sh 1000000 [BASE_REV]    # BASE_REV default HEAD~1
#
# For each build it runs `downloader ingest --table T archive.zip` RUNS times
# (default 3, alternating the builds) and prints the fastest wall time, its
# CPU seconds and records/s, and the highest peak RSS of the runs (from
# /usr/bin/time -v), then the ratios this tree / base.
# Env: BENCH_DIR (default /tmp/downloader-bench) keeps the generated table
# and archive between runs; ARCHIVE ingests that archive instead (say the
# core-only or publisher-width cuts of "Ingest with taxon matching").
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-1000000}"
base="${2:-HEAD~1}"
runs="${RUNS:-3}"
work="${BENCH_DIR:-/tmp/downloader-bench}"
mkdir -p "$work/bin"

(cd "$root" && go build -o "$work/bin/downloader" ./cmd/downloader && go build -o "$work/bin/gen" ./bench/gen)
src="$work/base-src"
rm -rf "$src" && mkdir -p "$src"
(cd "$root" && git archive "$base" | tar -x -C "$src")
(cd "$src" && go build -o "$work/bin/downloader-base" ./cmd/downloader)

table="$work/table-$n"
if [ -z "${ARCHIVE:-}" ] && [ ! -f "$table/manifest.json" ]; then
	rm -rf "$table"
	"$work/bin/gen" -table "$table" -records "$n"
fi
archive="${ARCHIVE:-$work/download-$n.zip}"
if [ ! -f "$archive" ]; then
	"$work/bin/downloader" export --table "$table" --query '' --format DWCA -o "$archive" >/dev/null
fi

# timed LABEL BIN: one ingest into a fresh table; prints
# "LABEL wall_s cpu_s maxrss_MB records_per_s".
timed() {
	local label=$1 bin=$2 t="$work/ingest-table"
	rm -rf "$t"
	/usr/bin/time -v -o "$work/time.txt" "$bin" ingest --table "$t" "$archive" >"$work/out.txt" 2>"$work/err.txt" || {
		cat "$work/err.txt" >&2
		exit 1
	}
	local rate
	rate=$(grep -o '[0-9]* records/s' "$work/out.txt" | awk '{print $1}')
	awk -v l="$label" -v rate="$rate" '
		/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); w = (n == 3) ? p[1]*3600 + p[2]*60 + p[3] : p[1]*60 + p[2] }
		/User time/ { u = $NF } /System time/ { s = $NF }
		/Maximum resident set size/ { r = $NF / 1024 }
		END { printf "%s %.2f %.2f %.0f %s\n", l, w, u + s, r, rate }' "$work/time.txt"
	rm -rf "$t"
}

declare -A bw bc br brate
for i in $(seq "$runs"); do
	for b in base tree; do
		bin="$work/bin/downloader"
		[ "$b" = base ] && bin="$work/bin/downloader-base"
		# Not "read < <(timed ...)": that would let timed's final rm -rf run
		# on into the next ingest of the same table directory.
		timed "$b" "$bin" >"$work/timed.txt"
		read -r _ w c r rate <"$work/timed.txt"
		if [[ -z "${bw[$b]:-}" ]] || awk -v a="$w" -v b="${bw[$b]}" 'BEGIN { exit !(a < b) }'; then
			bw[$b]=$w bc[$b]=$c brate[$b]=$rate
		fi
		if ((r > ${br[$b]:-0})); then br[$b]=$r; fi
	done
done
echo "ingest of $n records ($(du -h "$archive" | cut -f1) archive), best of $runs runs"
printf '%-6s %8s %8s %8s %10s\n' build wall_s cpu_s rss_MB records/s
for b in base tree; do
	printf '%-6s %8s %8s %8s %10s\n' "$b" "${bw[$b]}" "${bc[$b]}" "${br[$b]}" "${brate[$b]}"
done
awk -v w1="${bw[tree]}" -v w0="${bw[base]}" -v c1="${bc[tree]}" -v c0="${bc[base]}" -v r1="${br[tree]}" -v r0="${br[base]}" \
	'BEGIN { printf "tree/base: wall %.2fx, CPU %.2fx, peak RSS %.2fx\n", w1 / w0, c1 / c0, r1 / r0 }'
