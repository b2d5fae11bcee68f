package unturned

import (
	"testing"
)

// FuzzParseProfile feeds arbitrary TOML to ParseProfile (wire.md 6.1): it
// must return a profile or an error, never panic, and an accepted profile
// must parse again from the same bytes to the same result.
func FuzzParseProfile(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("game = \"Unturned\"\ntransport_port = 27015\nextra_bits = 2\n"))
	f.Add([]byte("type_name_bit_count = 99\nmarker_magic = 0x4E4D5355\n"))
	f.Add([]byte("bogus = 1\n[extra]\nk = \"\\u001b[31m\"\n"))
	f.Add([]byte("[limits]\nmax_flow_buffer = \"64KiB\"\nmax_flows = 3\nmax_message = 65536\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("fuzz", data)
		if err != nil {
			if p != nil {
				t.Fatalf("ParseProfile(%q) = %v, %v; want nil profile with an error", data, p, err)
			}
			return
		}
		if _, err := ParseProfile("fuzz", data); err != nil {
			t.Fatalf("ParseProfile(%q) accepted once, then failed: %v", data, err)
		}
		// profile show prints TOML(); what it prints must read back as
		// the same profile, [limits] included.
		if back, err := ParseProfile("fuzz", []byte(p.TOML())); err != nil || *back != *p {
			t.Fatalf("ParseProfile(%q).TOML() reads back as %+v, %v; want %+v", data, back, err, p)
		}
	})
}
