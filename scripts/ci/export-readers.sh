#!/usr/bin/env bash
# Installs the third-party archive readers the dwca export tests verify against:
# Info-ZIP unzip, 7-Zip (p7zip-full), Python zipfile + python-dwca-reader,
# DuckDB and pyarrow (SIMPLE_CSV / SIMPLE_PARQUET), fastavro and Apache
# Avro's own Python library (SIMPLE_AVRO), Biopython (FASTA_ARCHIVE's
# sequences), R with data.table (as
# rgbif's occ_download_import reads a download) and GDAL's ogr2ogr (gdal-bin).
# Idempotent: re-running only checks what is there.
#
# GBIF's Java org.gbif:dwca-io is not on Maven Central (GBIF publishes it to
# its own repository, which this project's machines cannot reach), so it is
# not installed here.
set -euo pipefail
# Prints nothing on stdout: callers eval its "export" lines (it has none).

need_apt=()
command -v unzip >/dev/null || need_apt+=(unzip)
command -v 7z >/dev/null || need_apt+=(p7zip-full)
command -v python3 >/dev/null || need_apt+=(python3 python3-pip)
# R and GDAL without their recommends (compilers, R's recommended packages).
lean_apt=()
command -v Rscript >/dev/null && Rscript -e 'library(data.table)' >/dev/null 2>&1 ||
	lean_apt+=(r-base-core r-cran-data.table)
command -v ogr2ogr >/dev/null || lean_apt+=(gdal-bin)
if ((${#need_apt[@]} + ${#lean_apt[@]})); then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	((${#need_apt[@]} == 0)) || apt-get install -y -q "${need_apt[@]}" >&2
	((${#lean_apt[@]} == 0)) || apt-get install -y -q --no-install-recommends "${lean_apt[@]}" >&2
fi

py_pins=(python-dwca-reader==0.17.1 duckdb==1.5.6 pyarrow==26.0.1 fastavro==1.12.1 avro==1.12.1 biopython==1.85)
if ! python3 - <<'PY' 2>/dev/null; then
import importlib.metadata as m
want = {"python-dwca-reader": "0.17.1", "duckdb": "1.5.6", "pyarrow": "26.0.1", "fastavro": "1.12.1", "avro": "1.12.1", "biopython": "1.85"}
for k, v in want.items():
    assert m.version(k) == v, k
PY
	python3 -m pip install -q "${py_pins[@]}" >&2 ||
		python3 -m pip install -q --break-system-packages "${py_pins[@]}" >&2
fi
