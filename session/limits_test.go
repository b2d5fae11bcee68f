package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestDefaultBounds checks the [limits] defaults against SECURITY.md's
// bounds table (1 MiB, 64 MiB, 10,000 flows, 65,535 bytes, 65,536
// entries, 4,096 references) and that the decoder's share matches
// DefaultLimits.
func TestDefaultBounds(t *testing.T) {
	// The capture bounds are zero here: "capture's default", filled by
	// internal/pipeline (whose bounds_test.go checks the full values).
	want := unturned.Bounds{
		MaxMessage:      65535,
		MaxTableEntries: 65536,
		MaxUnresolved:   4096,
		MaxFindings:     1000,
		MaxRPCBuffer:    32 << 20,
		MaxInflate:      1 << 20,
	}
	if got := unturned.DefaultBounds(); got != want {
		t.Errorf("DefaultBounds() = %+v; want %+v", got, want)
	}
	if got := unturned.Default().Bounds; got != want {
		t.Errorf("Default().Bounds = %+v; want %+v", got, want)
	}
	if got, want := want.Limits(), unturned.DefaultLimits(); got != want {
		t.Errorf("DefaultBounds().Limits() = %+v; want DefaultLimits() %+v", got, want)
	}
	if unturned.MaxFrameLen != int(want.MaxMessage) {
		t.Errorf("default max_message %d is not the wire maximum %d (wire.md 2)", want.MaxMessage, unturned.MaxFrameLen)
	}
}

// TestBoundsLimits: the decoder gets the profile's message, table and
// unresolved bounds; the rest of Limits keeps its defaults.
func TestBoundsLimits(t *testing.T) {
	b := unturned.DefaultBounds()
	b.MaxMessage, b.MaxTableEntries, b.MaxUnresolved = 100, 7, 3
	got := b.Limits()
	want := unturned.DefaultLimits()
	want.MaxMessage, want.MaxEntries, want.MaxUnresolved = 100, 7, 3
	if got != want {
		t.Errorf("Limits() = %+v; want %+v", got, want)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"4096", 4096, true},
		{"1900B", 1900, true},
		{"64KiB", 64 << 10, true},
		{"1MiB", 1 << 20, true},
		{"1 MiB", 1 << 20, true},
		{"2GiB", 2 << 30, true},
		{"1024GiB", 1 << 40, true},
		{"1025GiB", 0, false},
		{"", 0, false},
		{"KiB", 0, false},
		{"1MB", 0, false},
		{"1.5MiB", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1mib", 0, false},
		{"99999999999999999999", 0, false},
	}
	for _, tt := range tests {
		got, err := unturned.ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.in)) {
			t.Errorf("ParseSize(%q) error %q does not quote the input", tt.in, err)
		}
	}
}

// TestParseProfileLimits: every [limits] key is read, sizes as integers
// or suffixed strings, and a bad value is an error naming the key and
// the value.
func TestParseProfileLimits(t *testing.T) {
	tests := []struct {
		in   string
		want func(*unturned.Bounds) // applied to DefaultBounds; nil when an error is wanted
		err  string
	}{
		{"[limits]\n", func(*unturned.Bounds) {}, ""},
		{"[limits]\nmax_flow_buffer = 4096", func(b *unturned.Bounds) { b.MaxFlowBuffer = 4096 }, ""},
		{"[limits]\nmax_flow_buffer = \"64KiB\"", func(b *unturned.Bounds) { b.MaxFlowBuffer = 64 << 10 }, ""},
		{"[limits]\nmax_total_buffer = \"1GiB\"", func(b *unturned.Bounds) { b.MaxTotalBuffer = 1 << 30 }, ""},
		{"[limits]\nmax_flows = 3", func(b *unturned.Bounds) { b.MaxFlows = 3 }, ""},
		{"[limits]\nmax_message = \"1KiB\"", func(b *unturned.Bounds) { b.MaxMessage = 1024 }, ""},
		{"[limits]\nmax_table_entries = 1", func(b *unturned.Bounds) { b.MaxTableEntries = 1 }, ""},
		{"[limits]\nmax_unresolved = 1", func(b *unturned.Bounds) { b.MaxUnresolved = 1 }, ""},
		{"game = \"3.24\"\n[limits]\nmax_flows = 2\nmax_unresolved = 9", func(b *unturned.Bounds) { b.MaxFlows, b.MaxUnresolved = 2, 9 }, ""},
		{"[limits]\nmax_flows = 0", nil, "limits.max_flows: 0 is below 1"},
		{"[limits]\nmax_flows = -5", nil, "limits.max_flows: -5 is below 1"},
		{"[limits]\nmax_message = 65536", nil, "limits.max_message: 65536 is above 65535"},
		{"[limits]\nmax_message = \"64KiB\"", nil, "limits.max_message: 65536 is above 65535"},
		{"[limits]\nmax_flow_buffer = 0", nil, "limits.max_flow_buffer: 0 is below 1"},
		{"[limits]\nmax_flow_buffer = -4096", nil, "limits.max_flow_buffer: -4096 is below 1"},
		{"[limits]\nmax_total_buffer = \"2048GiB\"", nil, `max_total_buffer`},
		{"[limits]\nmax_total_buffer = 1099511627777", nil, "max_total_buffer"},
		{"[limits]\nmax_flows = 1099511627777", nil, "limits.max_flows: 1099511627777 is above 1099511627776"},
		{"[limits]\nmax_flow_buffer = \"big\"", nil, `max_flow_buffer`},
		{"[limits]\nmax_flow_buffer = true", nil, "max_flow_buffer"},
		{"[limits]\nmax_table_entries = 0", nil, "limits.max_table_entries: 0 is below 1"},
		{"[limits]\nmax_unresolved = 0", nil, "limits.max_unresolved: 0 is below 1"},
		{"[limits]\nmax_flows = \"3\"", nil, "max_flows"},
		{"[limits]\nmax_buffers = 1", nil, "unknown key limits.max_buffers"},
		{"limits = 3", nil, "limits"},
		{"max_flows = 3", nil, "unknown key max_flows"},
	}
	for _, tt := range tests {
		p, err := unturned.ParseProfile("l.toml", []byte(tt.in))
		if tt.want == nil {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "profile l.toml") {
				t.Errorf("ParseProfile(%q) = %v; want an error naming the file and %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseProfile(%q) = %v; want nil", tt.in, err)
			continue
		}
		want := unturned.DefaultBounds()
		tt.want(&want)
		if p.Bounds != want {
			t.Errorf("ParseProfile(%q).Bounds = %+v; want %+v", tt.in, p.Bounds, want)
		}
	}
}

