package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/render"
	"github.com/usmnscope/usmnscope/scenario"
)

// TestLazyRecordsAgree: `dump --json` and plain `dump` decode each
// ULinkRPC record's fields and payload on their encoding goroutine and
// hand the records back for reuse once a batch is written (rpc's Lazy
// sessions, issue 28). Over captures of several thousand frames, more
// than the batches in flight hold, so that records are reused many times
// over, every path still gives the TUI index's records (agree), on TCP,
// WebSocket and KCP; and plain dump's lines equal the index's lines.
func TestLazyRecordsAgree(t *testing.T) {
	t.Parallel()
	frames := 6000
	if testing.Short() {
		frames = 2500
	}
	dir := t.TempDir()
	for _, tr := range []string{"tcp", "websocket", "kcp"} {
		var capture bytes.Buffer
		if _, err := (scenario.RPCScale{Frames: frames, Conns: 8, Seed: 28, Transport: tr}).Generate(&capture, scenario.PCAP); err != nil {
			t.Fatal(err)
		}
		data := capture.Bytes()
		if d := agree(t, dir, data, []int{len(packetEnds(data)) / 2}); d != "" {
			t.Errorf("%s: %s", tr, d)
		}
		full, err := tuiIndex(dir + "/agree.pcap")
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		_, start, _ := full.Stamp(1)
		for n := 1; n <= full.Len(); n++ {
			m := full.Message(n)
			if m == nil || m.Record() == nil {
				t.Fatalf("%s: message %d is no hosted record", tr, n)
			}
			want.WriteString(render.RecLine(m.Record(), start))
			want.WriteByte('\n')
		}
		var out, errw bytes.Buffer
		if code := Execute([]string{"dump", dir + "/agree.pcap"}, nil, &out, &errw); code != exitOK {
			t.Fatalf("%s: dump exit %d: %s", tr, code, errw.String())
		}
		got := out.String()
		if i := strings.Index(got, "\n#"); i >= 0 {
			got = got[:i+1] // the trailer's connection findings
		}
		if got != want.String() {
			t.Errorf("%s: dump lines differ from the index's (%d and %d bytes)", tr, len(got), want.Len())
		}
	}
}
