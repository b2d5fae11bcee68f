package session

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// update rewrites the package's golden files (go test ./session -run Golden
// -update). It is the one -update flag of package session's tests.
var update = flag.Bool("update", false, "rewrite golden files in testdata")

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedStrings(s ...string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func decodeObject(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("json.Unmarshal(%s) = %v", b, err)
	}
	return m
}

// TestMessageJSONKicked decodes wire.md 3's computed example Kicked("bye")
// = 8c 00 00 62 79 65 and checks the outputs.md record key by key.
func TestMessageJSONKicked(t *testing.T) {
	data, _ := hex.DecodeString("8c0000627965")
	m := DecodeOne(nil, dissect.S2C, false, 0, data)
	b, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	j := decodeObject(t, b)
	if got, want := keys(j), sortedStrings("n", "frame", "time", "conn", "dir", "proto", "len", "hex", "enum", "msg", "summary", "fields", "expert"); !reflect.DeepEqual(got, want) {
		t.Errorf("Kicked record keys = %v; want %v", got, want)
	}
	if j["dir"] != "s2c" || j["len"] != 6.0 || j["msg"] != "Kicked" {
		t.Errorf("dir, len, msg = %v, %v, %v; want s2c, 6, Kicked", j["dir"], j["len"], j["msg"])
	}
	// Issue 16 defect 8: the bytes themselves, as `bits` takes them back.
	if got, want := j["hex"], "8c0000627965"; got != want {
		t.Errorf("hex = %v; want %q (outputs.md: the message bytes, lowercase, no spaces)", got, want)
	}
	if got, want := j["enum"], map[string]any{"value": 12.0, "bits": 5.0, "widened": false}; !reflect.DeepEqual(got, want) {
		t.Errorf("enum = %v; want %v", got, want)
	}
	if got := j["expert"]; !reflect.DeepEqual(got, []any{}) {
		t.Errorf("expert = %v; want [] for a well-formed message", got)
	}
	fields, _ := j["fields"].([]any)
	if len(fields) < 2 {
		t.Fatalf("fields = %v; want the enum and the reason", j["fields"])
	}
	first := fields[0].(map[string]any)
	if got, want := keys(first), sortedStrings("name", "bit", "bits", "value"); !reflect.DeepEqual(got, want) {
		t.Errorf("field keys = %v; want %v", got, want)
	}
	if first["bit"] != 0.0 || first["bits"] != 5.0 || first["value"] != 12.0 {
		t.Errorf("first field = %v; want the enum at bit 0, 5 bits, value 12", first)
	}
	found := false
	for _, f := range fields {
		if f.(map[string]any)["value"] == "bye" {
			found = true
		}
	}
	if !found {
		t.Errorf("fields = %v; want the reason \"bye\" kept exactly", fields)
	}
}

// TestMessageJSONListener checks the USMN keys: listener with nulls for
// what is not known, payload_bits, mode, and the time format.
func TestMessageJSONListener(t *testing.T) {
	f := newCVFeeder()
	f.handshake(true, true, 2)
	f.send(dissect.S2C, cvS2C(false, 1, 2, "", 0, 0xAB))                                               // 3: unknown srv#1
	f.send(dissect.S2C, cvNegotiate(dissect.S2C, unturned.TellClientMissingListener, 77, 0, 2, "", 0)) // 4
	f.send(dissect.S2C, cvS2C(true, 1, 2, "<Tab>\t\"q\" & é, Sample", 3))                              // 5
	b, _ := f.c.Message(3).MarshalJSON()
	j := decodeObject(t, b)
	if got, want := keys(j), sortedStrings("n", "frame", "time", "time_ns", "conn", "dir", "proto", "len", "hex", "enum", "msg", "summary", "fields", "listener", "payload_bits", "expert"); !reflect.DeepEqual(got, want) {
		t.Errorf("invoke record keys = %v; want %v", got, want)
	}
	if got, want := j["listener"], map[string]any{"type": nil, "version": nil, "client_id": nil, "server_id": 1.0, "resolved": false}; !reflect.DeepEqual(got, want) {
		t.Errorf("listener = %v; want %v", got, want)
	}
	// 6+1+2 = 9 header bits, 8 payload bits → 3 bytes: 15 payload bits.
	if j["payload_bits"] != 15.0 {
		t.Errorf("payload_bits = %v; want 15", j["payload_bits"])
	}
	if j["time"] != "2026-01-02T03:04:05.003000006Z" || j["conn"] != "10.0.0.2:50412-10.0.0.1:27016" || j["n"] != 3.0 || j["frame"] != 3.0 {
		t.Errorf("n, frame, time, conn = %v, %v, %v, %v", j["n"], j["frame"], j["time"], j["conn"])
	}
	b, _ = f.c.Message(4).MarshalJSON()
	j = decodeObject(t, b)
	if j["mode"] != "TellClientMissingListener" || j["msg"] != "NegotiateListenerDetails" {
		t.Errorf("mode, msg = %v, %v", j["mode"], j["msg"])
	}
	if _, ok := j["payload_bits"]; ok {
		t.Errorf("negotiate record has payload_bits: %s", b)
	}
	// A wire string is kept exactly, not escaped for a terminal.
	b, _ = f.c.Message(5).MarshalJSON()
	j = decodeObject(t, b)
	l := j["listener"].(map[string]any)
	if l["type"] != "<Tab>\t\"q\" & é, Sample" || l["version"] != 3.0 || l["resolved"] != true {
		t.Errorf("listener = %v; want the exact type name, version 3, resolved", l)
	}
	if bytes.Contains(b, []byte(`\u003c`)) {
		t.Errorf("JSON HTML-escapes wire strings: %s", b)
	}
	var buf bytes.Buffer
	if err := f.c.Message(5).WriteJSON(&buf); err != nil || !bytes.HasSuffix(buf.Bytes(), []byte("}\n")) || bytes.Count(buf.Bytes(), []byte("\n")) != 1 {
		t.Errorf("WriteJSON = %q, %v; want one NDJSON line", buf.String(), err)
	}
}

