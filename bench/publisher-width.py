# Cuts a DWCA download (bench/ingest.sh's archive of bench/gen records) to
# a publisher-width archive: the core keeps its id column and the Darwin
# Core / Dublin Core terms a publisher fills (~40 a record of the 162 it
# keeps), none of GBIF's interpreted columns (keys, issues, interpretation
# dates...); extensions are kept as they are. "Ingest with taxon matching"
# in BENCHMARKS.md.
#
#   python3 bench/publisher-width.py download.zip narrow.zip
import re, sys, zipfile, io
src, dst = sys.argv[1], sys.argv[2]
drop = set("""startDayOfYear endDayOfYear datasetKey lastInterpreted issue hasCoordinate hasGeospatialIssues
taxonKey acceptedTaxonKey kingdomKey phylumKey classKey orderKey familyKey genusKey speciesKey species
acceptedScientificName verbatimScientificName protocol lastParsed lastCrawled taxonomicStatus genericName
elevation elevationAccuracy depth depthAccuracy publishingCountry mediaType repatriated level0Gid level0Name
level1Gid level1Name level2Gid level2Name level3Gid level3Name iucnRedListCategory distanceFromCentroidInMeters
gbifRegion publishedByGbifRegion isSequenced""".split())
with zipfile.ZipFile(src) as zi:
    meta = zi.read("meta.xml").decode()
    core_end = meta.index("</core>")
    core = meta[:core_end]
    fields = re.findall(r'<field index="(\d+)" term="([^"]+)"/>', core)
    keep = [0] + [int(i) for i, t in fields if int(i) != 0 and not t.startswith("http://rs.gbif.org/terms/") and re.split(r"[/#]", t)[-1] not in drop]
    newidx = {old: new for new, old in enumerate(keep)}
    def refield(m):
        i = int(m.group(1))
        if i not in newidx:
            return ""
        return '<field index="%d" term="%s"/>' % (newidx[i], m.group(2))
    core = re.sub(r'\s*<field index="(\d+)" term="([^"]+)"/>', lambda m: ("\n    " + refield(m)) if int(m.group(1)) in newidx else "", core)
    meta = core + meta[core_end:]
    with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
        for info in zi.infolist():
            if info.filename == "meta.xml":
                zo.writestr("meta.xml", meta)
            elif info.filename == "occurrence.txt":
                with zi.open(info) as f, zo.open("occurrence.txt", "w") as out:
                    for line in io.TextIOWrapper(f, encoding="utf-8", newline="\n"):
                        cells = line.rstrip("\n").split("\t")
                        out.write(("\t".join(cells[i] if i < len(cells) else "" for i in keep) + "\n").encode())
            else:
                zo.writestr(info, zi.read(info.filename))
print(len(keep), "core columns kept")
