"""Drives the occurrence search API with pygbif, as a user of GBIF's
Python client would, with pygbif's defaults and only the base URL changed
(gbif_base.py: every request under GBIF's API base goes to BASE_URL).

Usage: python3 pygbif_search.py BASE_URL COUNTRY Q. Prints one JSON object
with what each pygbif function returned.
"""

import json
import sys

import gbif_base
import requests

COUNTRY = sys.argv[2]
gbif_base.redirect(sys.argv[1])

from pygbif import occurrences as occ  # noqa: E402  (after the base URL)

out = {}
# occ.search with facets (pygbif's default limit is 300) and paging.
res = occ.search(country=COUNTRY, facet=["country", "year"], facetMincount=1, limit=5)
out["search"] = {"count": res["count"], "endOfRecords": res["endOfRecords"], "limit": res["limit"],
                 "keys": [r["key"] for r in res["results"]], "countries": [r.get("countryCode") for r in res["results"]],
                 "facets": res["facets"]}
page2 = occ.search(country=COUNTRY, limit=5, offset=5)
out["page2"] = [r["key"] for r in page2["results"]]
everything = occ.search(limit=0, facet="basisOfRecord", basisOfRecord_facetLimit=1)
out["all"] = {"count": everything["count"], "results": len(everything["results"]), "facets": everything["facets"]}
# occ.get, occ.get_verbatim and occ.get_fragment of the first record.
key = out["search"]["keys"][0]
rec = occ.get(key=key)
out["get"] = {"key": rec["key"], "gbifID": rec["gbifID"], "countryCode": rec.get("countryCode"),
              "datasetKey": rec["datasetKey"], "issues": rec["issues"]}
# occ.search(q=...), GBIF's full-text search: its first and last pages.
name = sys.argv[3]
text = occ.search(q=name, limit=20)
last = occ.search(q=name, limit=20, offset=max(text["count"] - 20, 0))
out["fulltext"] = {"q": name, "count": text["count"], "keys": [r["key"] for r in text["results"]],
                   "last": [r["key"] for r in last["results"]]}
verb = occ.get_verbatim(key=key)
out["verbatim"] = {"key": verb["key"], "terms": sorted(k for k in verb if k.startswith("http")),
                   "country": verb.get("http://rs.tdwg.org/dwc/terms/country")}
# occ.get_fragment: the record as published, terms by simple name.
frag = occ.get_fragment(key=key)
out["fragment"] = {"country": frag.get("country"), "terms": len(frag)}
# occ.count with pygbif's defaults and with isGeoreferenced.
out["count"] = occ.count(country=COUNTRY)
out["count_georef"] = occ.count(country=COUNTRY, isGeoreferenced=True)
# The inventories (GBIF's metrics routes) with pygbif's defaults.
out["counts_bor"] = occ.count_basisofrecord()
out["counts_year"] = occ.count_year(year="1990,2000")
out["counts_datasets"] = occ.count_datasets(country=COUNTRY)
out["counts_publishing"] = occ.count_publishingcountries(country=COUNTRY)
out["count_schema"] = len(occ.count_schema())
# An unknown key: pygbif raises on GBIF's 404.
try:
    occ.get(key=999999999999)
    out["missing"] = "found"
except requests.HTTPError as e:
    out["missing"] = e.response.status_code
print(json.dumps(out))
