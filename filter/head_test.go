package filter_test

import (
	"github.com/usmnscope/usmnscope/decode"
	"os"
	"path/filepath"
	"testing"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/ulinkrpc"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestHeadOnly: filters over n, conn, dir, msg and severity are decided
// from the index record (issue 12: they used to decode every message
// again); any other field needs the message.
func TestHeadOnly(t *testing.T) {
	for _, tc := range []struct {
		expr string
		head bool
	}{
		{"", true},
		{"dir==s2c", true},
		{"msg==InvokeMessageListener", true},
		{"severity>=warn && !c2s", true},
		{"n>3 || conn~50412", true},
		{"kicked", true},
		{"listener~Chat", false},
		{"dir==s2c && id==3", false},
		{"widened", false},
		{"group==malformed", false},
	} {
		f, err := filter.Parse(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.HeadOnly(); got != tc.head {
			t.Errorf("Parse(%q).HeadOnly() = %v; want %v", tc.expr, got, tc.head)
		}
	}
}

// TestMatchHeadAgrees: on every message of every fixture capture,
// MatchHead over Index.Head gives what Match gives over the decoded
// message, for each head-only filter.
func TestMatchHeadAgrees(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "fixtures", "captures", "*.pcapng"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixture captures: %v", err)
	}
	exprs := []string{"dir==s2c", "msg==InvokeMessageListener || msg~negotiate", "severity>=warn", "severity==none", "severity==error", "n>=5 && n<12", "conn~:27016", "!kicked && s2c"}
	checked := 0
	for _, path := range paths {
		p := unturned.Default()
		src, err := capture.Open(path, capture.Options{TransportPort: p.TransportPort, QueryPort: p.QueryPort})
		if err != nil {
			t.Fatal(err)
		}
		ix := session.NewIndex(p)
		if err := pipeline.Feed(src, ix, nil); err != nil {
			t.Logf("%s: %v", path, err)
		}
		src.Close()
		for _, expr := range exprs {
			f, err := filter.Parse(expr)
			if err != nil {
				t.Fatal(err)
			}
			for n := 1; n <= ix.Len(); n++ {
				h, ok := ix.Head(n)
				if !ok {
					t.Fatalf("%s: Head(%d) missing of %d", path, n, ix.Len())
				}
				m := ix.Detail(n)
				if got, want := f.MatchHead(h), f.Match(m); got != want {
					t.Errorf("%s message %d: %q MatchHead = %v; Match = %v (head %+v)", filepath.Base(path), n, expr, got, want, h)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no message checked")
	}
}

// TestAppendJSONRangeHeadOnly: dump --json with a head-only filter skips
// messages before reading them and prints what filtering the decoded
// messages prints.
func TestAppendJSONRangeHeadOnly(t *testing.T) {
	path := filepath.Join("..", "fixtures", "captures", "usmn-midstream.pcapng")
	src, err := capture.Open(path, capture.Options{TransportPort: 27016})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ix := session.NewIndex(nil)
	if err := pipeline.Feed(src, ix, nil); err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{"dir==s2c", "msg==InvokeMessageListener", "severity>=note", "n>4 && c2s", "listener~Sample", "severity>=warn || msg~Ping"} {
		f, err := filter.Parse(expr)
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for n := 1; n <= ix.Len(); n++ {
			if m := ix.Detail(n); f.Match(m) {
				want = append(m.AppendJSON(want), '\n')
			}
		}
		if len(want) == 0 {
			t.Errorf("%q selects nothing in %s: the test compares nothing", expr, path)
		}
		if got := ix.AppendJSONRange(nil, 1, ix.Len(), f); string(got) != string(want) {
			t.Errorf("AppendJSONRange(%q) =\n%s\nwant\n%s", expr, got, want)
		}
	}
}

// TestMatchHeadAgreesULinkRPC is TestMatchHeadAgrees over the ULinkRPC
// fixture captures decoded into the index (issue 15), with the ULinkRPC
// head-only fields; each filter selects something somewhere.
func TestMatchHeadAgreesULinkRPC(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "fixtures", "ulinkrpc", "*.pcapng"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no ULinkRPC fixture captures: %v", err)
	}
	con, err := ulinkrpc.ParseContractsFS(os.DirFS(filepath.Join("..", "fixtures", "ulinkrpc", "contracts")), ".")
	if err != nil {
		t.Fatal(err)
	}
	exprs := []string{"proto==ulinkrpc", "proto==unturned", "msg==Response && status!=Ok", "service~player && method==LoginAsync",
		"service_id==1 && method_id>=2", "request_id<=2", "status==2 || severity>=warn", "KeepAlive", "s2c && !Push"}
	selected := map[string]int{}
	for _, path := range paths {
		p := unturned.Default()
		rp := pipeline.NewRPC(rpc.Config{Contracts: con})
		src, err := capture.Open(path, capture.Options{TransportPort: p.TransportPort, DatagramPorts: rp.DatagramPorts("")})
		if err != nil {
			t.Fatal(err)
		}
		ix := session.NewIndex(p)
		if err := pipeline.FeedRPC(src, ix, rp, nil); err != nil {
			t.Logf("%s: %v", path, err)
		}
		src.Close()
		for _, expr := range exprs {
			f, err := filter.Parse(expr)
			if err != nil || !f.HeadOnly() {
				t.Fatalf("Parse(%q): %v, head-only %v", expr, err, err == nil && f.HeadOnly())
			}
			for n := 1; n <= ix.Len(); n++ {
				h, _ := ix.Head(n)
				m := ix.Detail(n)
				got, want := f.MatchHead(h), f.Match(m)
				if got != want || rpcOf(m.Rec) == nil {
					t.Errorf("%s message %d: %q MatchHead = %v; Match = %v (ULinkRPC record %v)", filepath.Base(path), n, expr, got, want, rpcOf(m.Rec) != nil)
				}
				if want {
					selected[expr]++
				}
			}
		}
	}
	for _, expr := range exprs {
		if selected[expr] == 0 && expr != "proto==unturned" {
			t.Errorf("%q selects nothing in the ULinkRPC fixtures: the test compares nothing", expr)
		}
	}
}

// rpcOf is r as a ULinkRPC record, nil for none.
func rpcOf(r decode.Record) *rpc.Record {
	rr, _ := r.(*rpc.Record)
	return rr
}
