"""Drives the download API with pygbif, as a user of GBIF's Python client
would, with pygbif's defaults and only the base URL changed.

Usage: python3 pygbif_client.py BASE_URL OUT_DIR (credentials in GBIF_USER,
GBIF_PWD and GBIF_EMAIL, as pygbif reads them). Prints one JSON object with
what each pygbif function returned.

pygbif has no single base-URL setting: its download functions build
http://api.gbif.org/v1/... and https://api.gbif.org/v1/... URLs, some of
them literals inside the functions. The one change is therefore made where
every pygbif request passes, requests.Session.request: a URL under GBIF's
API base is sent to the same path under BASE_URL instead. Nothing of
pygbif itself is changed.
"""

import json
import os
import sys
import time
import zipfile

import fastavro
import gbif_base

OUT = sys.argv[2]
gbif_base.redirect(sys.argv[1])

from pygbif import occurrences as occ  # noqa: E402  (after the base URL)


def wait(key, timeout=120):
    deadline = time.time() + timeout
    while True:
        meta = occ.download_meta(key)
        if meta["status"] not in ("PREPARING", "RUNNING", "SUSPENDED"):
            return meta
        if time.time() > deadline:
            raise SystemExit("download %s still %s" % (key, meta["status"]))
        time.sleep(0.2)


out = {}
# pygbif's query syntax and defaults: SIMPLE_CSV, the Catalogue of Life as
# checklistKey.
key, payload = occ.download("country = TR")
out["key"], out["payload"] = key, payload
out["meta"] = wait(key)

got = occ.download_get(key, path=OUT)
with zipfile.ZipFile(got["path"]) as z:
    out["entries"] = z.namelist()
    out["csv_lines"] = sum(1 for _ in z.open(key + ".csv")) if key + ".csv" in z.namelist() else -1
out["get"] = got
out["file_size"] = os.path.getsize(got["path"])
out["citation"] = occ.download_citation(key)
out["describe"] = {f: occ.download_describe(f) for f in ("simpleCsv", "dwca", "speciesList", "simpleParquet", "simpleAvro")}

# SIMPLE_AVRO, which pygbif offers: download_get saves the one Avro file
# under KEY.zip, as it names every download; fastavro reads it.
akey, _ = occ.download("country = TR", format="SIMPLE_AVRO")
out["avro_meta"] = wait(akey)
agot = occ.download_get(akey, path=OUT)
with open(agot["path"], "rb") as f:
    r = fastavro.reader(f)
    out["avro_records"] = sum(1 for _ in r)
    out["avro_schema"] = r.writer_schema["name"]

# A numeric taxon key: pygbif sends it as a JSON number and adds the GBIF
# Backbone as the predicate's checklistKey. Cancelled while it runs.
key2, payload2 = occ.download(["taxonKey = 212", "country = TR"], format="DWCA", pred_type="or")
out["key2"], out["payload2"] = key2, payload2
out["cancel"] = occ.download_cancel(key2)
out["meta2"] = wait(key2)

out["list"] = occ.download_list(limit=5)
print(json.dumps(out))
