"""Makes a SQL download with pygbif's download_sql, as a user of GBIF's
Python client would, with only the base URL changed (see
pygbif_client.py), then reads it back with download_meta and download_get,
and describes the SQL table with download_describe("sql").

Usage: python3 pygbif_sql.py BASE_URL OUT_DIR SQL (credentials in GBIF_USER
and GBIF_PWD). Prints one JSON object. download_sql posts to a literal
https://api.gbif.org URL and sends notificationAddresses [None] unless an
email is given; both are taken as pygbif sends them.
"""

import csv
import io
import json
import sys
import time
import zipfile

import gbif_base

OUT, SQL = sys.argv[2], sys.argv[3]
gbif_base.redirect(sys.argv[1])

from pygbif import occurrences as occ  # noqa: E402  (after the base URL)

key = occ.download_sql(SQL)
deadline = time.time() + 120
while True:
    meta = occ.download_meta(key)
    if meta["status"] not in ("PREPARING", "RUNNING", "SUSPENDED"):
        break
    if time.time() > deadline:
        raise SystemExit("download %s still %s" % (key, meta["status"]))
    time.sleep(0.2)
got = occ.download_get(key, path=OUT)
with zipfile.ZipFile(got["path"]) as z:
    names = z.namelist()
    text = z.read(key + ".csv").decode("utf-8")
rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
describe = occ.download_describe("sql")
print(json.dumps({"key": key, "meta": meta, "entries": names, "rows": rows,
                  "describe_fields": [f["name"] for f in describe["fields"]]}))
