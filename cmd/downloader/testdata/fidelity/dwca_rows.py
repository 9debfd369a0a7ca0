"""Compare the source rows of archives with a download's verbatim rows.

usage: dwca_rows.py DOWNLOAD.zip SOURCE.zip...

Reads every archive with python-dwca-reader. Each source row (core and
extension) becomes the set of its non-empty (term, value) pairs, with the
download text rules applied to the value; each row of the download's
verbatim.txt and verbatim/*.txt becomes the same set, without gbifID and
datasetKey. Prints one line per row type: how many rows each side has and
how many of the source's are missing from the download (and the reverse).
"""
import sys, collections
from dwca.read import DwCAReader

GBIF = "http://rs.gbif.org/terms/1.0/"
ID_TERMS = {GBIF + "gbifID", GBIF + "datasetKey"}

def clean(v):
    for c in "\t\n\r\x0b\x0c\x85\u2028\u2029\x00":
        v = v.replace(c, " ")
    return v

def row_set(data, skip=()):
    return frozenset((k, clean(v)) for k, v in data.items() if v and k not in skip)

def source_rows(path, out):
    with DwCAReader(path) as d:
        core = d.descriptor.core.type
        for r in d:
            out[core].append(row_set(r.data))
            for e in r.extensions:
                out[e.rowtype].append(row_set(e.data))

def download_rows(path, out):
    with DwCAReader(path) as d:
        n = 0
        for r in d:
            n += 1
            for e in r.extensions:
                loc = e.descriptor.file_location
                if loc == "verbatim.txt" or loc.startswith("verbatim/"):
                    out[e.rowtype].append(row_set(e.data, ID_TERMS))
        return n

src, dl = collections.defaultdict(list), collections.defaultdict(list)
for p in sys.argv[2:]:
    source_rows(p, src)
n = download_rows(sys.argv[1], dl)
print("records", n)
for rt in sorted(set(src) | set(dl)):
    a, b = collections.Counter(src[rt]), collections.Counter(dl[rt])
    print(rt, "source", sum(a.values()), "download", sum(b.values()), "missing", sum((a - b).values()), "extra", sum((b - a).values()))
    for s in list((a - b).elements())[:2]:
        print("  missing", sorted(s)[:6])
    for s in list((b - a).elements())[:2]:
        print("  extra", sorted(s)[:6])
