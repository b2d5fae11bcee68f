package filter

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

func filterU32(v uint32) *uint32 { return &v }
func filterStr(s string) *string { return &s }

// filterMessages are the messages the filter tests match against.
var filterMessages = map[string]*session.Message{
	// S→C invoke with a definition of server listener 2.
	"invoke": {
		N: 7, Dir: dissect.S2C, Data: make([]byte, 20),
		Conn:     dissect.Conn{Client: netip.MustParseAddrPort("127.0.0.1:50412"), Server: netip.MustParseAddrPort("127.0.0.1:27016")},
		Enum:     unturned.Enum{Value: 32, Bits: 6, Widened: true},
		Kind:     unturned.KindInvokeMessageListener,
		Listener: &unturned.Listener{Type: filterStr("Sample.ChatListener, Sample"), Version: filterU32(1), ServerID: filterU32(2), Resolved: true},
	},
	// C→S negotiate by client ID 4001, with a warning.
	"negotiate": {
		N: 12, Dir: dissect.C2S, Data: make([]byte, 5),
		Conn:     dissect.Conn{Client: netip.MustParseAddrPort("[::1]:50000"), Server: netip.MustParseAddrPort("[::1]:27016")},
		Enum:     unturned.Enum{Value: 18, Bits: 5, Widened: true},
		Kind:     unturned.KindNegotiateListenerDetails,
		Mode:     unturned.RequestServerListenerID,
		Listener: &unturned.Listener{Type: filterStr("Sample.Other"), Version: filterU32(3), ClientID: filterU32(4001)},
		Findings: []dissect.Finding{{Severity: dissect.Warn, Group: dissect.Protocol, Text: "version mismatch", Bit: -1}},
	},
	// A vanilla Kicked with an error.
	"kicked": {
		N: 3, Dir: dissect.S2C, Data: make([]byte, 6),
		Conn:     dissect.Conn{Client: netip.MustParseAddrPort("10.0.0.2:40000"), Server: netip.MustParseAddrPort("10.0.0.1:27016")},
		Enum:     unturned.Enum{Value: 12, Bits: 5},
		Kind:     unturned.KindKicked,
		Findings: []dissect.Finding{{Severity: dissect.Note, Group: dissect.Undecoded, Bit: -1}, {Severity: dissect.Error, Group: dissect.Malformed, Bit: 40}},
	},
}

