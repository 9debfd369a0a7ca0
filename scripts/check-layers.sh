#!/usr/bin/env bash
# Checks the house's floors: every package of the module imports only
# packages on lower floors (docs/architecture.md draws them). A package
# missing from the table below fails the check, so a new room gets a floor
# when it is added. Test files are not looked at (a backend's tests may use
# the integration layers to load sample data).
set -euo pipefail
cd "$(dirname "$0")/.."
module=$(go list -m)

floor() {
	case "$1" in
	internal/testenv) echo -1 ;;
	internal/* | migrations | occurrence/hbase/hrpc/pb | abcd/internal/abcdgen) echo 0 ;;
	occurrence | occurrence/hbase/hrpc) echo 1 ;;
	occurrence/parquet | occurrence/hbase | occurrence/occurrencetest | dwca | sqlquery) echo 2 ;;
	abcd | download | taxonomy | search) echo 3 ;;
	ingest | jobs | species) echo 4 ;;
	jobs/storage/* | jobs/tableexport | jobs/faultinject | web) echo 5 ;;
	cmd/* | bench/* | abcd/internal/abcdgen/cmd/*) echo 6 ;;
	*) echo "" ;;
	esac
}

status=0
while read -r pkg imports; do
	p=${pkg#"$module"/}
	pf=$(floor "$p")
	if [[ -z "$pf" ]]; then
		echo "check-layers: package $p has no floor in scripts/check-layers.sh" >&2
		status=1
		continue
	fi
	for imp in $imports; do
		[[ "$imp" == "$module"/* ]] || continue
		i=${imp#"$module"/}
		f=$(floor "$i")
		if [[ -z "$f" || "$f" -ge "$pf" ]]; then
			echo "check-layers: $p (floor $pf) imports $i (floor ${f:-none})" >&2
			status=1
		fi
	done
done < <(go list -f '{{.ImportPath}} {{join .Imports " "}}' ./...)
if ((status == 0)); then
	echo "check-layers: $(go list ./... | wc -l) packages, every import goes down a floor"
fi
exit $status
