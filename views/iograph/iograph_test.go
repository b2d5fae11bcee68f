package iograph

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/session"
)

func TestInterval(t *testing.T) {
	for _, tt := range []struct {
		span time.Duration
		cols int
		want time.Duration
	}{
		{500 * time.Millisecond, 71, 10 * time.Millisecond},
		{500 * time.Millisecond, 151, 5 * time.Millisecond},
		{90 * time.Second, 70, 2 * time.Second},
		{0, 10, time.Millisecond},
	} {
		if got := Interval(tt.span, tt.cols); got != tt.want {
			t.Errorf("Interval(%v, %d) = %v; want %v", tt.span, tt.cols, got, tt.want)
		}
	}
}

func TestParseY(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Y
		err  bool
	}{
		{"messages", Y{"messages", Sum}, false},
		{"Bytes", Y{"bytes", Sum}, false},
		{"payload.speed", Y{"payload.speed", Mean}, false},
		{"max(latency)", Y{"latency", Max}, false},
		{"SUM(payload.speed)", Y{"payload.speed", Sum}, false},
		{"min( len )", Y{"len", Min}, false},
		{"", Y{}, true},
		{"avg(len)", Y{}, true},
		{"sum(bytes)", Y{}, true},
		{"sum()", Y{}, true},
	} {
		got, err := ParseY(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseY(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	if got, want := ParseSpec("  bytes  msg==Ping && dir==c2s "), (Spec{Y: "bytes", Filter: "msg==Ping && dir==c2s"}); got != want {
		t.Errorf("ParseSpec = %+v; want %+v", got, want)
	}
}

// msgs are 10 messages 100 ms apart from t0; message i has i+1 bytes and
// a latency of i ms on the odd ones.
func msgs(t0 time.Time) []*session.Message {
	var out []*session.Message
	for i := 0; i < 10; i++ {
		m := &session.Message{N: i + 1, Time: t0.Add(time.Duration(i) * 100 * time.Millisecond), Data: make([]byte, i+1)}
		if i%2 == 1 {
			m.HasLatency, m.Latency, m.Pair = true, time.Duration(i)*time.Millisecond, i
		}
		out = append(out, m)
	}
	return out
}

func odd(m *session.Message) bool { return m.N%2 == 0 }

// TestBinAndCSV works the figures out by hand: 10 messages at 0, 0.1, …,
// 0.9 s into 250 ms intervals aligned to the epoch (the first starts at
// t0 = 10:00:00.000, so 0–0.2, 0.3–0.4, 0.5–0.7, 0.8–0.9 s).
func TestBinAndCSV(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	series, err := Compile([]Spec{{Y: "messages"}, {Y: "bytes", Filter: "odd"}, {Y: "latency"}, {Y: "max(latency)"}},
		func(string) (func(*session.Message) bool, error) { return odd, nil })
	if err != nil {
		t.Fatal(err)
	}
	d := NewData(series)
	for _, m := range msgs(t0) {
		d.Add(m, len(m.Data)+2)
	}
	b := d.Bin(250*time.Millisecond, 0)
	var out bytes.Buffer
	if err := b.WriteCSV(&out); err != nil {
		t.Fatal(err)
	}
	// Messages per interval: 3, 2, 3, 2. Bytes of messages 2,4,6,8,10
	// (len i+1, +2): 2 → 4; 4 → 6; 6,8 → 8+10; 10 → 12; interval 0 holds
	// messages 1-3 (the odd-numbered filter passes 2: 4 bytes).
	// Latency (ms, on messages 2,4,6,8,10 = i 1,3,5,7,9): interval 0:
	// 1 ms; 1: 3 ms; 2: 5, 7 → mean 6, max 7; 3: 9.
	want := "t,messages,bytes odd,latency,max(latency)\n" +
		"2026-05-01T10:00:00Z,3,4,1000000,1000000\n" +
		"2026-05-01T10:00:00.25Z,2,6,3000000,3000000\n" +
		"2026-05-01T10:00:00.5Z,3,18,6000000,7000000\n" +
		"2026-05-01T10:00:00.75Z,2,12,9000000,9000000\n"
	if out.String() != want {
		t.Errorf("CSV =\n%s\nwant\n%s", out.String(), want)
	}
}

// TestEmptyIntervals: a sum is 0 where nothing came, a mean has no value
// (an empty CSV cell, no bar).
func TestEmptyIntervals(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	series, err := Compile([]Spec{{Y: "messages"}, {Y: "latency"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := NewData(series)
	d.Add(&session.Message{N: 1, Time: t0}, 2)
	d.Add(&session.Message{N: 2, Time: t0.Add(2 * time.Second), HasLatency: true, Latency: 5, Pair: 1}, 2)
	b := d.Bin(time.Second, 0)
	var out bytes.Buffer
	if err := b.WriteCSV(&out); err != nil {
		t.Fatal(err)
	}
	want := "t,messages,latency\n2026-05-01T10:00:00Z,1,\n2026-05-01T10:00:01Z,0,\n2026-05-01T10:00:02Z,1,5\n"
	if out.String() != want {
		t.Errorf("CSV =\n%s\nwant\n%s", out.String(), want)
	}
	if v, ok := b.Value(1, 1); ok || !math.IsNaN(v) && v != 0 {
		t.Errorf("mean over an empty interval = %v, %v; want none", v, ok)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tt := range []struct {
		spec Spec
		want string
	}{
		{Spec{Y: "nosuch"}, `unknown field "nosuch"`},
		{Spec{Y: "msg"}, "not a number"},
		{Spec{Y: "payload_message"}, "text, not a number"},
		{Spec{Y: "bytes", Filter: "x"}, "no filter language"},
	} {
		_, err := Compile([]Spec{tt.spec}, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%+v) = %v; want an error with %q", tt.spec, err, tt.want)
		}
	}
	if _, err := Compile(make([]Spec, MaxSeries+1), nil); err == nil {
		t.Errorf("Compile(%d series) took them", MaxSeries+1)
	}
}

func TestLinesFitAndColour(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	series, err := Compile([]Spec{{Y: "messages"}, {Y: "bytes"}, {Y: "len"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := NewData(series)
	for i := 0; i < 100; i++ {
		d.Add(&session.Message{N: i + 1, Time: t0.Add(time.Duration(i) * 100 * time.Millisecond), Data: make([]byte, i)}, i+2)
	}
	for _, sz := range [][2]int{{80, 21}, {160, 45}} {
		lines := Lines(d, sz[0], sz[1])
		if len(lines) > sz[1] {
			t.Errorf("%d lines for %d rows", len(lines), sz[1])
		}
		colours := map[uint8]bool{}
		for _, l := range lines {
			if n := len([]rune(l.Text)); n > sz[0] {
				t.Errorf("line of %d runes: %q", n, l.Text)
			}
			colours[l.Colour] = true
		}
		if !colours[1] || !colours[2] || !colours[3] {
			t.Errorf("colours used %v; want 1, 2, 3 (one per series)", colours)
		}
		if !strings.Contains(lines[0].Text, "1 ■ messages per ") || !strings.Contains(lines[0].Text, "(100 in all") {
			t.Errorf("legend %q", lines[0].Text)
		}
	}
}
