#!/usr/bin/env bash
# Before/after benchmark of a change: the `downloader` of BASE_REV and of
# NEW_REV (default: the working tree) count and export the same generated
# table, alternating run by run so that both see the same machine, and the
# fastest of RUNS (default 5) wall times and its CPU seconds are printed
# with the ratio new/base. Cases: SIMPLE_CSV of 12 columns for a 5% and an
# 85% predicate, the full DWCA for the 5% predicate, a count of the 85%
# predicate. Both builds must write the same rows (checked).
#
# Usage: bench/ab.sh BASE_REV [NEW_REV]
# Env: RECORDS (default 1000000), RUNS, BENCH_DIR (default
# /tmp/downloader-bench) keeps builds and the table.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:?usage: bench/ab.sh BASE_REV [NEW_REV]}"
new="${2:-WORKTREE}"
n="${RECORDS:-1000000}"
runs="${RUNS:-5}"
work="${BENCH_DIR:-/tmp/downloader-bench}"
mkdir -p "$work/ab"

build() { # rev out
	if [[ "$1" == WORKTREE ]]; then
		(cd "$root" && go build -o "$2" ./cmd/downloader)
		return
	fi
	local src="$work/ab/src"
	rm -rf "$src" && mkdir -p "$src"
	(cd "$root" && git archive "$1" | tar -x -C "$src")
	(cd "$src" && go build -o "$2" ./cmd/downloader)
}
build "$base" "$work/ab/base"
build "$new" "$work/ab/new"
(cd "$root" && go build -o "$work/ab/gen" ./bench/gen)
table="$work/t$n"
if [[ ! -f "$table/.bench-done" ]]; then
	rm -rf "$table"
	"$work/ab/gen" -table "$table" -records "$n" >&2
	touch "$table/.bench-done"
fi
fields=gbifID,datasetKey,occurrenceID,scientificName,countryCode,locality,decimalLatitude,decimalLongitude,eventDate,year,basisOfRecord,recordedBy

# timed BIN ARGS...: "wall_s cpu_s" of one run (/usr/bin/time -v).
timed() {
	/usr/bin/time -v -o "$work/ab/time.txt" "$@" >"$work/ab/out.txt" 2>"$work/ab/err.txt" || {
		cat "$work/ab/err.txt" >&2
		exit 1
	}
	awk '/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); w = (n == 3) ? p[1]*3600 + p[2]*60 + p[3] : p[1]*60 + p[2] }
		/User time/ { u = $NF } /System time/ { s = $NF }
		END { printf "%.3f %.2f\n", w, u + s }' "$work/ab/time.txt"
}

echo "| case | base wall s | new wall s | new/base | base CPU s | new CPU s |"
echo "|---|---|---|---|---|---|"
run_case() { # label args... (the output file is OUT)
	local label=$1 i bw="" bc nw="" nc w c
	shift
	for i in $(seq "$runs"); do
		for b in base new; do
			read -r w c < <(timed "$work/ab/$b" "${@//OUT/$work/ab/$b.zip}")
			if [[ $b == base ]]; then
				if [[ -z "$bw" ]] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then bw=$w bc=$c; fi
			elif [[ -z "$nw" ]] || awk -v a="$w" -v b="$nw" 'BEGIN { exit !(a < b) }'; then nw=$w nc=$c; fi
		done
	done
	if [[ -f "$work/ab/base.zip" ]]; then
		for b in base new; do { unzip -p "$work/ab/$b.zip" '*.csv' 'occurrence.txt' 2>/dev/null || true; } | wc -l >"$work/ab/$b.rows"; done
		cmp -s "$work/ab/base.rows" "$work/ab/new.rows" || { echo "$label: the builds wrote different row counts" >&2; exit 1; }
		rm -f "$work/ab/base.zip" "$work/ab/new.zip"
	fi
	awk -v l="$label" -v bw="$bw" -v nw="$nw" -v bc="$bc" -v nc="$nc" \
		'BEGIN { printf "| %s | %.2f | %.2f | %.2fx | %.2f | %.2f |\n", l, bw, nw, nw / bw, bc, nc }'
}
run_case "SIMPLE_CSV 12 cols, country=NL (5%), $n" export --table "$table" --query country=NL --format SIMPLE_CSV --fields "$fields" --progress never -o OUT
run_case "SIMPLE_CSV 12 cols, hasCoordinate=true (85%), $n" export --table "$table" --query hasCoordinate=true --format SIMPLE_CSV --fields "$fields" --progress never -o OUT
run_case "DWCA, country=NL (5%), $n" export --table "$table" --query country=NL --format DWCA --progress never -o OUT
run_case "count hasCoordinate=true, $n" count --table "$table" --query hasCoordinate=true
