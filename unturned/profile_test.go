package unturned

import (
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

// TestDefault checks Default against the table of wire.md section 6.
func TestDefault(t *testing.T) {
	p := Default()
	tests := []struct {
		key       string
		got, want any
	}{
		{"name", p.Name, "default"},
		{"game", p.Game, "3.26"},
		{"transport_port", p.TransportPort, uint16(27016)},
		{"query_port", p.QueryPort, uint16(27015)}, // wire.md 2
		{"client_methods", p.ClientMethods, uint32(272)},
		{"server_methods", p.ServerMethods, uint32(101)},
		{"extra_bits", p.ExtraBits, 1},
		{"server_invoke_listener", p.ServerInvokeListener, uint32(17)},
		{"server_negotiate", p.ServerNegotiate, uint32(18)},
		{"client_invoke_listener", p.ClientInvokeListener, uint32(32)},
		{"client_negotiate", p.ClientNegotiate, uint32(33)},
		{"id_bit_count_bit_count", p.IDBitCountBitCount, 5},
		{"type_name_bit_count", p.TypeNameBitCount, 11},
		{"negotiate_mode_bit_count", p.NegotiateModeBitCount, 2},
		{"mode_tell_client_missing_listener", p.ModeTellClientMissingListener, uint32(0)},
		{"mode_tell_client_listener_id", p.ModeTellClientListenerID, uint32(1)},
		{"mode_tell_server_missing_listener", p.ModeTellServerMissingListener, uint32(2)},
		{"mode_request_server_listener_id", p.ModeRequestServerListenerID, uint32(3)},
		{"marker_magic", p.MarkerMagic, uint32(0x4E4D5355)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("Default().%s = %v; want %v", tt.key, tt.got, tt.want)
		}
	}
	if err := p.Validate(); err != nil {
		t.Errorf("Default().Validate() = %v; want nil", err)
	}
	// The marker magic is "USMN" on the wire: 32 bits LSB first, aligned.
	m := p.MarkerMagic
	if got := string([]byte{byte(m), byte(m >> 8), byte(m >> 16), byte(m >> 24)}); got != "USMN" {
		t.Errorf("marker magic on the wire = %q; want \"USMN\"", got)
	}
}

// TestDefaultInternalNumbers derives the internal message numbers from the
// rule of wire.md 6: internal message k takes the k-th value v ≥ 2^oldBits
// whose low oldBits bits differ from the detection message.
func TestDefaultInternalNumbers(t *testing.T) {
	p := Default()
	rule := func(d dissect.Dir) []uint32 {
		old := p.EnumBits(d)
		var vs []uint32
		for v := uint32(1) << old; len(vs) < 2; v++ {
			if v&(1<<old-1) != p.DetectionMessage(d) {
				vs = append(vs, v)
			}
		}
		return vs
	}
	for _, tt := range []struct {
		dir            dissect.Dir
		invoke, negot  uint32
		wantI, wantNeg string
	}{
		{dissect.C2S, p.ServerInvokeListener, p.ServerNegotiate, "server_invoke_listener", "server_negotiate"},
		{dissect.S2C, p.ClientInvokeListener, p.ClientNegotiate, "client_invoke_listener", "client_negotiate"},
	} {
		r := rule(tt.dir)
		if tt.invoke != r[0] || tt.negot != r[1] {
			t.Errorf("%s: %s, %s = %d, %d; the rule gives %d, %d", tt.dir, tt.wantI, tt.wantNeg, tt.invoke, tt.negot, r[0], r[1])
		}
	}
}

func TestEnumBits(t *testing.T) {
	p324 := Default()
	p324.Game = "3.24"
	tests := []struct {
		game           string
		p              *Profile
		dir            dissect.Dir
		enum, widened  int
		count, holiday int
	}{
		// wire.md 3: 9 server messages → 4 bits; 19 client messages in
		// 3.26 → 5 bits; 18 in 3.24 → still 5 bits; widened +1 (6).
		{"3.26", Default(), dissect.C2S, 4, 5, 9, 4},
		{"3.26", Default(), dissect.S2C, 5, 6, 19, 4},
		{"3.24", p324, dissect.C2S, 4, 5, 9, 3},
		{"3.24", p324, dissect.S2C, 5, 6, 18, 3},
	}
	for _, tt := range tests {
		count := tt.p.ServerMessageCount()
		if tt.dir == dissect.S2C {
			count = tt.p.ClientMessageCount()
		}
		if got := tt.p.EnumBits(tt.dir); got != tt.enum {
			t.Errorf("%s EnumBits(%s) = %d; want %d", tt.game, tt.dir, got, tt.enum)
		}
		if got := tt.p.WidenedBits(tt.dir); got != tt.widened {
			t.Errorf("%s WidenedBits(%s) = %d; want %d", tt.game, tt.dir, got, tt.widened)
		}
		if count != tt.count {
			t.Errorf("%s %s message count = %d; want %d", tt.game, tt.dir, count, tt.count)
		}
		if got := tt.p.HolidayBits(); got != tt.holiday {
			t.Errorf("%s HolidayBits() = %d; want %d", tt.game, got, tt.holiday)
		}
	}
	wide := Default()
	wide.ExtraBits = 3
	if got := wide.WidenedBits(dissect.S2C); got != 8 {
		t.Errorf("WidenedBits(s2c) with extra_bits 3 = %d; want 8", got)
	}
	if got, want := [2]uint32{Default().DetectionMessage(dissect.C2S), Default().DetectionMessage(dissect.S2C)}, [2]uint32{0, 7}; got != want {
		t.Errorf("DetectionMessage(c2s, s2c) = %v; want %v (GetWorkshopFiles, DownloadWorkshopFiles)", got, want)
	}
}

// The example profile of wire.md 6.1.
const exampleProfile = `game = "3.24"
type_name_bit_count = 9
id_bit_count_bit_count = 6
extra_bits = 2
server_invoke_listener = 33
server_negotiate = 34
client_invoke_listener = 64
client_negotiate = 65
`

func TestParseProfileExample(t *testing.T) {
	p, err := ParseProfile("example.toml", []byte(exampleProfile))
	if err != nil {
		t.Fatalf("ParseProfile(wire.md 6.1 example) = %v", err)
	}
	want := Default()
	want.Name = "example.toml"
	want.Game = "3.24"
	want.TypeNameBitCount = 9
	want.IDBitCountBitCount = 6
	want.ExtraBits = 2
	want.ServerInvokeListener, want.ServerNegotiate = 33, 34
	want.ClientInvokeListener, want.ClientNegotiate = 64, 65
	if *p != *want {
		t.Errorf("ParseProfile(example) = %+v; want %+v", *p, *want)
	}
	if got := p.WidenedBits(dissect.C2S); got != 6 {
		t.Errorf("example WidenedBits(c2s) = %d; want 6", got)
	}
	if got := p.WidenedBits(dissect.S2C); got != 7 {
		t.Errorf("example WidenedBits(s2c) = %d; want 7", got)
	}
}

func TestParseProfileKeys(t *testing.T) {
	tests := []struct {
		in   string
		want string // substring of the error, "" for none
	}{
		{"", ""},
		{"marker_magic = 0x4E4D5355\nmode_tell_client_listener_id = 1", ""},
		{"transport_port = 27020\nquery_port = 27019", ""},
		{"frobnicate = 1", "unknown key frobnicate"},
		{"game = \"3.26\"\nfoo = 1\nbar = 2", "foo"},
		{"[extra]\nbits = 1", "unknown key extra.bits"},
		{"[extra]\nbits = 1\nmore = 2\n[x]\ny = 3", "unknown key extra.bits, extra.more, x.y"},
		{"negotiate_mode_bit_count = 1", "mode_tell_server_missing_listener"}, // 2 needs 2 bits
		{"mode_tell_client_listener_id = 4", "mode_tell_client_listener_id"},  // needs 3 bits
		{"mode_request_server_listener_id = 0", "mode_request_server_listener_id: 0 equals mode_tell_client_missing_listener"},
		{"negotiate_mode_bit_count = 3\nmode_tell_client_listener_id = 7", ""},
		{"game = \"3.25\"", "game"},
		{"game = 3", "game"},
		{"extra_bits = 0", "extra_bits"},
		{"extra_bits = \"one\"", "extra_bits"},
		{"transport_port = 70000", "transport_port"},
		{"id_bit_count_bit_count = 7", "id_bit_count_bit_count"},
		{"type_name_bit_count = 0", "type_name_bit_count"},
		{"negotiate_mode_bit_count = 17", "negotiate_mode_bit_count"},
		{"server_invoke_listener = 16", "server_invoke_listener"},                  // low 4 bits 0: GetWorkshopFiles
		{"server_negotiate = 32", "server_negotiate"},                              // needs 6 bits, widened is 5
		{"client_invoke_listener = 39", "client_invoke_listener"},                  // low 5 bits 7: DownloadWorkshopFiles
		{"client_negotiate = 32", "client_negotiate"},                              // equals client_invoke_listener
		{"server_negotiate = 17", "server_negotiate"},                              // equals server_invoke_listener
		{"extra_bits = 2\nserver_negotiate = 33", ""},                              // fits 6 bits, low bits 1
		{"game = \"3.24\"\nclient_invoke_listener = 64", "client_invoke_listener"}, // needs 7 bits
		{"not toml", "profile bad.toml"},
	}
	for _, tt := range tests {
		_, err := ParseProfile("bad.toml", []byte(tt.in))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ParseProfile(%q) = %v; want nil", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ParseProfile(%q) = %v; want an error naming %q", tt.in, err, tt.want)
		case err != nil && !strings.HasPrefix(err.Error(), "profile bad.toml: "):
			t.Errorf("ParseProfile(%q) = %v; want it to start with the file name", tt.in, err)
		}
	}
}

