// Package parquet is the embedded occurrence table: a directory of Parquet
// files partitioned by dataset, described by a manifest.
//
// Layout of a table directory:
//
//	manifest.json                    the current snapshot (replaced atomically)
//	manifests/<snapshot>.gens        the directories each retained snapshot reads
//	data/<datasetKey>/<generation>/  part-NNNNN.parquet files and eml.xml
//	data/.segments/<generation>/     rows of many datasets merged by Rollover (segment.go)
//	pins/<snapshot>-<random>.pin     snapshots pinned by running scans (pin.go)
//	ids.sqlite (-wal, -shm)          the gbifID lookup, counter and aliases
//	.lock                            serializes writers across processes
//	.rollover                        one rollover at a time
//
// Every ingest of a dataset writes a new generation directory, then publishes
// a new manifest that points at it by renaming a fully written and synced file
// over manifest.json. Readers only ever follow a manifest, so they see either
// the whole old dataset or the whole new one; a crash or an error before the
// rename leaves the previous snapshot untouched (the orphaned generation is
// removed by the next writer). Files of replaced snapshots are removed by
// the cleanup that follows each publication once no retention rule and no
// pin keeps them (gc.go).
//
// Rollover (rollover.go) merges small datasets into segments, sorted across
// datasets by an external merge sort (sort.go), completes missing
// statistics, and publishes the result as one snapshot; CopyFrom (copy.go)
// fills a store with a snapshot of another table (HBase).
//
// The gbifID lookup (ids.go) is an SQLite database (modernc.org/sqlite, pure
// Go, already the job database's driver): a table of (dataset, occurrence
// key) -> id whose primary key is the lookup index, a one-row counter, and
// old id -> new id aliases. SQLite rather than sorted id files written
// with each generation because minting must be shared by concurrent
// writers of different datasets and processes without the manifest lock:
// SQLite's own locking serializes only the transactions that insert new
// keys (lookups of known keys, a whole re-ingest, run beside them in WAL
// mode), an insert and the counter move in one transaction that a crash of
// the process cannot lose once MintIDs returns (the log is synced to disk,
// against a crash of the machine, before any dataset commit publishes ids),
// and the index keeps memory bounded (the page cache) for tens of millions
// of keys. Sorted files would need an external sort and merge per ingest, a
// counter reserved under the manifest lock, and would lose the ids of keys
// minted by a writer that lost a race to commit. The database is created
// by the first mint, so a table that is only read never gets one. A
// dataset entry written with minted ids says so ("ids": "minted"); one
// without (a table written before) is migrated at its next commit: its
// records' keys are minted and their old ids recorded as aliases.
//
// Splits are Parquet row groups. The manifest carries per-row-group
// statistics (min, max, null count and, for low-cardinality string columns,
// the complete value set) so a scan prunes row groups without opening files.
// A scan reads the predicate's columns first, evaluates the predicate
// vectorized, and decodes the other requested columns only for row ranges that
// hold matches.
//
// Files are written with arrow-go's pqarrow and read without it: the
// package parses footers, page headers and offset indexes itself (a small
// compact-Thrift reader, thrift.go, footer.go, pageheader.go), reads column
// chunks through a read-ahead window or, for a seek, exactly the page the
// offset index names (chunk.go), and decodes pages with its own decoder
// (pages.go, rle.go): pages are decoded into buffers reused from batch to
// batch, dictionary-encoded strings and integers reach the predicate as
// dictionary indices (each distinct value is matched once per column
// chunk), and value columns seek to the 1,024-row slices that hold matches.
// Multi-value columns (typeStatus, mediaType, issue) are stored as strings
// joined with ";" and read like any other string column. The manifest is
// validated and walked in one pass (manifest_decode.go).
package parquet
