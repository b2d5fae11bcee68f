package ulinkrpc

import "testing"

// checkHead fails unless DecodeHead(b, cfg) is the Head of DecodeEnvelope
// over u's envelope (u = Untransform(b, cfg)), ok false when u has none,
// and DecodeBrief(b, cfg) that Head with u's Class and envelope length.
func checkHead(t *testing.T, b []byte, cfg TransformConfig, u Untransformed) {
	t.Helper()
	var want Head
	if u.Envelope != nil {
		e, _ := DecodeEnvelope(u.Envelope)
		want = e.Head()
	}
	if h, ok := DecodeHead(b, cfg); ok != (u.Envelope != nil) || h != want {
		t.Fatalf("DecodeHead(%x, mode %d, key %v) = %+v, %v; want %+v, %v", b, cfg.Mode, cfg.Keys != nil, h, ok, want, u.Envelope != nil)
	}
	wantBrief := Brief{Head: want, OK: u.Envelope != nil, Class: u.Class, Len: len(u.Envelope)}
	if br := DecodeBrief(b, cfg); br != wantBrief {
		t.Fatalf("DecodeBrief(%x, mode %d, key %v) = %+v; want %+v", b, cfg.Mode, cfg.Keys != nil, br, wantBrief)
	}
}

// TestDecodeHead: DecodeHead reads what Untransform then DecodeEnvelope
// read, for every frame type, every shorter cut of each, trailing bytes,
// unknown types and statuses, each transformed (flags 00, gzip, encrypted)
// and read under every mode with no key, the key and a wrong key.
func TestDecodeHead(t *testing.T) {
	k := DeriveKeys(testMaster, HKDF)
	wrong := DeriveKeys([]byte("not the key"), HKDF)
	frames := [][]byte{
		vecRequest, vecResponseErr, vecResponseOk, vecPush, vecPing,
		EncodeKeepAlive(KeepAlivePong, 5),
		EncodeRequest(1, -2, 3, nil),
		EncodeResponse(3, Status(9), nil, "\xff"),
		append(EncodeKeepAlive(KeepAlivePing, 7), 0), // trailing byte
		h(`09 01`),                      // unknown type
		h(`02 00000001 00 ffffffff 00`), // negative length
	}
	var inputs [][]byte
	for _, f := range frames {
		inputs = append(inputs, f, append([]byte{0}, f...),
			ApplyTransform(f, TransformOptions{Compress: true, Threshold: 1}),
			ApplyTransform(f, TransformOptions{Keys: &k}))
		for n := range len(f) {
			inputs = append(inputs, f[:n])
		}
	}
	for _, b := range inputs {
		for _, mode := range []Mode{Auto, Off, On, Encrypted} {
			for _, keys := range []*Keys{nil, &k, &wrong} {
				cfg := TransformConfig{Mode: mode, Keys: keys}
				u, _ := Untransform(b, cfg)
				checkHead(t, b, cfg, u)
			}
		}
	}
}

// TestDecodeHeadAllocs: DecodeBrief (and so DecodeHead) reads a plain
// frame of each type, and one behind the flags byte, without allocating
// (issue 15: tables decodes a million of them).
func TestDecodeHeadAllocs(t *testing.T) {
	for _, f := range [][]byte{vecRequest, vecResponseErr, vecResponseOk, vecPush, vecPing, append([]byte{0}, vecPush...)} {
		if n := testing.AllocsPerRun(100, func() { DecodeBrief(f, TransformConfig{}) }); n != 0 {
			t.Errorf("DecodeBrief(%x) allocates %.0f times; want 0", f, n)
		}
	}
}
