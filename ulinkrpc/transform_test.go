package ulinkrpc

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

var testMaster = []byte("ulinkrpc-test-master-key")

// Key vectors computed independently (Python hmac/hashlib).
func TestDeriveKeys(t *testing.T) {
	tests := []struct {
		d        Derivation
		enc, mac string
	}{
		{HKDF, "a003f0f79cdcd55e2520f2b98262f3dc4f89593fbe8146b8187f6ad68f54a425", "44d6b12585e6a654d6ed45e9d51bd1cf63f9d44d1316b15b3fdbd1f31f2b8e92"},
		{SHA256, "65c62331d7b74b561497300acf9805650889e90a0f0c8bd9870a4bb6c3b4ba2d", "40fbb706bcfabc6f09707b3d2eabe52930d9a89a680265592050bf4e548ee666"},
	}
	for _, tt := range tests {
		k := DeriveKeys(testMaster, tt.d)
		if got := hex.EncodeToString(k.Enc[:]); got != tt.enc {
			t.Errorf("DeriveKeys(%v).Enc = %s; want %s", tt.d, got, tt.enc)
		}
		if got := hex.EncodeToString(k.Mac[:]); got != tt.mac {
			t.Errorf("DeriveKeys(%v).Mac = %s; want %s", tt.d, got, tt.mac)
		}
	}
}

// vecEncrypted is 00 ‖ vecPing encrypted with testMaster (HKDF) and IV
// 00..0f, computed with openssl and Python:
//
//	000102030405060708090a0b0c0d0e0f  IV
//	69a773fcda5e4b8d1074b0dae559157e  AES-256-CBC of 00 04 08dcb1f6a1b2c3d4 + 6 bytes of padding
//	675f06e0…721c17d4                 HMAC-SHA256(IV ‖ ciphertext)
var vecEncrypted = h(`000102030405060708090a0b0c0d0e0f 69a773fcda5e4b8d1074b0dae559157e
	675f06e03998bea73ed2cad7efeb547569a6651a4115303c1d938544721c17d4`)

var testIV = h(`000102030405060708090a0b0c0d0e0f`)

func TestEncryptVector(t *testing.T) {
	k := DeriveKeys(testMaster, HKDF)
	if got := ApplyTransform(vecPing, TransformOptions{Keys: &k, IV: testIV}); !bytes.Equal(got, vecEncrypted) {
		t.Errorf("ApplyTransform(ping, encrypted) = %x; want %x", got, vecEncrypted)
	}
}

func TestUntransform(t *testing.T) {
	hk := DeriveKeys(testMaster, HKDF)
	sk := DeriveKeys(testMaster, SHA256)
	big := EncodeRequest(9, 1, 1, []byte(`"`+strings.Repeat("a", 2000)+`"`))
	gz := ApplyTransform(big, TransformOptions{Compress: true})
	tests := []struct {
		name  string
		in    []byte
		cfg   TransformConfig
		class Class
		flags int
		gzip  bool
		dec   bool
		err   error
		want  []byte
	}{
		{"plain auto", vecRequest, TransformConfig{}, ClassPlain, -1, false, false, nil, vecRequest},
		{"plain off", vecRequest, TransformConfig{Mode: Off}, ClassPlain, -1, false, false, nil, vecRequest},
		{"flags auto", append([]byte{0}, vecPush...), TransformConfig{}, ClassFlags, 0, false, false, nil, vecPush},
		{"flags on", append([]byte{0}, vecPush...), TransformConfig{Mode: On}, ClassUnknown, 0, false, false, nil, vecPush},
		{"gzip auto", gz, TransformConfig{}, ClassGzip, 1, true, false, nil, big},
		{"encrypted no key", vecEncrypted, TransformConfig{}, ClassEncrypted, -1, false, false, ErrNoKey, nil},
		{"encrypted key", vecEncrypted, TransformConfig{Keys: &hk}, ClassEncrypted, 0, false, true, nil, vecPing},
		{"encrypted mode", vecEncrypted, TransformConfig{Mode: Encrypted, Keys: &hk}, ClassUnknown, 0, false, true, nil, vecPing},
		{"encrypted wrong key", vecEncrypted, TransformConfig{Keys: &sk}, ClassEncrypted, -1, false, false, ErrAuth, nil},
		{"encrypted gzip", ApplyTransform(big, TransformOptions{Compress: true, Keys: &sk}), TransformConfig{Keys: &sk}, ClassEncrypted, 1, true, true, nil, big},
		{"unknown", h(`ff0102`), TransformConfig{}, ClassUnknown, -1, false, false, nil, h(`ff0102`)},
		{"bad gzip", h(`01 1f8b08 000000`), TransformConfig{}, ClassGzip, 1, true, false, ErrFormat, nil},
	}
	for _, tt := range tests {
		u, err := Untransform(tt.in, tt.cfg)
		if !errors.Is(err, tt.err) {
			t.Errorf("Untransform(%s) error = %v; want %v", tt.name, err, tt.err)
		}
		if u.Class != tt.class || u.Flags != tt.flags || u.Gzip != tt.gzip || u.Decrypted != tt.dec || !bytes.Equal(u.Envelope, tt.want) {
			t.Errorf("Untransform(%s) = class %v flags %d gzip %v decrypted %v env %x; want %v %d %v %v %x",
				tt.name, u.Class, u.Flags, u.Gzip, u.Decrypted, u.Envelope, tt.class, tt.flags, tt.gzip, tt.dec, tt.want)
		}
		if tt.cfg.Mode == Auto && (len(u.Findings) == 0 || !strings.HasPrefix(u.Findings[0].Text, "transform: settings unknown, classified as ")) {
			t.Errorf("Untransform(%s) findings = %v; want the classification stated first", tt.name, u.Findings)
		}
	}
}

