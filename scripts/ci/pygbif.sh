#!/usr/bin/env bash
# Installs pygbif (PyPI), pinned, for the test that drives the download API
# with GBIF's Python client (web/pygbif_test.go). Idempotent: when the pinned
# version is already installed nothing is downloaded. Prints nothing on
# stdout (callers eval its "export" lines; it has none).
set -euo pipefail

version="0.7.0"

if ! command -v python3 >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	apt-get install -y -q python3 python3-pip >&2
fi

if python3 - "$version" <<'PY' 2>/dev/null; then
import importlib.metadata as m, sys
assert m.version("pygbif") == sys.argv[1]
PY
	exit 0
fi
python3 -m pip install -q "pygbif==$version" >&2 ||
	python3 -m pip install -q --break-system-packages "pygbif==$version" >&2
