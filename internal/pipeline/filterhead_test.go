package pipeline_test

import (
	"reflect"
	"testing"

	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// filterKeys are the keys of a ULinkRPC record a filter of Heads reads
// (filter/fields.go: service, method, their ids, request_id and status).
var filterKeys = []string{"service", "method", "service_id", "method_id", "request_id", "status"}

// TestFilterHeadSame: over every TCP and WebSocket ULinkRPC fixture, with
// the fixture contracts and without (MemoryPack payloads then cut by shape,
// each with a note), the full index's FilterHead gives every message's
// Head as Head does (number, connection, direction, kind, worst severity)
// with a record of the same name and protocol keys, and restores slim
// records compact where Head decodes them whole, without decoding the
// payload again for those with a payload note either (decode.Place.Brief:
// the note is in the Head's worst severity already).
func TestFilterHeadSame(t *testing.T) {
	compact, noted, hosted := 0, 0, 0
	for _, name := range []string{"tcp-json", "tcp-memorypack", "tcp-gzip", "tcp-midstream", "websocket-json", "websocket-midstream"} {
		for _, contracts := range []*ulinkrpc.Contracts{fixtureContracts(t), nil} {
			ix, _ := feedRPCWith(t, name, unturned.Default(), nil, rpc.Config{Contracts: contracts})
			for n := 1; n <= ix.Len(); n++ {
				h, ok := ix.Head(n)
				fh, fok := ix.FilterHead(n)
				if ok != fok || h.N != fh.N || h.Conn != fh.Conn || h.Dir != fh.Dir || h.Kind != fh.Kind ||
					h.Worst != fh.Worst || h.HasFinding != fh.HasFinding || h.Hosted != fh.Hosted {
					t.Fatalf("%s: FilterHead(%d) = %+v, %v; want %+v, %v", name, n, fh, fok, h, ok)
				}
				if (h.Rec == nil) != (fh.Rec == nil) {
					t.Fatalf("%s: message %d: FilterHead's record %v; Head's %v", name, n, fh.Rec, h.Rec)
				}
				if h.Rec == nil {
					continue
				}
				hosted++
				if got, want := fh.Rec.Meta().Name, h.Rec.Meta().Name; got != want {
					t.Fatalf("%s: message %d: FilterHead's record is named %q; want %q", name, n, got, want)
				}
				for _, k := range filterKeys {
					got, gok := fh.Rec.Values(k)
					want, wok := h.Rec.Values(k)
					if gok != wok || !reflect.DeepEqual(got, want) {
						t.Fatalf("%s: message %d: FilterHead's %s = %v, %v; want %v, %v", name, n, k, got, gok, want, wok)
					}
				}
				r, w := fh.Rec.(*rpc.Record), h.Rec.(*rpc.Record)
				if r.Compacted() && !w.Compacted() {
					compact++
					if len(w.Findings) > 0 && len(r.Findings) == 0 {
						noted++ // its payload not decoded again for its note
					}
				}
			}
		}
	}
	t.Logf("%d of %d records restored compact, %d of them without decoding the payload for its note", compact, hosted, noted)
	if compact == 0 || noted == 0 {
		t.Fatal("no record restored compact (or none with a payload note without decoding its payload): the test compares nothing FilterHead saves")
	}
}
