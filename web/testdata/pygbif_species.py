"""Drives the species API with pygbif, as a user of GBIF's Python client
would, with pygbif's defaults and only the base URL changed (gbif_base.py).

Usage: python3 pygbif_species.py BASE_URL. Prints one JSON object with
what each pygbif function returned.
"""

import json
import sys
import warnings

import gbif_base
import requests

gbif_base.redirect(sys.argv[1])
warnings.simplefilter("ignore")

from pygbif import species  # noqa: E402  (after the base URL)


def backbone(res):
    usage = res.get("usage") or {}
    accepted = res.get("acceptedUsage") or {}
    diag = res.get("diagnostics") or {}
    return {"key": usage.get("key"), "name": usage.get("name"), "rank": usage.get("rank"),
            "accepted": accepted.get("key"), "synonym": res.get("synonym"),
            "classification": [c["key"] for c in res.get("classification") or []],
            "matchType": diag.get("matchType"), "confidence": diag.get("confidence"),
            "alternatives": sorted(a["usage"]["key"] for a in diag.get("alternatives") or [])}


out = {}
# name_backbone (pygbif 0.7: /v2/species/match with its default checklistKey)
out["exact"] = backbone(species.name_backbone(scientificName="Puma concolor", kingdom="Animalia"))
out["synonym"] = backbone(species.name_backbone(scientificName="Felis concolor"))
out["fuzzy"] = backbone(species.name_backbone(scientificName="Pumma concolor"))
out["homonym"] = backbone(species.name_backbone(scientificName="Oenanthe", kingdom="Plantae"))
out["ambiguous"] = backbone(species.name_backbone(scientificName="Oenanthe", verbose=True))
out["genus"] = backbone(species.name_backbone(scientificName="Puma", taxonRank="GENUS", family="Felidae"))
out["none"] = backbone(species.name_backbone(scientificName="Xyzzyx plugh"))
# name_suggest (/v1/species/suggest)
out["suggest"] = [{"key": s["key"], "canonicalName": s["canonicalName"], "rank": s["rank"]}
                  for s in species.name_suggest(q="Puma")]
out["suggest_species"] = [s["rank"] for s in species.name_suggest(q="Puma", rank="species")]
out["suggest_limit"] = [s["key"] for s in species.name_suggest(q="Puma", limit=1)]
# name_usage (/v1/species/{key}, its children and parents)
u = species.name_usage(key=2435099)
out["usage"] = {"key": u["key"], "parentKey": u["parentKey"], "speciesKey": u.get("speciesKey")}
out["parents"] = [p["key"] for p in species.name_usage(key=2435099, data="parents")]
kids = species.name_usage(key=2435098, data="children")
out["children"] = {"keys": [c["key"] for c in kids["results"]], "endOfRecords": kids["endOfRecords"]}
try:
    species.name_usage(key=99999999)
    out["missing"] = "found"
except requests.HTTPError as e:
    out["missing"] = e.response.status_code
print(json.dumps(out))