// TestProfileTOMLLimits: TOML writes a [limits] table with every key,
// and a profile with changed bounds reads back equal.
func TestProfileTOMLLimits(t *testing.T) {
	p := unturned.Default()
	p.Bounds = unturned.Bounds{MaxFlowBuffer: 1900, MaxTotalBuffer: 3800, MaxFlows: 2, MaxMessage: 16, MaxTableEntries: 1, MaxUnresolved: 5, MaxFindings: 7,
		MaxFragments: 8, MaxFragmentBytes: 9, MaxFragmentDatagrams: 10, MaxInterfaces: 11, MaxNotes: 12, MaxDecompressed: 13, MaxRPCBuffer: 14, MaxInflate: 15}
	out := p.TOML()
	for _, k := range []string{"[limits]", "max_flow_buffer = 1900", "max_total_buffer = 3800", "max_flows = 2", "max_message = 16", "max_table_entries = 1", "max_unresolved = 5",
		"max_findings = 7", "max_fragments = 8", "max_fragment_bytes = 9", "max_fragment_datagrams = 10", "max_interfaces = 11", "max_notes = 12", "max_decompressed = 13",
		"max_rpc_buffer = 14", "max_inflate = 15"} {
		if !strings.Contains(out, k+"\n") {
			t.Errorf("TOML() lacks %q:\n%s", k, out)
		}
	}
	back, err := unturned.ParseProfile("default", []byte(out))
	if err != nil {
		t.Fatalf("ParseProfile(TOML()) = %v\n%s", err, out)
	}
	if *back != *p {
		t.Errorf("ParseProfile(TOML()) = %+v; want %+v", back.Bounds, p.Bounds)
	}
}

func TestBoundsSetGet(t *testing.T) {
	keys := []string{"max_flow_buffer", "max_total_buffer", "max_flows", "max_message", "max_table_entries", "max_unresolved"}
	for i, k := range keys {
		b := unturned.DefaultBounds()
		if err := b.Set(k, 10+i); err != nil {
			t.Errorf("Set(%s, %d) = %v", k, 10+i, err)
		}
		if v, ok := b.Get(k); !ok || v != 10+i {
			t.Errorf("Get(%s) after Set = %d, %v; want %d", k, v, ok, 10+i)
		}
		// Set changes only its own bound.
		for j, o := range keys {
			if j == i {
				continue
			}
			got, _ := b.Get(o)
			want, _ := unturned.DefaultBounds().Get(o)
			if got != want {
				t.Errorf("Set(%s) changed %s to %d; want %d", k, o, got, want)
			}
		}
		if err := b.Set(k, 0); err == nil || !strings.Contains(err.Error(), "limits."+k+": 0") {
			t.Errorf("Set(%s, 0) = %v; want an error naming the key and 0", k, err)
		}
	}
	b := unturned.DefaultBounds()
	if err := b.Set("max_bogus", 1); err == nil || !strings.Contains(err.Error(), "max_bogus") {
		t.Errorf("Set(max_bogus) = %v; want an unknown-key error", err)
	}
	if _, ok := b.Get("max_bogus"); ok {
		t.Errorf("Get(max_bogus) ok; want not a key")
	}
	if b != unturned.DefaultBounds() {
		t.Errorf("failed Sets changed the bounds: %+v", b)
	}
}

