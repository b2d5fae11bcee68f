package session

import (
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/jsontime"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/unturned"
)

// TestRecordCacheSpellsAsUncached holds recordCache's keys to what
// appendJSONTime writes without it, across the times whose time_ns it
// makes from the time text and those it leaves to jsontime.
func TestRecordCacheSpellsAsUncached(t *testing.T) {
	// maxNSSec is the last second whose nanoseconds since 1970 an int64
	// holds: time_ns is spelled from the time text up to it.
	const maxNSSec = (1<<63-1)/1_000_000_000 - 1
	var rc recordCache
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	times := []time.Time{{}, time.Unix(0, 0), time.Unix(0, 999_999_999), time.Unix(1, 0), time.Unix(1, 5), time.Unix(-1, 7),
		time.Unix(maxNSSec, 999_999_999), time.Unix(maxNSSec+1, 0), time.Unix(maxNSSec+1, 854_775_807), time.Unix(maxNSSec+2, 0),
		time.Date(9999, 12, 31, 23, 59, 59, 1, time.UTC), time.Date(12000, 1, 1, 0, 0, 0, 3, time.UTC),
		base, base.Add(1), base.Add(time.Second - 1), base.Add(time.Second), base, base.In(time.FixedZone("e", 3600))}
	for _, tm := range times {
		want := append([]byte(`,"time":"`), jsontime.Append(nil, tm)...)
		want = jsontime.AppendNS(append(want, '"'), tm)
		if got := rc.appendTime([]byte("x"), tm); string(got) != "x"+string(want) {
			t.Errorf("appendTime(%v) = %s; want x%s", tm, got, want)
		}
	}
	for _, d := range []dissect.Dir{dissect.C2S, dissect.S2C, dissect.C2S, 9} {
		want := termsafe.AppendJSONString([]byte(`,"dir":`), d.String())
		if got := rc.appendDir(nil, d); string(got) != string(want) {
			t.Errorf("appendDir(%d) = %s; want %s", d, got, want)
		}
	}
	for _, k := range []unturned.Kind{unturned.KindInvokeMessageListener, 0, 255, unturned.KindInvokeMessageListener} {
		want := termsafe.AppendJSONString([]byte(`},"msg":`), k.String())
		if got := rc.appendKind(nil, k); string(got) != string(want) {
			t.Errorf("appendKind(%d) = %s; want %s", k, got, want)
		}
	}
	// Equal names at other addresses, and names that need escaping.
	names := []string{"enum", strings.Clone("enum"), "a\"b", "\x1b[31m", "enum", "é", "", strings.Repeat("n", 300)}
	for range 3 {
		for _, n := range names {
			want := termsafe.AppendJSONString([]byte(`{"name":`), n)
			want = append(want, `,"bit":`...)
			if got := rc.appendName(nil, n); string(got) != string(want) {
				t.Errorf("appendName(%q) = %s; want %s", n, got, want)
			}
		}
	}
}

// TestRecordCacheListenerType holds listenerType to termsafe's rule for
// the types a summary shows, whatever the address they come at.
func TestRecordCacheListenerType(t *testing.T) {
	var rc recordCache
	types := []string{"Load.Listener7, Load", strings.Clone("Load.Listener7, Load"), "a\"b", "a\\b", "\x1b[2J", "é", "", "\u202e", "a\xffb"}
	for range 3 {
		for _, typ := range types {
			esc, plain := rc.listenerType(typ)
			want := termsafe.Escape(typ)
			if esc != want || plain != termsafe.JSONPlain([]byte(want)) {
				t.Errorf("listenerType(%q) = %q, %v; want %q, %v", typ, esc, plain, want, !plain)
			}
			wantJSON := termsafe.AppendHexIfInvalid(termsafe.AppendJSONString(nil, typ), "type_hex", typ)
			if got := rc.typeOf(typ).json; string(got) != string(wantJSON) {
				t.Errorf("typeOf(%q).json = %s; want %s", typ, got, wantJSON)
			}
		}
	}
}

// TestFieldsMemoKey holds fieldsOf to the four its text is a function
// of: the same bytes in another state, direction or profile, or other
// bytes, are not what it kept, and a message too long is not kept.
func TestFieldsMemoKey(t *testing.T) {
	var rc recordCache
	p, q := unturned.Default(), unturned.Default()
	base := Message{Dir: dissect.C2S, Data: []byte{4}, state: unturned.State{Widened: true, IDBits: 3}}
	fill := func(m Message, p *unturned.Profile) {
		e := rc.fieldsOf(p, &m)
		if e == nil || e.ok {
			t.Fatalf("fieldsOf(%+v) = %+v; want an entry to fill", m, e)
		}
		e.text, e.ok = []byte("x"), true
	}
	fill(base, p)
	if e := rc.fieldsOf(p, &base); e == nil || !e.ok {
		t.Fatalf("fieldsOf again = %+v; want the entry filled", e)
	}
	other := []Message{base, base, base, base, base}
	other[0].Dir = dissect.S2C
	other[1].Data = []byte{4, 0}
	other[2].Data = []byte{5}
	other[3].state.IDBits = 4
	other[4].state.IDKnown = true
	for _, m := range other {
		if e := rc.fieldsOf(p, &m); e == nil || e.ok {
			t.Errorf("fieldsOf(%+v) = %+v; want an entry to fill", m, e)
		}
		if e := rc.fieldsOf(p, &base); !e.ok {
			e.text, e.ok = []byte("x"), true // the other took its slot
		}
	}
	if e := rc.fieldsOf(q, &base); e == nil || e.ok {
		t.Errorf("fieldsOf with another profile = %+v; want an entry to fill", e)
	}
	// Bytes that differ only past the first eight.
	twelve := base
	twelve.Data = []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	fill(twelve, p)
	twelve.Data = append([]byte(nil), twelve.Data...)
	twelve.Data[11] = 13
	if e := rc.fieldsOf(p, &twelve); e == nil || e.ok {
		t.Errorf("fieldsOf(%v) = %+v; want an entry to fill", twelve.Data, e)
	}
	long := base
	long.Data = make([]byte, memoMax+1)
	if e := rc.fieldsOf(p, &long); e != nil {
		t.Errorf("fieldsOf(%d bytes) = %+v; want nil", len(long.Data), e)
	}
}
