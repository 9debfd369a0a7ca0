"""Sends every request under GBIF's API base (v1 and v2) to another base
URL, where every pygbif request passes (requests.Session.request), before
pygbif is imported: the one change a pygbif user makes to use this service
(docs/clients.md)."""

import requests

GBIF_BASES = ("https://api.gbif.org/", "http://api.gbif.org/")


def redirect(base_url):
    base = base_url.rstrip("/") + "/"
    request = requests.Session.request

    def to_base(self, method, url, *args, **kwargs):
        for prefix in GBIF_BASES:
            if url.startswith(prefix):
                url = base + url[len(prefix):]
                break
        return request(self, method, url, *args, **kwargs)

    requests.Session.request = to_base
