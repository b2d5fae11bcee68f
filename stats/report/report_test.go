package report

import (
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/netpak"
)

func TestSplitSpans(t *testing.T) {
	sp := func(name string, bit, bits int) netpak.Span { return netpak.Span{Name: name, Bit: bit, Bits: bits} }
	tests := []struct {
		name  string
		kind  string
		spans []netpak.Span
		bits  int
		want  Split
	}{
		// enum 5, Has_Client_ID 1, Serverside_Listener_ID 2, payload 40.
		{"invoke", "InvokeMessageListener", []netpak.Span{sp("enum", 0, 5), sp("Has_Client_ID", 5, 1), sp("Serverside_Listener_ID", 6, 2), sp("payload", 8, 40)}, 48,
			Split{Header: 8, Payload: 40}},
		// A definition, a payload with nested schema fields (listed after
		// it, inside it: nothing twice) and 3 trailing bits no span covers.
		{"definition and nested", "InvokeMessageListener", []netpak.Span{sp("enum", 0, 6), sp("Listener_Type_Name", 6, 100), sp("Listener_Version", 106, 32), sp("payload", 138, 19), sp("payload.text", 140, 10)}, 160,
			Split{Header: 6, Definition: 132, Payload: 19, Padding: 3}},
		// A gap between spans is padding; a span past the end is clipped.
		{"gap and overrun", "PingRequest", []netpak.Span{sp("enum", 0, 5), sp("padding", 5, 3), sp("x", 10, 20)}, 16,
			Split{Header: 5, Padding: 5, Payload: 6}},
		// Negotiate fields are all header, even the type name.
		{"negotiate", "NegotiateListenerDetails", []netpak.Span{sp("enum", 0, 6), sp("mode", 6, 2), sp("Listener_Type_Name", 8, 40)}, 48,
			Split{Header: 48}},
		{"no spans", "Unknown", nil, 24, Split{Padding: 24}},
		// The marker is header on a vanilla message.
		{"marker", "DownloadWorkshopFiles", []netpak.Span{sp("enum", 0, 5), sp("map", 5, 11), sp("marker.magic", 16, 32), sp("padding", 48, 0)}, 48,
			Split{Header: 37, Payload: 11}},
	}
	for _, tt := range tests {
		var got Split
		SplitSpans(&got, tt.spans, tt.bits, UnturnedClass(tt.kind))
		if got != tt.want {
			t.Errorf("%s: SplitSpans = %v; want %v", tt.name, got, tt.want)
		}
		if got.Total() != int64(tt.bits) {
			t.Errorf("%s: parts add up to %d; want %d", tt.name, got.Total(), tt.bits)
		}
	}
}

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func TestFindings(t *testing.T) {
	rp := New(Options{})
	n := 0
	add := func(r Record) {
		n++
		r.N, r.Time, r.Conn = n, t0.Add(time.Duration(n)*time.Millisecond), "c"
		rp.Add(&r)
	}
	// 24 pings of 1..2 ms, one of 4 ms and one of 9 ms: 9 ms is more
	// than twice the p99 of the other 25 (4 ms: nearest rank 25 of 25);
	// 4 ms is not (the others' p99 is 9 ms).
	for i := range 24 {
		add(Record{Kind: "PingResponse", Dir: dissect.S2C, Ask: Ask{What: Ping}, Latency: time.Duration(1+i%2) * time.Millisecond})
	}
	add(Record{Kind: "PingResponse", Dir: dissect.S2C, Ask: Ask{What: Ping}, Latency: 4 * time.Millisecond})
	add(Record{Kind: "PingResponse", Dir: dissect.S2C, Ask: Ask{What: Ping}, Latency: 9 * time.Millisecond})
	outlierN := n
	// A listener whose definition costs more than its payload, one not.
	add(Record{Kind: "InvokeMessageListener", Listener: "Costly", Bits: Split{Definition: 200, Payload: 10}})
	add(Record{Kind: "InvokeMessageListener", Listener: "Cheap", Bits: Split{Definition: 200, Payload: 300}})
	// 321 requests, one answered early: the count passes 320 at the
	// 322nd request.
	var firstReq int
	for i := range 322 {
		add(Record{Proto: ULinkRPC, Kind: "Request", Dir: dissect.C2S, Request: true})
		if i == 0 {
			firstReq = n
			add(Record{Proto: ULinkRPC, Kind: "Response", Dir: dissect.S2C, Answered: firstReq})
		}
	}
	overN := n
	res := rp.Result()
	var texts []string
	for _, f := range res.Findings {
		texts = append(texts, f.Text)
	}
	all := strings.Join(texts, "\n")
	if len(res.Findings) != 3 {
		t.Fatalf("findings:\n%s\nwant 3 (overload, outlier, definition)", all)
	}
	if f := res.Findings[0]; f.Severity != dissect.Warn || f.N != overN || !strings.Contains(f.Text, "321 requests unanswered") {
		t.Errorf("first finding = %+v; want the overload warning at #%d", f, overN)
	}
	// Then the notes in message order, those of no message first.
	if f := res.Findings[1]; !strings.Contains(f.Text, "listener Costly") || f.N != 0 {
		t.Errorf("second finding = %+v; want listener Costly", f)
	}
	if f := res.Findings[2]; f.N != outlierN || !strings.Contains(f.Text, "9.00 ms") || !strings.Contains(f.Text, "(4.00 ms)") {
		t.Errorf("third finding = %+v; want the 9 ms ping at #%d against a p99 of 4 ms", f, outlierN)
	}
}

