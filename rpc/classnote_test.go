package rpc

import (
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// TestClassifiedOnce: with the transform settings unknown, the
// classification is said once per connection and class (ulinkrpc.md 3),
// with the first record and a count; a record classified unlike the
// connection's first frame keeps its own note; with the settings known
// there is no classification at all.
func TestClassifiedOnce(t *testing.T) {
	plain := wire(ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{}`)))
	flags := wire(append([]byte{0}, ulinkrpc.EncodeRequest(2, 1, 1, []byte(`{}`))...))
	feed := func(cfg Config) *Session {
		s := New(testConn, cfg)
		s.Bytes(dissect.C2S, plain, stamp(1, 0))
		s.Bytes(dissect.C2S, plain, stamp(2, 10))
		s.Bytes(dissect.C2S, flags, stamp(3, 20))
		s.Bytes(dissect.C2S, plain, stamp(4, 30))
		s.End(stamp(5, 40))
		return s
	}
	s := feed(Config{})
	var got []string
	for _, f := range s.Findings() {
		if f.Group == dissect.Inference {
			got = append(got, f.Text)
			if f.Bit != -1 {
				t.Errorf("class finding %q: bit %d; want -1 (a connection finding)", f.Text, f.Bit)
			}
		}
	}
	want := []string{
		"transform: settings unknown, 3 frames classified as plain, the first #1",
		"transform: settings unknown, 1 frame classified as transform on, not compressed, the first #3 (unlike the connection's first frame: each such record says so too)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("connection findings = %q; want %q", got, want)
	}
	if n := s.Findings()[0].N; n != 1 {
		t.Errorf("first class finding names #%d; want #1", n)
	}
	for _, r := range s.Records() {
		noted := len(r.Findings) > 0 && strings.HasPrefix(r.Findings[0].Text, "transform: settings unknown, classified as ")
		if noted != (r.N == 3) {
			t.Errorf("record #%d has its own class note: %v; want only #3 (classified unlike the connection)", r.N, noted)
		}
	}
	s = feed(Config{Transform: ulinkrpc.TransformConfig{Mode: ulinkrpc.Off}})
	for _, f := range s.Findings() {
		if strings.Contains(f.Text, "classified") {
			t.Errorf("transform off: finding %q; want no classification", f.Text)
		}
	}
}
