#!/usr/bin/env bash
# Ingest with taxon matching (issue 14, "Ingest with taxon matching" in
# BENCHMARKS.md): the DWCA download of N generated records (bench/gen; ~200
# verbatim terms a record) ingested into a fresh table three ways, in one
# session, alternating: matching off (--match-taxa=false), matching against
# the derived taxonomy (no checklist loaded), and matching against a loaded
# checklist (the GBIF backbone cut of taxonomy/testdata, or CHECKLIST).
#
#   bash bench/taxa-ingest.sh [N] [CHECKLIST]    # N default 300000; RUNS=2
#
# Prints per mode the fastest wall time, CPU seconds, records/s and the
# highest peak RSS (/usr/bin/time -v), and the ratios to matching off.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:-300000}"
checklist="${2:-$root/taxonomy/testdata/gbif-backbone-cut.zip}"
runs="${RUNS:-2}"
work="${BENCH_DIR:-/tmp/downloader-bench}"
mkdir -p "$work/bin"
(cd "$root" && go build -o "$work/bin/downloader" ./cmd/downloader && go build -o "$work/bin/gen" ./bench/gen)
dl="$work/bin/downloader"
table="$work/table-$n"
if [ ! -f "$table/manifest.json" ]; then
	rm -rf "$table"
	"$work/bin/gen" -table "$table" -records "$n"
fi
archive="$work/download-$n.zip"
if [ ! -f "$archive" ]; then
	"$dl" export --table "$table" --query '' --format DWCA -o "$archive" >/dev/null
fi

# The archive without its verbatim.txt extension: when this was first run
# (before the lockstep star join of #13) its join exceeded the spill cap
# at 300k records; the matching reads the interpreted occurrence.txt's
# ~230 columns either way, and the figures stay comparable.
core="$work/download-$n-core.zip"
if [ ! -f "$core" ]; then
	python3 - "$archive" "$core" <<'PY'
import re, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
    for info in zi.infolist():
        if info.filename == "verbatim.txt":
            continue
        data = zi.read(info.filename)
        if info.filename == "meta.xml":
            data = re.sub(rb"<extension(?:(?!</extension>).)*?verbatim\.txt.*?</extension>\s*", b"", data, flags=re.S)
        zo.writestr(info, data)
PY
fi
archive="$core"

# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"

# ingest MODE: one ingest into a fresh table (lib.sh's timed); prints
# "MODE wall cpu rss rate".
ingest() {
	local mode=$1 t="$work/taxa-ingest-table" flags=() line rate
	rm -rf "$t"
	case $mode in
	off) flags=(--match-taxa=false) ;;
	checklist) "$dl" taxonomy load "$checklist" --table "$t" >/dev/null 2>&1 ;;
	esac
	line=$(timed "$mode" "$dl" ingest --table "$t" "${flags[@]}" "$archive")
	rate=$(grep -o '[0-9]* records/s' "$work/out.txt" | awk '{print $1}')
	grep -E 'TAXON_MATCH' "$work/out.txt" | sed "s/^/  $mode:/" >&2 || true
	rm -rf "$t"
	echo "$line $rate"
}

declare -A bw bc br brate
for i in $(seq "$runs"); do
	for m in off derived checklist; do
		read -r _ w c r rate < <(ingest "$m")
		if faster "$w" "${bw[$m]:-}"; then
			bw[$m]=$w bc[$m]=$c brate[$m]=$rate
		fi
		if [ -z "${br[$m]:-}" ] || [ "$r" -gt "${br[$m]}" ]; then br[$m]=$r; fi
	done
done
echo "records $n, runs $runs, $(git -C "$root" rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "| matching | wall s | CPU s | records/s | peak RSS MB | wall vs off |"
echo "|---|---|---|---|---|---|"
for m in off derived checklist; do
	awk -v m="$m" -v w="${bw[$m]}" -v c="${bc[$m]}" -v r="${br[$m]}" -v rate="${brate[$m]}" -v w0="${bw[off]}" \
		'BEGIN{printf "| %s | %.2f | %.2f | %s | %s | %.2fx |\n", m, w, c, rate, r, w/w0}'
done