// TestGroupsAndRates: groups per key and direction, the share, the
// intervals' mean and peak, and the series.
func TestGroupsAndRates(t *testing.T) {
	rp := New(Options{By: []By{ByKind, ByDir}, Interval: time.Second})
	for i, r := range []struct {
		ms    int
		kind  string
		dir   dissect.Dir
		bytes int
	}{{0, "A", dissect.C2S, 100}, {500, "A", dissect.C2S, 100}, {1200, "B", dissect.S2C, 50}, {3100, "A", dissect.C2S, 150}} {
		rec := Record{N: i + 1, Time: t0.Add(time.Duration(r.ms) * time.Millisecond), Kind: r.kind, Dir: r.dir, Bytes: r.bytes}
		rec.Bits[Payload] = 8 * int64(r.bytes)
		rp.Add(&rec)
	}
	res := rp.Result()
	if res.Messages != 4 || res.Bytes != 400 || res.Duration != 3100*time.Millisecond {
		t.Fatalf("totals = %d, %d, %v; want 4, 400, 3.1s", res.Messages, res.Bytes, res.Duration)
	}
	a := res.Groups[0]
	// A: 350 bytes over 4 intervals (10:00:00..10:00:03): 700 bps mean;
	// the peak is the first second's 200 bytes, 1600 bps.
	if a.Key != "A" || a.Messages != 3 || a.Share != 0.875 || a.MeanBPS != 700 || a.PeakBPS != 1600 || !a.PeakAt.Equal(t0) {
		t.Errorf("group A = %+v (share %v, mean %d, peak %d at %v); want 3 messages, 0.875, 700, 1600 at %v", *a.Group, a.Share, a.MeanBPS, a.PeakBPS, a.PeakAt, t0)
	}
	if len(res.Groups) != 4 || res.Groups[2].By != ByDir || res.Groups[2].Key != "c2s" {
		t.Errorf("groups = %d, third %v %q; want 4, the third dir c2s", len(res.Groups), res.Groups[2].By, res.Groups[2].Key)
	}
	if len(res.Series) != 3 || res.Series[0].Messages != 2 || res.Series[2].Bytes != 150 {
		t.Errorf("series = %+v; want 3 intervals with messages (2, 1, 1)", res.Series)
	}
}
