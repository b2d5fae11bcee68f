package views

import (
	"slices"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/views/fake"
)

// The fake of ULinkRPC sessions lives with the tests that use it, so that
// views/fake, a production package the tests share, names no protocol
// but the host's own.

// rpcSource is a fake source (views/fake) holding the records of ULinkRPC sessions as the
// index hosts them (session.Message.Rec, outputs.md "ULinkRPC records"):
// each record a message numbered by its N, with its pair and latency, and
// each session a connection with its `rpc` table. The tables are the
// sessions' at the end of the capture whatever the message asked for
// (package rpc adds up a session's records only as they stand); their
// AsOf is the message asked for, as the index's would be.
func rpcSource(sessions []*rpc.Session) *fake.Source {
	s := &fake.Source{}
	tables := map[dissect.Conn]decode.Tables{}
	var msgs []*session.Message
	for _, ss := range sessions {
		ci := session.ConnInfo{Conn: ss.Conn(), Proto: rpc.Name, EmptyTables: rpc.Hosted{Session: ss}.Empty(), Label: ss.Label()}
		for _, f := range ss.Findings() {
			ci.Findings = append(ci.Findings, f.Finding)
			worseOf(&ci, f.Severity)
		}
		for _, r := range ss.Records() {
			msgs = append(msgs, rpcMessage(r))
			if ci.First.IsZero() {
				ci.First = r.Time
			}
			ci.Last = r.Time
			ci.Messages++
			ci.Bytes[r.Dir] += int64(r.Len) + 4 // the length prefix too (ulinkrpc.md 2)
			for _, f := range r.Findings {
				worseOf(&ci, f.Severity)
			}
		}
		// Records 0: the table's Tables carry no message count.
		tables[ss.Conn()] = &rpc.View{Tables: ss.Tables(), Transport: ss.Transport()}
		s.Conns = append(s.Conns, ci)
	}
	slices.SortFunc(msgs, func(a, b *session.Message) int { return a.N - b.N })
	s.Msgs = make([]*session.Message, 0, len(msgs))
	for _, m := range msgs {
		for len(s.Msgs) < m.N-1 {
			s.Msgs = append(s.Msgs, nil) // numbers the sources do not hold
		}
		if m.N == len(s.Msgs)+1 {
			s.Msgs = append(s.Msgs, m)
		}
	}
	s.Table = func(c dissect.Conn, asOf int) *session.Tables {
		t := &session.Tables{Conn: c, AsOf: asOf}
		t.ProtoTable = tables[c]
		return t
	}
	return s
}

// rpcMessage is r as the index hosts it: a message with the record, its
// number, frame, time, connection, direction, pair and latency, and no
// Unturned fields.
func rpcMessage(r *rpc.Record) *session.Message {
	return &session.Message{N: r.N, Frame: r.Frame, Time: r.Time, Conn: r.Conn, Dir: r.Dir,
		Pair: r.Pair, Latency: r.Latency, HasLatency: r.HasLatency, Rec: r}
}

func worseOf(ci *session.ConnInfo, s dissect.Severity) {
	if !ci.HasFinding || s > ci.Worst {
		ci.Worst, ci.HasFinding = s, true
	}
}
