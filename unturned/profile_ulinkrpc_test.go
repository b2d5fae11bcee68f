package unturned

import (
	"slices"
	"strings"
	"testing"
)

// TestParseRPCProfile: the [ulinkrpc] table over its defaults, and each
// bad value refused with the key named.
func TestParseRPCProfile(t *testing.T) {
	p, err := ParseProfile("t.toml", nil)
	if err != nil || p.ULinkRPC != DefaultRPCProfile() || !slices.Equal(p.ULinkRPC.Ports.List(), []uint16{20000}) {
		t.Fatalf("ParseProfile(empty) = %+v, %v; want the default [ulinkrpc] table", p.ULinkRPC, err)
	}
	p, err = ParseProfile("t.toml", []byte("[ulinkrpc]\nports = [20001, 20000]\nkey = \"a2V5\"\nkey_derivation = \"sha256\"\nserializer = \"memorypack\"\nws_path = \"/rpc\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := RPCProfile{Ports: Ports{20001, 20000}, Key: "a2V5", KeyDerivation: "sha256", Serializer: "memorypack", WSPath: "/rpc"}
	if p.ULinkRPC != want {
		t.Errorf("ParseProfile = %+v; want %+v", p.ULinkRPC, want)
	}
	if k, err := p.ULinkRPC.MasterKey(); string(k) != "key" || err != nil {
		t.Errorf("MasterKey() = %q, %v; want \"key\"", k, err)
	}
	if got := p.TOML(); !strings.Contains(got, "[ulinkrpc]\nports = [20001, 20000]\n") {
		t.Errorf("TOML() = %s; want the ports as a list", got)
	}
	if again, err := ParseProfile("t.toml", []byte(p.TOML())); err != nil || again.ULinkRPC != want {
		t.Errorf("ParseProfile(TOML()) = %+v, %v; want %+v", again.ULinkRPC, err, want)
	}
	for _, tt := range []struct{ in, want string }{
		{"ports = [0]", "ulinkrpc.ports"},
		{"ports = [70000]", "ulinkrpc.ports"},
		{"ports = []", "ulinkrpc.ports"},
		{"ports = [1, 2, 3, 4, 5, 6, 7, 8, 9]", "at most 8"},
		{"ports = [20000, 20000]", "twice"},
		{"ports = [\"a\"]", "not an integer"},
		{"ports = [27016]", "transport_port"},
		{"key = \"not base64!\"", "ulinkrpc.key"},
		{"key_derivation = \"HKDF\"", "ulinkrpc.key_derivation"},
		{"serializer = \"xml\"", "ulinkrpc.serializer"},
		{"ws_path = \"\"", "ulinkrpc.ws_path"},
		{"wspath = \"/ws\"", "unknown key ulinkrpc.wspath"},
	} {
		_, err := ParseProfile("t.toml", []byte("[ulinkrpc]\n"+tt.in+"\n"))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "t.toml") {
			t.Errorf("ParseProfile(%q) = %v; want an error naming t.toml and %q", tt.in, err, tt.want)
		}
	}
}
