package unturned

import "testing"

// TestFormatSize: the largest binary suffix that divides the count, read
// back by ParseSize as the same count.
func TestFormatSize(t *testing.T) {
	for n, want := range map[int]string{0: "0", 1: "1", 1000: "1000", 1024: "1KiB", 1536: "1536", 64 << 10: "64KiB", 3 << 20: "3MiB", 1 << 30: "1GiB", 5<<30 + 1<<20: "5121MiB"} {
		got := FormatSize(n)
		if got != want {
			t.Errorf("FormatSize(%d) = %q; want %q", n, got, want)
		}
		if back, err := ParseSize(got); err != nil || back != n {
			t.Errorf("ParseSize(FormatSize(%d) = %q) = %d, %v", n, got, back, err)
		}
	}
}

// TestSetKey: a flag's key is trimmed; what is no key is refused quoted and
// escaped; a derivation is one of KeyDerivations.
func TestSetKey(t *testing.T) {
	var r RPCProfile
	if err := r.SetKey(" AAECAw== "); err != nil || r.Key != "AAECAw==" {
		t.Errorf("SetKey(\" AAECAw== \") = %v, key %q", err, r.Key)
	}
	if err := r.SetKey("no\x1b"); err == nil || err.Error() != `not a base64 key: "no\\x1b"` {
		t.Errorf("SetKey(no ESC) = %v", err)
	}
	if err := r.SetKeyDerivation("sha256"); err != nil || r.KeyDerivation != "sha256" {
		t.Errorf("SetKeyDerivation(sha256) = %v, %q", err, r.KeyDerivation)
	}
	if err := r.SetKeyDerivation("md5"); err == nil || err.Error() != `"md5" is not hkdf or sha256` {
		t.Errorf("SetKeyDerivation(md5) = %v", err)
	}
}