// TestProfileLimitsBind: bounds read from a profile's [limits] reach the
// decoder through Bounds.Limits and bind: the message above max_message
// is a framing finding, the references beyond max_unresolved and the
// entries beyond max_table_entries are dropped with findings, and what
// came before each is kept.
func TestProfileLimitsBind(t *testing.T) {
	p, err := unturned.ParseProfile("l.toml", []byte("[limits]\nmax_message = 2000\nmax_table_entries = 2\nmax_unresolved = 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := &cvFeeder{c: NewIndexLimits(p, p.Bounds.Limits()), conn: cvConn}
	f.handshake(true, true, 4)
	for i := 0; i < 5; i++ {
		f.send(dissect.S2C, cvS2C(false, uint32(i+8), 4, "", 0))
	}
	for i := 0; i < 3; i++ {
		f.send(dissect.S2C, cvS2C(true, uint32(i), 4, cvChat, 1))
	}
	f.send(dissect.C2S, cvEnc.Ping(dissect.C2S, true, false))
	f.send(dissect.C2S, cvBySID(0, 4, make([]byte, 3000)...))
	f.c.Finish()
	tb := f.c.Tables(cvConn, 0)
	if len(tb.Unresolved) != 3 || len(tb.Server) != 2 {
		t.Errorf("Tables: %d unresolved, %d server entries; want 3 and 2", len(tb.Unresolved), len(tb.Server))
	}
	if m := f.c.Message(6); !cvHas(m.Findings, dissect.Warn, dissect.Protocol, "unresolved queue holds 3 references") {
		t.Errorf("Message(6) findings = %+v; want the max_unresolved warning", m.Findings)
	}
	if m := f.c.Message(10); m.Name() != "InvokeMessageListener" || !cvHas(m.Findings, dissect.Note, dissect.Protocol, "listener table holds 2 entries; entry dropped") {
		t.Errorf("Message(10) = %s %+v; want an invoke with the max_table_entries finding", m.Name(), m.Findings)
	}
	if m := f.c.Message(11); m == nil || m.Name() != "PingRequest" {
		t.Errorf("Message(11) = %+v; want the ping before the big message", m)
	}
	if f.c.Len() != 11 {
		t.Errorf("Len() = %d; want 11 (the message above max_message dropped)", f.c.Len())
	}
	ci := f.c.Connections()[0]
	if !cvHas(ci.Findings, dissect.Error, dissect.Malformed, "above the limit 2000") {
		t.Errorf("connection findings %+v; want the max_message framing error", ci.Findings)
	}
}

func ExampleParseSize() {
	for _, s := range []string{"4096", "64KiB", "1MiB", "1MB"} {
		n, err := unturned.ParseSize(s)
		fmt.Println(n, err)
	}
	// Output:
	// 4096 <nil>
	// 65536 <nil>
	// 1048576 <nil>
	// 0 size "1MB": want a byte count up to 1TiB like 4096, 64KiB or 1MiB
}

func ExampleBounds() {
	p, err := unturned.ParseProfile("server.toml", []byte("[limits]\nmax_flows = 500\nmax_flow_buffer = \"256KiB\"\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Bounds.MaxFlows, p.Bounds.MaxFlowBuffer, p.Bounds.MaxMessage)
	_, err = unturned.ParseProfile("bad.toml", []byte("[limits]\nmax_message = 70000\n"))
	fmt.Println(err)
	// Output:
	// 500 262144 65535
	// profile bad.toml: limits.max_message: 70000 is above 65535
}

// FuzzParseSize: ParseSize never panics, accepts only 0..1TiB, and an
// accepted size reads back the same as plain digits.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "4096", "64KiB", "1 MiB", "1024GiB", "1025GiB", "1MB", "-1", "99999999999999999999GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := unturned.ParseSize(s)
		if err != nil {
			if n != 0 {
				t.Fatalf("ParseSize(%q) = %d, %v; want 0 with the error", s, n, err)
			}
			return
		}
		if n < 0 || n > 1<<40 {
			t.Fatalf("ParseSize(%q) = %d; want 0..1TiB", s, n)
		}
		if back, err := unturned.ParseSize(fmt.Sprint(n)); err != nil || back != n {
			t.Fatalf("ParseSize(%q) = %d, but ParseSize(%d) = %d, %v", s, n, n, back, err)
		}
	})
}

func BenchmarkParseProfileLimits(b *testing.B) {
	data := []byte("game = \"3.26\"\n[limits]\nmax_flow_buffer = \"256KiB\"\nmax_total_buffer = \"16MiB\"\nmax_flows = 500\nmax_message = 4096\nmax_table_entries = 1024\nmax_unresolved = 256\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := unturned.ParseProfile("bench.toml", data); err != nil {
			b.Fatal(err)
		}
	}
}
