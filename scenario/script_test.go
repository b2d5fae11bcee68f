package scenario

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/unturned"
)

// describe decodes the messages of a script and prints one line each with
// what the USMN rules decide: direction, message, IDs, definitions. The
// decoding state follows wire.md 4.2/4.3: widened after the detection
// messages when both markers were seen; the ID bit count from the server's
// marker, then from each S→C definition.
func describe(t *testing.T, s *Scenario, sc Script) []string {
	t.Helper()
	var out []string
	var st [2]unturned.State
	markers := 0
	for _, w := range sc.Writes {
		for i, o := range w.Frames {
			end := len(w.Data)
			if i+1 < len(w.Frames) {
				end = w.Frames[i+1]
			}
			msg := w.Data[o+2 : end]
			var d unturned.Decoded
			unturned.Decode(s.P, w.Dir, st[w.Dir], msg, nil, &d)
			if !d.Clean() {
				t.Errorf("message %d (%s) does not decode cleanly: %+v", len(out)+1, w.Dir, d.Findings)
			}
			line := w.Dir.String() + " " + d.Kind.String()
			switch d.Kind {
			case unturned.KindGetWorkshopFiles, unturned.KindDownloadWorkshopFiles:
				if d.HasMarker {
					markers++
					line += " marker"
					if d.Marker.HasIDBits {
						line += fmt.Sprintf(" idbits=%d", d.Marker.IDBits)
						st[0].IDBits, st[1].IDBits = d.Marker.IDBits, d.Marker.IDBits
					}
				}
				if w.Dir == dissect.S2C && markers == 2 {
					st[0].Widened, st[1].Widened = true, true
				}
			case unturned.KindInvokeMessageListener:
				h := d.Invoke
				switch {
				case w.Dir == dissect.S2C && h.HasDefinition:
					line += fmt.Sprintf(" def idbits=%d id=%d %q v%d", h.IDBits, h.ServerID, h.TypeName(), h.Version)
					st[0].IDBits, st[1].IDBits = h.IDBits, h.IDBits
				case w.Dir == dissect.S2C:
					line += fmt.Sprintf(" id=%d", h.ServerID)
				case h.IsClientID && h.HasDefinition:
					line += fmt.Sprintf(" client=%d def %q v%d", h.ClientID, h.TypeName(), h.Version)
				case h.IsClientID:
					line += fmt.Sprintf(" client=%d", h.ClientID)
				default:
					line += fmt.Sprintf(" server=%d", h.ServerID)
				}
				line += fmt.Sprintf(" payload=%d", d.PayloadBits)
			case unturned.KindNegotiateListenerDetails:
				n := d.Negotiate
				line += " " + n.Mode.String()
				switch n.Mode {
				case unturned.TellClientMissingListener:
					line += fmt.Sprintf(" client=%d", n.ClientID)
				case unturned.TellClientListenerID:
					line += fmt.Sprintf(" client=%d server=%d v%d %q", n.ClientID, n.ServerID, n.Version, n.TypeName())
				case unturned.TellServerMissingListener:
					line += fmt.Sprintf(" server=%d", n.ServerID)
				case unturned.RequestServerListenerID:
					line += fmt.Sprintf(" client=%d v%d %q", n.ClientID, n.Version, n.TypeName())
				}
			}
			if d.Enum.Widened {
				line += " (widened)"
			}
			out = append(out, line)
		}
	}
	return out
}

