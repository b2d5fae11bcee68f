// Package export writes a capture's records for the engines that fleets
// already run: Parquet for DuckDB and ClickHouse (`usmnscope export
// --format parquet`, ../shared/spec/outputs.md "usmnscope export").
//
// # Records
//
// A Record is one message of either protocol as `dump --json` has it,
// flattened into the typed columns of outputs.md: the one adapter (Of)
// reads the session.Message that the dump's JSON encoder reads (a
// session.JSONBatch's), so that the Parquet rows and the NDJSON records
// say the same of every message. A hosted protocol's record fills the
// columns from its decode.Meta and the facts it states (decode.Caller,
// decode.ValueWriter): export names no protocol's types.
//
// # Parquet
//
// A Writer writes Records as rows of the outputs.md column set (names and
// types exactly so, null where a record has no such value), zstd
// compressed, in row groups of at most RowGroupRows rows: what it holds
// is one row group's encoded pages, whatever the capture's size. With
// payload columns (Columns from a schema.Set), each top-level payload
// field of the schemas is a column of its own, typed from its schema
// type (schema.md section 3).
package export
