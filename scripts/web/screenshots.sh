#!/usr/bin/env bash
# Regenerates docs/screenshots/*.png, the portal page's main states, from
# the browser test (web/page_e2e_test.go; run scripts/ci/browser.sh first),
# then shrinks them to a 128-colour palette with Python's Pillow when it is
# installed (pip install pillow), so that the committed pictures stay small.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/docs/screenshots"
mkdir -p "$out"
cd "$root"
DOWNLOADER_SCREENSHOTS="$out" go test -count=1 -run TestPageInBrowser ./web
if python3 -c 'import PIL' 2>/dev/null; then
	python3 - "$out" <<'PY'
import pathlib, sys
from PIL import Image
for p in sorted(pathlib.Path(sys.argv[1]).glob("*.png")):
    im = Image.open(p).convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    im.save(p, optimize=True)
    print(f"{p.name}: {p.stat().st_size // 1024} KiB")
PY
fi