func readFixture(t *testing.T, name string) *Scenario {
	t.Helper()
	s, err := ReadFile("../fixtures/scenarios/" + name + ".toml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestUSMNRules checks the script of usmn-basic against USMN's rules, line
// by line, as worked out by hand from wire.md 4.1–4.4.
func TestUSMNRules(t *testing.T) {
	s := readFixture(t, "usmn-basic")
	scripts, err := s.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	const chat, inv, mp, stats = `"Sample.ChatListener, Sample"`, `"Sample.InventoryListener, Sample"`, `"Sample.MapListener, Sample"`, `"Sample.StatsListener, Sample"`
	want := []string{
		"c2s GetWorkshopFiles marker",               // vanilla width (wire.md 4.1)
		"s2c DownloadWorkshopFiles marker idbits=2", // four server listeners: CountBits(3) = 2
		"s2c Accepted (widened)",                    // both markers seen: widened from here
		"c2s PingRequest (widened)",                 //
		"s2c PingResponse (widened)",                //
		"s2c InvokeMessageListener def idbits=2 id=0 " + chat + " v1 payload=24 (widened)", // first S→C invoke: definition
		"s2c InvokeMessageListener id=0 payload=15 (widened)",                              // then the ID only; 6+1+2 header bits, the payload's 8 and 7 pad bits (wire.md 4.3)
		"c2s InvokeMessageListener server=0 payload=40 (widened)",                          // client learned ID 0 from the definition
		"c2s InvokeMessageListener client=4002 def " + inv + " v3 payload=8 (widened)",     // client's own ID and definition
		"s2c NegotiateListenerDetails TellClientListenerId client=4002 server=1 v2 " + inv + " (widened)",
		"c2s InvokeMessageListener server=1 payload=8 (widened)", // switched to the server's ID
		"c2s InvokeMessageListener client=4003 def \"Sample.RadioListener, Sample\" v1 payload=8 (widened)",
		"s2c NegotiateListenerDetails TellClientMissingListener client=4003 (widened)",
		"s2c InvokeMessageListener def idbits=2 id=2 " + mp + " v1 payload=16 (widened)",
		"c2s NegotiateListenerDetails TellServerMissingListener server=2 (widened)",
		"c2s NegotiateListenerDetails RequestServerListenerId client=4004 v1 " + stats + " (widened)",
		"s2c NegotiateListenerDetails TellClientListenerId client=4004 server=3 v1 " + stats + " (widened)",
		"c2s InvokeMessageListener server=3 payload=8 (widened)",
		"s2c InvokeMessageListener def idbits=2 id=3 " + stats + " v1 payload=8 (widened)", // the server's first S→C invoke of it
		"s2c PingRequest (widened)",
		"c2s PingResponse (widened)",
		"c2s GracefullyDisconnect (widened)",
	}
	got := describe(t, s, scripts[0])
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("usmn-basic script:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestOneSide: with one marker nothing is widened and nothing USMN is sent.
func TestOneSide(t *testing.T) {
	s := readFixture(t, "usmn-oneside")
	scripts, err := s.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	got := describe(t, s, scripts[0])
	want := []string{
		"c2s GetWorkshopFiles marker",
		"s2c DownloadWorkshopFiles",
		"s2c Accepted", // only one marker: nothing widened (wire.md 4.2)
		// no invoke: USMN sends nothing to a server without it
		"c2s PingRequest",
		"s2c PingResponse",
		"s2c PingRequest",
		"c2s PingResponse",
		"c2s GracefullyDisconnect",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("usmn-oneside script:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWireVectors checks generated messages against the computed examples
// of wire.md 3.
func TestWireVectors(t *testing.T) {
	src := `
[[connection]]
server = "1.2.3.4:27016"
[[connection.action]]
do = "kick"
reason = "bye"
[[connection.action]]
do = "reject"
code = 3
reason = "3.26.3.4"
[[connection.action]]
do = "accept"
`
	s, err := Parse("vectors", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := s.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0006" + "8c0000627965",           // Kicked("bye")
		"000b" + "6a7000332e32362e332e34", // Rejected(WRONG_VERSION, "3.26.3.4")
		"0007" + "89604020e0300d",         // Accepted(0x01020304, 27015)
	}
	for i, w := range scripts[0].Writes {
		if got := hex.EncodeToString(w.Data); got != want[i] {
			t.Errorf("write %d = %s; want %s", i+1, got, want[i])
		}
	}
}

func TestGetWorkshopFilesVector(t *testing.T) {
	s := readFixture(t, "vanilla")
	scripts, err := s.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	w := scripts[0].Writes[0]
	// wire.md 3: 969 bytes, 00×961 then 0a 00 "Hello!", after the frame header 03 c9.
	want := append(append([]byte{0x03, 0xc9}, make([]byte, 961)...), 0x0a, 0x00, 'H', 'e', 'l', 'l', 'o', '!')
	if !bytes.Equal(w.Data, want) {
		t.Errorf("vanilla GetWorkshopFiles = %x…; want %x…", w.Data[:8], want[:8])
	}
}

func TestParseErrors(t *testing.T) {
	base := "[[connection]]\n[[connection.action]]\n"
	tests := []struct{ in, want string }{
		{"bogus = 1\n" + base + "do = \"ping\"\nfrom = \"client\"\n", "unknown key bogus"},
		{"link = \"token-ring\"\n" + base + "do = \"ping\"\nfrom = \"client\"\n", "link"},
		{"name = \"x\"\n", "no [[connection]]"},
		{base + "do = \"dance\"\n", "action 1 (dance): do"},
		{base + "do = \"ping\"\nfrom = \"both\"\n", "from"},
		{base + "do = \"raw\"\nfrom = \"client\"\nhex = \"zz\"\n", "hex"},
		{base + "do = \"raw\"\nfrom = \"client\"\n", "exactly one of hex and stream"},
		{base + "do = \"negotiate\"\nmode = \"Shout\"\n", "mode"},
		{base + "do = \"invoke\"\nfrom = \"server\"\n", "listener"},
		{"[[connection]]\nclient = \"[::1]:5\"\nserver = \"1.2.3.4:27016\"\n", "not the same IP version"},
		{"[[connection]]\nclient = \"nowhere\"\n", "client"},
		{"[transport]\nsegment = 0\n[[connection]]\n", "transport.segment"},
		{"[[connection]]\n[connection.transport]\nwobble = true\n", "unknown key connection.transport.wobble"},
		{"[transport]\ngap = \"soon\"\n[[connection]]\n", "gap"},
		{"profile = \"p.toml\"\n[[connection]]\n", "profile"},
	}
	for _, tt := range tests {
		_, err := Parse("t", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestScriptErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"[[connection]]\nclient_usmn = true\nserver_usmn = true\n[[connection.action]]\ndo = \"handshake\"\n[[connection.action]]\ndo = \"invoke\"\nfrom = \"server\"\nlistener = \"X\"\n", `action 2 (invoke): listener: the server has no listener "X"`},
		{"[[connection]]\nclient_usmn = true\nserver_usmn = true\n[[connection.action]]\ndo = \"handshake\"\n[[connection.action]]\ndo = \"request\"\nlistener = \"Y\"\n", `the client has no listener "Y"`},
		{"[[connection]]\n[[connection.action]]\ndo = \"message\"\nfrom = \"client\"\nname = \"Kicked\"\n", `"Kicked" is not a c2s message`},
	}
	for _, tt := range tests {
		s, err := Parse("t", []byte(tt.in))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if _, err := s.Scripts(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Scripts(%q) = %v; want an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestReadFileProfile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/p.toml", []byte("extra_bits = 2\nserver_invoke_listener = 33\nserver_negotiate = 34\nclient_invoke_listener = 64\nclient_negotiate = 65\n"), 0o644)
	os.WriteFile(dir+"/s.toml", []byte("profile = \"p.toml\"\n[[connection]]\n"), 0o644)
	s, err := ReadFile(dir + "/s.toml")
	if err != nil {
		t.Fatal(err)
	}
	if s.P.ExtraBits != 2 || s.P.Name != "p.toml" {
		t.Errorf("ReadFile with profile: extra_bits = %d, name %q; want 2, p.toml", s.P.ExtraBits, s.P.Name)
	}
}