func TestFilterMatch(t *testing.T) {
	tests := []struct {
		expr string
		want string // names of matching messages, sorted: invoke, kicked, negotiate
	}{
		{"", "invoke kicked negotiate"},
		{"   ", "invoke kicked negotiate"},
		{"msg==InvokeMessageListener", "invoke"},
		{"msg==invokemessagelistener", "invoke"},
		{"msg!=InvokeMessageListener", "kicked negotiate"},
		{"msg~listener", "invoke negotiate"},
		{"InvokeMessageListener", "invoke"},
		{"Negotiate", "negotiate"},
		{"msg==InvokeMessageListener && listener~Chat", "invoke"},
		{"listener~chat", "invoke"},
		{"listener==\"Sample.ChatListener, Sample\"", "invoke"},
		{"listener=='Sample.ChatListener, Sample'", "invoke"},
		{"listener!=Sample.Other", "invoke kicked"},
		{"dir==c2s", "negotiate"},
		{"dir!=c2s", "invoke kicked"},
		{"s2c", "invoke kicked"},
		{"!s2c", "negotiate"},
		{"id==2", "invoke"},
		{"listener.id==4001", "negotiate"},
		{"id!=2", "kicked negotiate"},
		{"id>=0", "invoke negotiate"},
		{"server_id==2", "invoke"},
		{"client_id==2", ""},
		{"client_id==0xfa1", "negotiate"},
		{"severity>=warn", "kicked negotiate"},
		{"severity==error", "kicked"},
		{"severity<warn", "invoke"},
		{"severity==none", "invoke"},
		{"severity>=note", "kicked negotiate"},
		{"conn~::1", "negotiate"},
		{"conn==127.0.0.1:50412-127.0.0.1:27016", "invoke"},
		{"conn~[::1]:50000", "negotiate"},
		{"n>5", "invoke negotiate"},
		{"n<=7 && n>=7", "invoke"},
		{"len>5", "invoke kicked"},
		{"len==5", "negotiate"},
		{"widened", "invoke negotiate"},
		{"widened==false", "kicked"},
		{"widened!=true", "kicked"},
		{"mode==RequestServerListenerId", "negotiate"},
		{"mode~tell", ""},
		{"group==malformed", "kicked"},
		{"group==undecoded", "kicked"},
		{"group~proto", "negotiate"},
		{"group!=malformed", "invoke negotiate"},
		{"dir==s2c || mode~request", "invoke kicked negotiate"},
		{"dir==s2c && msg==Kicked || id==4001", "kicked negotiate"},
		{"dir==s2c && (msg==Kicked || id==4001)", "kicked"},
		{"!(dir==s2c) && widened", "negotiate"},
		{"!!widened", "invoke negotiate"},
		{"((n==3))", "kicked"},
		// Wireshark's words for the operators (issue 30).
		{"msg eq InvokeMessageListener", "invoke"},
		{"msg EQ Kicked", "kicked"},
		{"msg ne Kicked", "invoke negotiate"},
		{"listener contains Chat", "invoke"},
		{"n gt 5 and n lt 12", "invoke"},
		{"n ge 7 && n le 7", "invoke"},
		{"dir eq s2c or mode contains request", "invoke kicked negotiate"},
		{"not s2c", "negotiate"},
		{"not (dir eq s2c) and widened", "negotiate"},
		{"s2c and not widened", "kicked"},
		{"mode == not", ""}, // a value is a word, whatever it spells
	}
	names := []string{"invoke", "kicked", "negotiate"}
	for _, tt := range tests {
		f, err := Parse(tt.expr)
		if err != nil {
			t.Errorf("Parse(%q) error %v", tt.expr, err)
			continue
		}
		var got []string
		for _, n := range names {
			if f.Match(filterMessages[n]) {
				got = append(got, n)
			}
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Parse(%q) matches %q; want %q", tt.expr, g, tt.want)
		}
	}
}

func TestFilterMatchNil(t *testing.T) {
	f, _ := Parse("n>0")
	if f.Match(nil) {
		t.Errorf("Match(nil) = true; want false")
	}
	var none *Filter
	if !none.Match(filterMessages["kicked"]) || none.String() != "" {
		t.Errorf("nil filter: Match = false or String = %q; want true and \"\"", none.String())
	}
	if f.String() != "n>0" {
		t.Errorf("String() = %q; want %q", f.String(), "n>0")
	}
}

func TestFilterErrors(t *testing.T) {
	tests := []struct {
		expr     string
		pos, len int
		msg      string // substring of Error.Msg
	}{
		{"lisener~Chat", 0, 7, `unknown field "lisener"`},
		{"msg==Kicked && lisener~Chat", 15, 7, `unknown field "lisener"`},
		{"msg=Kicked", 3, 1, `did you mean "=="`},
		{"msg==Kicked & n>1", 12, 1, `did you mean "&&"`},
		{"a | b", 2, 1, `did you mean "||"`},
		{"msg==", 5, 1, "expected a value"},
		{"msg==&&", 5, 2, "expected a value"},
		{"(msg==Kicked", 12, 1, `expected ")"`},
		{"msg==Kicked)", 11, 1, `unexpected ")"`},
		{"msg==Kicked n==1", 12, 1, `unexpected word "n"`},
		{"&& n==1", 0, 2, "expected a field or word"},
		{"n==abc", 3, 3, `"abc" is not a number`},
		{"n~3", 1, 1, `operator "~" does not apply`},
		{"msg<3", 3, 1, `operator "<" does not apply`},
		{"dir==up", 5, 2, `"up" is not one of c2s, s2c`},
		{"severity>=bad", 10, 3, `"bad" is not one of none, note, warn, error`},
		{"widened==maybe", 9, 5, "not true or false"},
		{"group==oops", 7, 4, "not one of"},
		{"listener~\"Chat", 9, 5, "unterminated string"},
		{`listener~"\q"`, 9, 4, "bad escape"},
		{`"msg"==Kicked`, 0, 5, "expected a field name"},
		{"listener", 0, 8, `field "listener" needs an operator`},
		{"!", 1, 1, "expected a field or word, found end of expression"},
		{"()", 1, 1, `expected a field or word, found ")"`},
		// Issue 16: a misspelt message name is an error, not an empty list.
		{"msg==Foo", 5, 3, "not a message name"},
	}
	for _, tt := range tests {
		f, err := Parse(tt.expr)
		var fe *Error
		if !errors.As(err, &fe) {
			t.Errorf("Parse(%q) = %v, %v; want a *Error", tt.expr, f, err)
			continue
		}
		if fe.Pos != tt.pos || fe.Len != tt.len || !strings.Contains(fe.Msg, tt.msg) {
			t.Errorf("Parse(%q) error at %d+%d %q; want at %d+%d containing %q", tt.expr, fe.Pos, fe.Len, fe.Msg, tt.pos, tt.len, tt.msg)
		}
	}
}

