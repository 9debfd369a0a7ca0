// Package hbase is the occurrence table in HBase (2.5/2.6), spoken to with
// the project's own wire client (package hrpc).
//
// Layout of a table (created on first Open, pre-split into salt buckets):
//
//   - Row key: salt | country | dataset hash | generation | gbifID (keys.go).
//     The salt (a hash of the gbifID) spreads records evenly over the
//     pre-split regions; one bucket is one occurrence.Split. Grouping rows by
//     country inside a bucket lets a country predicate read only its key
//     ranges.
//   - Family r: the full record in one compact binary cell (codec.go); single-
//     cell records scan fastest.
//   - Family h: a small fixed-layout header of the columns predicates use most
//     (header.go). Predicates are pushed down as SingleColumnValueFilters with
//     BinaryComponentComparators on it (pushdown.go) and family r is loaded on
//     demand, so unmatched rows never leave the region servers. The filter
//     selects a superset; the exact predicate is re-checked client-side with
//     (*occurrence.Predicate).Eval unless the filter was exact. Header
//     versions only append fields; a dataset's state records its rows'
//     version, and a snapshot pushes only the fields its oldest rows hold.
//   - Family m: one state row per dataset (after every bucket): its current
//     generation, per-bucket row counts, description and EML; and the
//     gbifID lookup (ids.go): a row per dataset and occurrence key holding
//     its id, an alias row per replaced hash id, and the id counter in the
//     table's row. Like GBIF's own key service the lookup lives in HBase:
//     every writer of every process shares it. New ids come in blocks of
//     1000 from one atomic Increment of the counter; a new key's row is
//     written with a check-and-put on its absence (batched, HBase 2.4+;
//     without waiting for the WAL, then one synced put per region), so
//     that of two writers minting one key at once both end with the
//     winner's id.
//
// Ingest writes a dataset as a new generation with batched Multi puts and
// makes it current with one atomic row write; readers take the generations
// current at Snapshot time, so they never see half a dataset and later
// ingests do not change a running scan. Replaced generations are deleted by
// a later writer (or Collect) once KeepFor has passed and no pin holds them
// (pin.go; crashed ingests after AbandonAfter).
//
// Open takes hbase://host:port/table, host:port being the HBase master.
package hbase
