package decode

import (
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// What a Conn may offer its host beyond Conn (ULinkRPC's today): the host
// asks for each once, when it opens the connection, so that the records
// it numbers cost it no more than the Conn's own calls (issue 23: the host
// names no protocol).

// Labeled is a Conn that says how a list of connections shows it: the
// protocol and how it is carried ("ulinkrpc tcp").
type Labeled interface {
	Label() string
}

// Budgeted is a Conn whose records the host bounds in bytes (Meta.Size)
// while a stream keeps them waiting to be printed: BudgetMax is the bound
// (its protocol's capture-wide buffer budget, or its default).
type Budgeted interface {
	BudgetMax() int
}

// Tallied is a Conn that keeps tables of its own (Tables).
type Tallied interface {
	// Tables are the tables of the records numbered so far; Empty, of
	// none.
	Tables() Tables
	Empty() Tables
	// Tally adds records up again (the tables as of an earlier message).
	Tally() Tally
	// AppendTablesJSONOf appends the connection's `tables --json` entry
	// with t, one of its Tables, and its first findings connection
	// findings (all when negative: a cut's are those said before it).
	AppendTablesJSONOf(dst []byte, t Tables, findings int) []byte
}

// Tally adds up records of a Tallied connection, in number order.
type Tally interface {
	Add(r Record)
	// Tables are the tables of what was added, records the records
	// they count.
	Tables(records int) Tables
}

// Reuser is a Conn that takes back what its host hands out for good (a
// stream's records, once printed): Recycle a record of a Config.Light
// connection, or one a full index keeps slim (Keeper), which the host
// reads no more; Shed the bytes of an asker
// still waiting for its answer (Waiting), whose host handed out a copy.
type Reuser interface {
	Recycle(r Record)
	Shed(r Record)
}

// Keeper is a Conn whose records a host that keeps every record for good
// may keep small: compact (KeepCompact, from the start), made whole again
// when read (Expand), and slim, the bytes they are restored from kept by
// the host and the rest in a few numbers (Place).
type Keeper interface {
	KeepCompact()
	// Expand is r whole, a copy decoded again from its bytes, when r is
	// kept compact; else r.
	Expand(r Record) Record
	// Compacted reports whether r is kept compact.
	Compacted(r Record) bool
	// Keep gives the bytes a numbered r may be restored from, when the
	// host may keep it slim, and whether they lie in one run of the
	// capture file from file (Stamp.File), masked there (Stamp.Masked);
	// ok false: r is kept as a record.
	Keep(r Record) (b []byte, file int64, inFile, masked, ok bool)
	// Rebase makes r's bytes (Keep) b, the host's copy of them.
	Rebase(r Record, b []byte)
	// Slim reports whether r is given again by Restore from its bytes and
	// a Place, with the Place's Offset and Answer (the host checks the
	// rest against Meta).
	Slim(r Record) (offset int64, answer, ok bool)
	// Restore gives again a record Slim kept, from b, its bytes, and p;
	// without whole, compact. A reader may call it under the host's read
	// lock: the connection's state is only read.
	Restore(b []byte, p Place, whole bool) Record
}

// Place is what a host keeps of a slim record (Keeper) beside its bytes.
type Place struct {
	N, Frame   int
	Time       time.Time
	Dir        dissect.Dir
	Offset     int64
	Pair       int
	Latency    time.Duration
	HasLatency bool
	// Asker is an answer's asker (Slim's answer), compact; nil for others.
	Asker Record
	// NoFindings: the record had none.
	NoFindings bool
	// Brief: the reader reads only the record's name and its protocol's
	// own keys (Record.Values of names outside the payload): a filter of
	// Heads (session.Index.FilterHead). Without whole, Restore may then
	// leave the payload and the findings undecoded, as for NoFindings.
	Brief bool
	// Err says b is short of the bytes kept (a capture file cut short
	// under the open TUI): the record is restored as far as they go, with
	// Err as a finding.
	Err error
}