func TestFilterErrorCaret(t *testing.T) {
	_, err := Parse("lisener~Chat")
	want := "filter: unknown field \"lisener\" (fields: " + filterFieldList + ") at 1\n  lisener~Chat\n  ^^^^^^^"
	if err == nil || err.Error() != want {
		t.Errorf("Parse(lisener~Chat) error\n%v\nwant\n%s", err, want)
	}
	// A control character in the expression is escaped, and the caret
	// still sits under the bad part of the escaped text.
	_, err = Parse("msg~\x1b[2J && n==x")
	want = "filter: \"x\" is not a number at 16\n  msg~\\x1b[2J && n==x\n                    ^"
	if err == nil || err.Error() != want {
		t.Errorf("Parse(escape) error\n%v\nwant\n%s", err, want)
	}
}

func ExampleParse() {
	f, _ := Parse("msg==InvokeMessageListener && listener~Chat")
	m := &session.Message{Kind: unturned.KindInvokeMessageListener, Listener: &unturned.Listener{Type: filterStr("Sample.ChatListener, Sample")}}
	fmt.Println(f.Match(m))
	_, err := Parse("lisener~Chat")
	fmt.Println(err.(*Error).Pos, err.(*Error).Len)
	// Output:
	// true
	// 0 7
}

func FuzzFilter(f *testing.F) {
	for _, s := range []string{
		"msg==InvokeMessageListener && listener~Chat", "severity>=warn || !(dir==c2s)",
		"id==0x10", "conn~'[::1]'", "listener~\"a\\\"b\"", "((((", "!=", "&|=", "n<=-1",
	} {
		f.Add(s)
	}
	msgs := make([]*session.Message, 0, len(filterMessages))
	for _, m := range filterMessages {
		msgs = append(msgs, m)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		flt, err := Parse(expr)
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("Parse(%q) error %T, want *Error", expr, err)
			}
			if fe.Pos < 0 || fe.Pos > len(expr) || fe.Len < 1 {
				t.Fatalf("Parse(%q) error at %d+%d outside the expression", expr, fe.Pos, fe.Len)
			}
			if s := err.Error(); strings.ContainsAny(s, "\x1b\r\u009b") || !utf8.ValidString(s) {
				t.Fatalf("Parse(%q) error text %q carries raw control characters", expr, s)
			}
			return
		}
		for _, m := range msgs {
			flt.Match(m)
		}
		flt.Match(&session.Message{})
	})
}

func BenchmarkFilterMatch(b *testing.B) {
	b.ReportAllocs()
	f, err := Parse("msg==InvokeMessageListener && listener~Chat || severity>=warn")
	if err != nil {
		b.Fatal(err)
	}
	m := filterMessages["invoke"]
	for b.Loop() {
		f.Match(m)
	}
}

func TestMessageNamesKnown(t *testing.T) {
	for _, expr := range []string{"msg==PingRequest", "msg==invokemessagelistener", "msg~Foo", "msg!=Kicked", "msg==Unknown"} {
		if _, err := Parse(expr); err != nil {
			t.Errorf("Parse(%q) = %v; want no error", expr, err)
		}
	}
}
