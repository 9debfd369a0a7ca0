#!/usr/bin/env bash
# Benchmark: convert a generated ABCD archive of UNITS realistic units (default
# 1,000,000; 100 units per document, as BioCASe writes its archives) to a DwC-A
# with `downloader convert`, under /usr/bin/time -v, on GOMAXPROCS cores
# (default 2). Targets: >= 20,000 units/s and peak RSS < 300 MB.
#
# Peers side by side on the same input:
#   floor    - inflating the input archive only (unzip -p > /dev/null)
#   stdlib   - the first version of this converter (commit 53dd3e2), which
#              tokenized with encoding/xml and built beevik/etree trees
#   current  - this tree
#
# Usage: bench/abcd.sh [UNITS]   (WORK=dir keeps the generated archive between runs)
set -euo pipefail
cd "$(dirname "$0")/.."
units=${1:-${UNITS:-1000000}}
procs=${GOMAXPROCS:-2}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
input="$work/abcd-$units.zip"

go build -o "$work/downloader" ./cmd/downloader
go build -o "$work/abcdgen" ./abcd/internal/abcdgen/cmd/abcdgen
if [ ! -s "$input" ]; then
	echo "generating $units units into $input ..."
	"$work/abcdgen" -o "$input" -units "$units" -per-doc 100
fi
echo "input: $(du -h "$input" | cut -f1) zip, $(unzip -l "$input" | tail -1 | awk '{print $1}') bytes of XML in $(unzip -l "$input" | tail -1 | awk '{print $2}') documents"

measure() { # name command...
	local name=$1
	shift
	GOMAXPROCS=$procs /usr/bin/time -v "$@" >"$work/$name.out" 2>"$work/$name.time" || {
		cat "$work/$name.out" "$work/$name.time" >&2
		return 1
	}
	local wall rss user sys
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$work/$name.time")
	rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$work/$name.time")
	user=$(awk -F': ' '/User time/{print $2}' "$work/$name.time")
	sys=$(awk -F': ' '/System time/{print $2}' "$work/$name.time")
	secs=$(echo "$wall" | awk -F: '{s=0; for(i=1;i<=NF;i++) s=s*60+$i; print s}')
	printf '%-8s wall %8ss  cpu %7.1fs  %9.0f units/s  peak RSS %4d MB\n' "$name" "$secs" "$(echo "$user + $sys" | bc)" "$(echo "$units / $secs" | bc -l)" "$((rss / 1024))"
}

measure floor sh -c "unzip -p '$input' > /dev/null"
if [ "${SKIP_PEER:-}" = "" ]; then
	peer="$work/peer"
	if [ ! -x "$peer/downloader" ]; then
		rm -rf "$peer/src"
		git worktree add -f --detach "$peer/src" 53dd3e2 >/dev/null 2>&1
		(cd "$peer/src" && go build -o "$peer/downloader" ./cmd/downloader)
		git worktree remove --force "$peer/src"
	fi
	measure stdlib "$peer/downloader" convert --from abcd "$input" -o "$work/out-stdlib.zip"
fi
measure current "$work/downloader" convert --from abcd "$input" -o "$work/out.zip"
cat "$work/current.out"
echo "load average during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
