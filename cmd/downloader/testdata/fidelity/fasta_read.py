"""Reads a FASTA_ARCHIVE download as its users do: the sequences with
Biopython, the archive with python-dwca-reader. Prints one line per check
for the Go test to compare: the FASTA records (id, gbifID, target gene,
sequence), then the archive's core and DNA-derived rows."""
import hashlib
import sys
import tempfile
import zipfile

from Bio import SeqIO
from dwca.read import DwCAReader

path = sys.argv[1]
with zipfile.ZipFile(path) as z, tempfile.TemporaryDirectory() as tmp:
    z.extract("sequences.fasta", tmp)
    for rec in SeqIO.parse(f"{tmp}/sequences.fasta", "fasta"):
        seq_id, gbif_id, gene = rec.description.split("|")
        seq = str(rec.seq)
        md5_ok = hashlib.md5(seq.encode()).hexdigest() == seq_id
        print(f"fasta {gbif_id} {gene or '-'} {len(seq)} md5 {md5_ok} {seq}")

with DwCAReader(path) as dwca:
    core = list(dwca)
    print(f"core {len(core)}")
    for row in core:
        dna = [e for e in row.extensions if e.rowtype == "http://rs.gbif.org/terms/1.0/DNADerivedData"]
        print(f"record {row.id} {row.data['http://rs.tdwg.org/dwc/terms/occurrenceID']} dna {len(dna)}")