// TestTablesJSONKeys checks every key of the tables document against
// outputs.md, and that empty lists are [] not null.
func TestTablesJSONKeys(t *testing.T) {
	f := newCVFeeder()
	f.handshake(true, true, 2)
	f.send(dissect.C2S, cvNegotiate(dissect.C2S, unturned.RequestServerListenerID, 4001, 0, 2, cvChat, 1))
	f.send(dissect.S2C, cvNegotiate(dissect.S2C, unturned.TellClientListenerID, 4001, 0, 2, cvChat, 1))
	f.send(dissect.S2C, cvS2C(false, 3, 2, "", 0))
	f.send(dissect.C2S, cvByCID(true, 4002, cvMap, 1))
	empty := dissect.Conn{Client: cvConn.Client, Server: cvConn.Server}
	empty.Client = netipPort(empty.Client, 50413)
	f.c.Open(empty, RuleUnknown, cvT0, 9)
	f.c.Finish()
	b, err := f.c.TablesJSON()
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeObject(t, b)
	if got, want := keys(doc), sortedStrings("profile", "connections"); !reflect.DeepEqual(got, want) {
		t.Errorf("document keys = %v; want %v", got, want)
	}
	if doc["profile"] != "default" {
		t.Errorf("profile = %v; want default", doc["profile"])
	}
	conns := doc["connections"].([]any)
	if len(conns) != 2 {
		t.Fatalf("%d connections; want 2", len(conns))
	}
	c0 := conns[0].(map[string]any)
	if got, want := keys(c0), sortedStrings("conn", "client", "server", "proto", "usmn", "messages", "server_listeners", "client_listeners", "missing_on_server", "missing_on_client", "unresolved", "warnings", "ping", "findings"); !reflect.DeepEqual(got, want) {
		t.Errorf("connection keys = %v; want %v", got, want)
	}
	if got, want := c0["usmn"], map[string]any{"client": true, "server": true, "widened": true}; !reflect.DeepEqual(got, want) {
		t.Errorf("usmn = %v; want %v", got, want)
	}
	if c0["messages"] != 6.0 || c0["client"] != "10.0.0.2:50412" || c0["server"] != "10.0.0.1:27016" {
		t.Errorf("messages, client, server = %v, %v, %v", c0["messages"], c0["client"], c0["server"])
	}
	srv := c0["server_listeners"].([]any)[0].(map[string]any)
	if got, want := srv, map[string]any{"id": 0.0, "type": cvChat, "version": 1.0, "id_bits": 2.0, "learned": "negotiate", "first": 4.0, "invokes": 0.0, "payload_bits": 0.0}; !reflect.DeepEqual(got, want) {
		t.Errorf("server_listeners[0] = %v; want %v", got, want)
	}
	cl := c0["client_listeners"].([]any)
	if got, want := cl[0].(map[string]any), map[string]any{"id": 4001.0, "type": cvChat, "version": 1.0, "server_id": 0.0, "learned": "negotiate", "first": 3.0, "invokes": 0.0, "payload_bits": 0.0}; !reflect.DeepEqual(got, want) {
		t.Errorf("client_listeners[0] = %v; want %v", got, want)
	}
	if got := cl[1].(map[string]any)["server_id"]; got != nil {
		t.Errorf("unmapped client entry server_id = %v; want null", got)
	}
	if got, want := c0["unresolved"], []any{map[string]any{"n": 5.0, "dir": "s2c", "id": 3.0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("unresolved = %v; want %v", got, want)
	}
	// As of message 3 only the RequestServerListenerId entry exists.
	b, err = f.c.TablesJSONAt(3)
	if err != nil {
		t.Fatal(err)
	}
	at := decodeObject(t, b)["connections"].([]any)[0].(map[string]any)
	if at["messages"] != 3.0 {
		t.Errorf("TablesJSONAt(3) messages = %v; want 3", at["messages"])
	}
	if s, c := at["server_listeners"].([]any), at["client_listeners"].([]any); len(s) != 0 || len(c) != 1 {
		t.Errorf("TablesJSONAt(3): %d server, %d client listeners; want 0 and 1", len(s), len(c))
	}
	c1 := conns[1].(map[string]any)
	for _, k := range []string{"server_listeners", "client_listeners", "missing_on_server", "missing_on_client", "unresolved", "warnings"} {
		if got := c1[k]; !reflect.DeepEqual(got, []any{}) {
			t.Errorf("empty connection %s = %v; want []", k, got)
		}
	}
}

// TestGoldenConversation dumps the conversation of TestConversation as
// outputs.md NDJSON (with fields) followed by the tables document, and
// compares it with testdata/capture/conversation.golden (-update rewrites
// it; a mismatch writes conversation.golden.got to diff).
func TestGoldenConversation(t *testing.T) {
	f := newCVFeeder()
	f.handshake(true, true, 2)
	f.send(dissect.C2S, cvNegotiate(dissect.C2S, unturned.RequestServerListenerID, 4001, 0, 2, cvChat, 1))
	f.send(dissect.S2C, cvS2C(false, 1, 2, "", 0, 0xAB))
	f.send(dissect.S2C, cvNegotiate(dissect.S2C, unturned.TellClientListenerID, 4001, 0, 2, cvChat, 1))
	f.send(dissect.S2C, cvS2C(true, 1, 3, cvMap, 2, 1, 2))
	f.send(dissect.C2S, cvBySID(0, 3, 0xEE))
	f.send(dissect.C2S, cvByCID(true, 4002, cvOther, 5, 0x22))
	f.send(dissect.S2C, cvS2C(true, 2, 3, cvOther, 6))
	f.send(dissect.C2S, cvNegotiate(dissect.C2S, unturned.TellServerMissingListener, 0, 5, 3, "", 0))
	f.c.Finish()
	var buf bytes.Buffer
	for n := 1; n <= f.c.Len(); n++ {
		if err := f.c.Detail(n).WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.c.WriteTablesJSON(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "capture", "conversation.golden"), buf.Bytes())
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		_ = os.WriteFile(path+".got", got, 0o644)
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\ngot  %s\nwant %s\n(see %s.got)", path, i+1, gl[i], wl[i], path)
			}
		}
		t.Fatalf("%s: got %d lines, want %d (see %s.got)", path, len(gl), len(wl), path)
	}
}