func TestUntransformMessages(t *testing.T) {
	sk := DeriveKeys(testMaster, SHA256)
	u, err := Untransform(vecEncrypted, TransformConfig{Keys: &sk})
	if want := "ulinkrpc transform: hmac: HMAC-SHA256 mismatch: the key (or key_derivation) is probably wrong at byte 32"; err == nil || err.Error() != want {
		t.Errorf("Untransform(wrong key) = %v; want %s", err, want)
	}
	_ = u
	u, _ = Untransform(vecEncrypted, TransformConfig{})
	if last := u.Findings[len(u.Findings)-1].Text; !strings.Contains(last, "--ulinkrpc-key BASE64") {
		t.Errorf("Untransform(no key) last finding = %q; want how to pass the key", last)
	}
}

// A gzip bomb stops at the cap with an error and costs no more than the cap.
func TestGzipBomb(t *testing.T) {
	zeros := make([]byte, 4<<20)
	frame := append([]byte{FlagGzip}, Gzip(zeros)...)
	for _, tt := range []struct {
		max int
		err error
	}{{1 << 20, ErrTooLarge}, {4 << 20, nil}, {4<<20 - 1, ErrTooLarge}} {
		u, err := Untransform(frame, TransformConfig{Mode: On, MaxInflate: tt.max})
		if !errors.Is(err, tt.err) {
			t.Errorf("Untransform(4 MiB bomb, cap %d) = %v; want %v", tt.max, err, tt.err)
		}
		if tt.err != nil && (u.Envelope != nil || !strings.Contains(err.Error(), "exceeds the cap")) {
			t.Errorf("Untransform(4 MiB bomb, cap %d) = %d bytes, %v", tt.max, len(u.Envelope), err)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		in   []byte
		want Class
	}{
		{vecPing, ClassPlain},
		{append([]byte{0}, vecPing...), ClassFlags},
		{h(`01 1f8b08`), ClassGzip},
		{make([]byte, 64), ClassEncrypted},
		{make([]byte, 80), ClassEncrypted},
		{make([]byte, 65), ClassUnknown},
		{make([]byte, 48), ClassUnknown},
		{nil, ClassUnknown},
	}
	for _, tt := range tests {
		if got := Classify(tt.in); got != tt.want {
			t.Errorf("Classify(%x) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

// Every shorter cut of a transformed frame fails cleanly or decodes to
// something else; it never panics.
func TestUntransformCuts(t *testing.T) {
	k := DeriveKeys(testMaster, HKDF)
	big := EncodeRequest(9, 1, 1, []byte(`"`+strings.Repeat("a", 2000)+`"`))
	for _, frame := range [][]byte{vecEncrypted, ApplyTransform(big, TransformOptions{Compress: true})} {
		for n := range len(frame) {
			for _, m := range []Mode{Auto, On, Encrypted} {
				u, err := Untransform(frame[:n], TransformConfig{Mode: m, Keys: &k})
				if err == nil && u.Decrypted {
					t.Errorf("Untransform(cut %d, mode %d) decrypted; want an error", n, m)
				}
			}
		}
	}
}
