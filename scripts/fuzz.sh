#!/usr/bin/env bash
# Runs the project's fuzz tests one after the other, each for a while, and
# reports the ones that failed. The list is the code's: every `func FuzzX`
# in a _test.go file (go test runs one fuzz test at a time).
#
#   bash scripts/fuzz.sh [SECONDS] [REGEXP]
#
# SECONDS per fuzz test (default 60); REGEXP keeps the fuzz tests whose
# "package:FuzzName" matches it (default all), e.g. 'dwca|abcd'.
#
# New interesting inputs are minimized for at most MINIMIZE (default 3s)
# instead of go test's 60 s: an archive opener whose seeds are a few KB
# otherwise spends nearly its whole run minimizing (FuzzOpenZip: 18 inputs
# run in 40 s with the default, 981 with 3 s).
#
# A failing input is written by go test under the package's
# testdata/fuzz/FuzzX/; commit it with the fix, as a regression seed.
#
# Go's fuzzing coordinator can fail a run at the -fuzztime deadline with
# only "context deadline exceeded" and no failing input, on a loaded
# machine (golang/go#75804, #51484: a race in the coordinator, not the
# code under test). Such a run is run once more: if that passes, it is
# listed as a flake, not a failure; any other failure fails at once.
set -uo pipefail
seconds="${1:-60}"
filter="${2:-.}"
minimize="${MINIMIZE:-3s}"
cd "$(dirname "${BASH_SOURCE[0]}")/.."

failed=()
flaked=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fuzz_one() {
	go test "$1" -run '^$' -fuzz "^${2}\$" -fuzztime "${seconds}s" -fuzzminimizetime "$minimize" </dev/null >"$log" 2>&1
}

# deadline_only: the failure's one reason is the coordinator's deadline
# (no failing input written, no panic, no test's own message).
deadline_only() {
	grep -q 'context deadline exceeded' "$1" || return 1
	! grep -q -e 'Failing input written to' -e '^panic:' -e '_test\.go:[0-9]*:' "$1"
}

while IFS=: read -r file name; do
	pkg="./$(dirname "$file")"
	spec="${pkg#./}:$name"
	[[ $spec =~ $filter ]] || continue
	echo "== $spec ($(date -u +%H:%M:%S))"
	# The last lines of a passing run; all of a failing one's but the
	# progress lines (go test's reason may sit above its last lines).
	if fuzz_one "$pkg" "$name"; then
		tail -n 3 "$log"
	elif deadline_only "$log"; then
		grep -v '^fuzz: elapsed:' "$log" | tail -n 5
		echo "-- no failing input, only the coordinator's deadline: running $spec again"
		if fuzz_one "$pkg" "$name"; then
			tail -n 3 "$log"
			flaked+=("$spec")
		else
			grep -v '^fuzz: elapsed:' "$log" | tail -n 60
			failed+=("$spec")
		fi
	else
		grep -v '^fuzz: elapsed:' "$log" | tail -n 60
		failed+=("$spec")
	fi
done < <(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's|^\./||; s|:func |:|' | sort -u)

if ((${#flaked[@]})); then
	echo "FLAKED (Go's -fuzztime race, passed when run again): ${flaked[*]}"
fi
if ((${#failed[@]})); then
	echo "FAILED: ${failed[*]}"
	exit 1
fi
echo "fuzz: all passed"