func netipPort(ap netip.AddrPort, port uint16) netip.AddrPort {
	return netip.AddrPortFrom(ap.Addr(), port)
}

// TestJSONOrigin checks outputs.md "Several captures": with SetOrigin,
// every record has "time_ns", then "host" and "capture" (escaped as any
// string from outside), from Detail, AppendJSONRange and a JSONBatch
// alike; without it, "time_ns" alone.
func TestJSONOrigin(t *testing.T) {
	f := newCVFeeder()
	f.c.SetOrigin("eu\x1b1", "eu1.pcapng")
	f.handshake(true, true, 2)
	var b JSONBatch
	f.c.AddJSON(&b, 2, nil)
	ns := cvT0.Add(2 * time.Millisecond).UnixNano()
	want := `","time_ns":` + strconv.FormatInt(ns, 10) + `,"host":"eu\u001b1","capture":"eu1.pcapng","conn":`
	for what, got := range map[string][]byte{
		"Detail":          must(f.c.Detail(2).MarshalJSON()),
		"AppendJSONRange": f.c.AppendJSONRange(nil, 2, 2, nil),
		"JSONBatch":       b.AppendJSON(nil),
	} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("%s = %s; want it to contain %s", what, got, want)
		}
	}
	g := newCVFeeder()
	g.handshake(true, true, 2)
	got := must(g.c.Detail(2).MarshalJSON())
	if want := `","time_ns":` + strconv.FormatInt(ns, 10) + `,"conn":`; !bytes.Contains(got, []byte(want)) {
		t.Errorf("without SetOrigin: %s; want it to contain %s", got, want)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
