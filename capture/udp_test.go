package capture

import (
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
)

// a2sReply builds an A2S_INFO reply (Valve Server Queries): header, 'I',
// protocol 17, name, map, folder, game, app ID 304930, players 3, max 24,
// bots 0, type 'd', environment 'l', visibility 0, VAC 1, version, EDF
// 0xB1 (port, steam ID, keywords, game ID).
func a2sReply(name, keywords string) []byte {
	b := []byte{0xff, 0xff, 0xff, 0xff, 'I', 17}
	for _, s := range []string{name, "PEI", "unturned", "Unturned"} {
		b = append(append(b, s...), 0)
	}
	b = append(b, 0x22, 0xa6, 3, 24, 0, 'd', 'l', 0, 1)
	b = append(append(b, "3.24.1.0"...), 0)
	b = append(b, 0xb1, 0x88, 0x69) // EDF, port 27016
	b = append(b, 1, 2, 3, 4, 5, 6, 7, 8)
	b = append(append(b, keywords...), 0)
	return append(b, 0x22, 0xa6, 4, 0, 0, 0, 0, 0)
}

func TestParseA2SInfo(t *testing.T) {
	full := a2sReply("My Server", "gm:survival,<net>sys</net>,pvp")
	tests := []struct {
		in     []byte
		ok     bool
		name   string
		netTag string
	}{
		{full, true, "My Server", "<net>sys</net>"},
		{a2sReply("S", "<net>sns</net>"), true, "S", "<net>sns</net>"},
		{a2sReply("S", "gm:pve"), true, "S", "no <net> tag"},
		{a2sReply("S", "<net>sys"), true, "S", "no <net> tag"},
		{[]byte{0xff, 0xff, 0xff, 0xff, 'T'}, false, "", ""},
		{[]byte("hello"), false, "", ""},
	}
	for _, tt := range tests {
		info, ok := parseA2SInfo(tt.in)
		if ok != tt.ok || info.name != tt.name || ok && info.transport() != tt.netTag {
			t.Errorf("parseA2SInfo(%q) = %q, %q, %v; want %q, %q, %v", tt.in, info.name, info.transport(), ok, tt.name, tt.netTag, tt.ok)
		}
	}
	// Every cut keeps a valid name once the name is whole, and never panics.
	for n := range len(full) {
		info, ok := parseA2SInfo(full[:n])
		if n > 6+len("My Server") && (!ok || info.name != "My Server") {
			t.Errorf("parseA2SInfo(cut at %d) = %q, %v; want the name", n, info.name, ok)
		}
		if n < len(full)-9 && info.transport() != "no <net> tag" && n < 60 {
			t.Errorf("parseA2SInfo(cut at %d) found %q before the keywords", n, info.transport())
		}
	}
}

func TestUDP(t *testing.T) {
	server := mustAP("10.0.0.1:27016")
	query := mustAP("10.0.0.1:27015")
	p1, p2 := mustAP("10.0.0.2:5000"), mustAP("10.0.0.3:5001")
	eth := layers.LinkTypeEthernet
	sns := []byte{0x80, 1, 2, 3, 4, 0, 1, 0xde, 0xad} // flags, toConnectionID, seq, ciphertext (wire.md §2)
	pkts := []Packet{
		{Data: udpFrame(t, p1, server, sns), Link: eth, Time: t0},
		{Data: udpFrame(t, server, p1, sns), Link: eth, Time: t0},
		{Data: udpFrame(t, p2, server, sns), Link: eth, Time: t0},
		{Data: udpFrame(t, p1, query, []byte("\xff\xff\xff\xffTSource Engine Query\x00")), Link: eth, Time: t0},
		{Data: udpFrame(t, query, p1, a2sReply("My \x1b[31mServer", "<net>sys</net>")), Link: eth, Time: t0},
		{Data: udpFrame(t, query, p1, a2sReply("My \x1b[31mServer", "<net>sys</net>")), Link: eth, Time: t0},
		{Data: udpFrame(t, mustAP("10.0.0.5:53"), p1, []byte("dns")), Link: eth, Time: t0},
	}
	src := NewPackets(pkts, Options{})
	r := drain(t, src)
	snsNotes := 0
	for _, n := range r.notes {
		if strings.Contains(n, "is SteamNetworkingSockets (encrypted") {
			snsNotes++
			if !strings.Contains(n, "from 10.0.0.2:5000") || !strings.Contains(n, "-NetTransport SystemSockets") {
				t.Errorf("SNS note = %q; want peer 10.0.0.2:5000 and the -NetTransport SystemSockets advice", n)
			}
		}
		if strings.ContainsRune(n, 0x1b) {
			t.Errorf("note %q carries a raw control character", n)
		}
	}
	if snsNotes != 1 {
		t.Errorf("%d SNS explanations; want 1 (notes %q)", snsNotes, r.notes)
	}
	for _, want := range []string{
		`A2S_INFO from 10.0.0.1:27015: name "My \x1b[31mServer", transport <net>sys</net>`,
		"SteamNetworkingSockets UDP with 10.0.0.2:5000: 2 datagrams",
		"SteamNetworkingSockets UDP with 10.0.0.3:5001: 1 datagrams",
	} {
		if !slices.ContainsFunc(r.notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("notes = %q; want one containing %q", r.notes, want)
		}
	}
	a2s := 0
	for _, n := range r.notes {
		if strings.Contains(n, "A2S_INFO") {
			a2s++
		}
	}
	if a2s != 1 {
		t.Errorf("%d A2S notes; want 1 (a repeat of the same reply is not noted again)", a2s)
	}
	st := src.Stats()
	if st.UDPGame != 3 || st.UDPQuery != 3 || st.UDPNonGame != 1 || st.Flows != 0 {
		t.Errorf("stats game %d query %d other %d flows %d; want 3 3 1 0", st.UDPGame, st.UDPQuery, st.UDPNonGame, st.Flows)
	}
}
