# Shared by the bench scripts (sourced): the common start and timing
# helpers. Callers set $work (a scratch directory) and $runs, or have
# bench_setup set them.

# bench_setup "DEFAULT SIZES" ARGS...: sets root (the repository), work
# ($BENCH_DIR, default /tmp/downloader-bench, with bin/ made), runs ($RUNS,
# default 3) and sizes (ARGS, else the default sizes).
bench_setup() {
	local defaults=$1
	shift
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
	work="${BENCH_DIR:-/tmp/downloader-bench}"
	mkdir -p "$work/bin"
	runs="${RUNS:-3}"
	sizes=("$@")
	((${#sizes[@]})) || read -r -a sizes <<<"$defaults"
}

# build_tools TOOL...: builds downloader ($dl) and each bench/TOOL into
# $work/bin.
build_tools() {
	local t
	(cd "$root" && go build -o "$work/bin/downloader" ./cmd/downloader) || exit 1
	for t in "$@"; do
		(cd "$root" && go build -o "$work/bin/$t" "./bench/$t") || exit 1
	done
	dl="$work/bin/downloader"
}

# need_python MODULE...: exits unless python3 imports every module.
need_python() {
	local m
	for m in "$@"; do
		python3 -c "import $m" 2>/dev/null || {
			echo "$(basename "$0"): python3 $m missing (scripts/ci/export-readers.sh)" >&2
			exit 1
		}
	done
}

# timed LABEL CMD...: runs CMD under /usr/bin/time -v, prints
# "LABEL wall_s cpu_s maxrss_MB".
timed() {
	local label=$1
	shift
	/usr/bin/time -v -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" || {
		cat "$work/err.txt" >&2
		exit 1
	}
	awk -v l="$label" '
		/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); w = (n == 3) ? p[1]*3600 + p[2]*60 + p[3] : p[1]*60 + p[2] }
		/User time/ { u = $NF } /System time/ { s = $NF }
		/Maximum resident set size/ { r = $NF / 1024 }
		END { printf "%s %.2f %.2f %.0f\n", l, w, u + s, r }' "$work/time.txt"
}

# faster W BEST: whether wall time W beats BEST (always when BEST is
# empty, the first run).
faster() { [[ -z "$2" ]] || awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# keep P LABEL CMD...: one timed run of CMD; ${P}w and ${P}c keep the
# fastest run's wall and CPU seconds so far, ${P}rss the highest peak
# RSS. A script alternating its contenders calls it once for each in
# every round (reset ${P}w="" and ${P}rss=0 first).
keep() {
	local p=$1 w c r bw rss
	shift
	read -r _ w c r < <(timed "$@")
	bw="${p}w" rss="${p}rss"
	if faster "$w" "${!bw:-}"; then
		printf -v "${p}w" %s "$w"
		printf -v "${p}c" %s "$c"
	fi
	if ((r > ${!rss:-0})); then printf -v "${p}rss" %s "$r"; fi
}

# best LABEL CMD...: timed, RUNS times; the fastest run's wall and CPU
# seconds with the highest peak RSS.
best() {
	local i line w c r bw="" bc=0 br=0
	for i in $(seq "$runs"); do
		read -r _ w c r < <(timed "$@")
		if faster "$w" "$bw"; then bw=$w bc=$c; fi
		if ((r > br)); then br=$r; fi
	done
	echo "$1 $bw $bc $br"
}

# wide_table N: makes sure $work/wideN (bench/gen's table of N wide
# records, built by $work/bin/gen) and its one-file Parquet copy
# $work/wideN.one.parquet (for DuckDB) exist; shared by export-wide.sh and
# sql.sh.
wide_table() {
	local n=$1 table="$work/wide$1"
	if [[ ! -f "$table/.bench-done" ]]; then
		rm -rf "$table"
		"$work/bin/gen" -table "$table" -records "$n" >&2
		touch "$table/.bench-done"
	fi
	if [[ ! -f "$table.one.parquet" ]]; then
		python3 -c 'import duckdb,sys; duckdb.sql("SET threads = 2; COPY (SELECT * FROM read_parquet(%r, union_by_name=true)) TO %r (FORMAT parquet)" % (sys.argv[1], sys.argv[2]))' \
			"$table/data/*/*/*.parquet" "$table.one.parquet"
	fi
}
