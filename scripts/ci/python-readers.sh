#!/usr/bin/env bash
# Installs the Python readers the dwca reading tests cross-check against:
# python-dwca-reader (PyPI), pinned. Idempotent: when the pinned version is
# already installed nothing is downloaded.
set -euo pipefail

pin="python-dwca-reader==0.17.1"

if ! command -v python3 >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q python3 python3-pip
fi

if python3 - <<'PY' 2>/dev/null; then
import importlib.metadata as m
assert m.version("python-dwca-reader") == "0.17.1"
PY
	exit 0
fi
python3 -m pip install -q "$pin" ||
	python3 -m pip install -q --break-system-packages "$pin"
