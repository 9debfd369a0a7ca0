# Shared by the bench scripts (sourced): timing helpers. Callers set
# $work (a scratch directory) and $runs.

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

# best LABEL CMD...: timed, RUNS times; the fastest run's wall and CPU
# seconds with the highest peak RSS.
best() {
	local i line w c r bw="" bc=0 br=0
	for i in $(seq "$runs"); do
		read -r _ w c r < <(timed "$@")
		if [[ -z "$bw" ]] || awk -v a="$w" -v b="$bw" 'BEGIN { exit !(a < b) }'; then bw=$w bc=$c; fi
		if ((r > br)); then br=$r; fi
	done
	echo "$1 $bw $bc $br"
}