// TestProfileTOML: the TOML a profile prints parses back to the same
// profile.
func TestProfileTOML(t *testing.T) {
	for _, src := range []string{"", exampleProfile} {
		p, err := ParseProfile("in.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		text := p.TOML()
		q, err := ParseProfile("in.toml", []byte(text))
		if err != nil {
			t.Fatalf("ParseProfile(TOML()) = %v\n%s", err, text)
		}
		if *q != *p {
			t.Errorf("ParseProfile(TOML()) = %+v; want %+v", *q, *p)
		}
		if !strings.HasPrefix(text, "# usmnscope profile: in.toml\n") {
			t.Errorf("TOML() starts %q; want a comment naming the profile", text[:min(40, len(text))])
		}
	}
}

func ExampleParseProfile() {
	p, err := ParseProfile("mine.toml", []byte("game = \"3.24\"\nextra_bits = 2\nserver_invoke_listener = 33\nserver_negotiate = 34\nclient_invoke_listener = 64\nclient_negotiate = 65\n"))
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Name, p.Game, p.EnumBits(dissect.S2C), p.WidenedBits(dissect.S2C))
	_, err = ParseProfile("bad.toml", []byte("extra_bit = 2"))
	fmt.Println(err)
	// Output:
	// mine.toml 3.24 5 7
	// profile bad.toml: unknown key extra_bit
}
