package rpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// FuzzSession feeds arbitrary bytes to a session of each transport, cut
// into chunks by the first byte and alternating directions, with a gap in
// the middle (feedChunks): it must never panic, every record must marshal
// to valid JSON, numbers must run from 1 without a hole and never back in
// frame, every pair must point both ways, and a light session
// (Config.Light) must add up to the same tables and connection findings.
func FuzzSession(f *testing.F) {
	var seed []byte
	for _, st := range conversation() {
		seed = append(seed, wire(st.env)...)
	}
	f.Add(uint8(0), seed)
	f.Add(uint8(1), append(websocket.EncodeUpgradeRequest("h", "/ws", "dGhlIHNhbXBsZSBub25jZQ=="), websocket.EncodeFrame(nil, websocket.OpBinary, true, &[4]byte{1, 2, 3, 4}, seed[:40])...))
	f.Add(uint8(2), kcp.EncodeSegment(ulinkrpc.EncodeHandshake(ulinkrpc.Handshake{Conv: 9}), kcp.SplitMessage(9, 0, seed[:60], 0)[0]))
	keys := ulinkrpc.DeriveKeys([]byte("k"), ulinkrpc.HKDF)
	f.Fuzz(func(t *testing.T, mode uint8, data []byte) {
		cfg := Config{Transport: Transport(mode % 3), MidStream: mode&4 != 0, Contracts: contracts(t)}
		if mode&8 != 0 {
			cfg.Transform.Keys = &keys
		}
		s := New(testConn, cfg)
		feedChunks(s, mode, data)
		// A light session (tables) adds up to the same tables and
		// connection findings.
		cfg.Light = true
		light := New(testConn, cfg)
		feedChunks(light, mode, data)
		sameLight(t, s, light)
		// A compact session's records that Slim keeps are given again
		// by Restore as the whole session decoded them.
		cfg.Light = false
		compact := New(testConn, cfg)
		compact.KeepCompact()
		feedChunks(compact, mode, data)
		sameSlim(t, s, compact)
		rs := s.Records()
		byN := map[int]*Record{}
		for i, r := range rs {
			if r.N != i+1 {
				t.Fatalf("record %d has n %d", i+1, r.N)
			}
			if i > 0 && r.Frame < rs[i-1].Frame {
				t.Fatalf("record %d frame %d after frame %d", r.N, r.Frame, rs[i-1].Frame)
			}
			if !json.Valid(AppendJSON(nil, r)) {
				t.Fatalf("record %d: invalid JSON: %s", r.N, AppendJSON(nil, r))
			}
			_ = Line(r)
			// The layer tree (dump -V, the TUI) escapes what it shows.
			if txt := TreeText(r); strings.ContainsFunc(txt, func(c rune) bool {
				return c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 && c <= 0x9f || c >= 0x202a && c <= 0x202e
			}) {
				t.Fatalf("record %d: raw control character in the tree text: %q", r.N, txt)
			}
			byN[r.N] = r
		}
		for _, r := range rs {
			if r.Pair != 0 && (byN[r.Pair] == nil || byN[r.Pair].Pair != r.N) {
				t.Fatalf("record %d pairs with %d, which does not pair back", r.N, r.Pair)
			}
		}
		tb := s.Tables()
		if !json.Valid(AppendTablesJSON(nil, &tb)) || !json.Valid(AppendConnJSON(nil, s)) {
			t.Fatal("tables JSON invalid")
		}
	})
}

// feedChunks feeds data to s as FuzzSession does: in chunks of mode>>4 + 1
// bytes, alternating directions, datagrams for KCP, a gap of 5 bytes with
// the third chunk for a stream, then the end.
func feedChunks(s *Session, mode uint8, data []byte) {
	chunk := int(mode>>4) + 1
	frame := 0
	for len(data) > 0 {
		n := min(chunk, len(data))
		frame++
		d := dissect.Dir(frame & 1)
		if s.Transport() == KCP {
			s.Datagram(d, data[:n], stamp(frame, frame))
		} else {
			s.Bytes(d, data[:n], stamp(frame, frame))
			if frame == 3 {
				s.Gap(d, 5, stamp(frame, frame))
			}
		}
		data = data[n:]
	}
	s.End(stamp(frame+1, frame+1))
}
