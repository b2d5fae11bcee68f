package ulinkrpc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
)

// Seeds shared by the fuzz targets and the committed corpora under
// testdata/fuzz/FuzzX/ (regenerate with ULINKRPC_WRITE_CORPUS=1 go test
// -run TestWriteFuzzCorpus ./ulinkrpc/).
func fuzzSeeds() map[string][][]any {
	k := DeriveKeys(testMaster, HKDF)
	big := EncodeRequest(9, 1, 1, []byte(`"`+string(bytes.Repeat([]byte("a"), 1500))+`"`))
	stream, _ := conversation(4)
	seeds := map[string][][]any{
		"FuzzEnvelope": {{vecRequest}, {vecResponseErr}, {vecResponseOk}, {vecPush}, {vecPing}, {vecPong}, {h(`09 01`)}},
		"FuzzTransform": {{vecEncrypted, byte(0)}, {vecEncrypted, byte(3)}, {ApplyTransform(big, TransformOptions{Compress: true}), byte(2)},
			{append([]byte{0}, vecPing...), byte(0)}, {ApplyTransform(big, TransformOptions{Compress: true, Keys: &k}), byte(3)}},
		"FuzzMemoryPack": {{vecLogin}, {MPNullObject()}, {MPEncodeObject(false, MPInt32(1), MPBool(true))}},
		"FuzzStream":     {{stream, uint16(5)}, {append([]byte{1, 2, 3}, stream...), uint16(40)}},
	}
	for _, f := range contractFiles() {
		seeds["FuzzContracts"] = append(seeds["FuzzContracts"], []any{string(f.Text)})
	}
	return seeds
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds()[f.Name()] {
		f.Add(s...)
	}
}

func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("ULINKRPC_WRITE_CORPUS") == "" {
		t.Skip("set ULINKRPC_WRITE_CORPUS=1 to rewrite testdata/fuzz")
	}
	for name, seeds := range fuzzSeeds() {
		dir := filepath.Join("testdata", "fuzz", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range seeds {
			text := "go test fuzz v1\n"
			for _, v := range s {
				switch v := v.(type) {
				case []byte:
					text += fmt.Sprintf("[]byte(%q)\n", v)
				case string:
					text += fmt.Sprintf("string(%q)\n", v)
				case byte:
					text += fmt.Sprintf("byte(%q)\n", v)
				case uint16:
					text += fmt.Sprintf("uint16(%d)\n", v)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%d", i)), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// FuzzEnvelope: no panic; a frame that parses exactly decodes with no
// error and re-encodes to the same bytes (dnsmessage's FuzzUnpackPack);
// DecodeHead and DecodeBrief read what DecodeEnvelope and Untransform do.
func FuzzEnvelope(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		env, err := DecodeEnvelope(b)
		if ParsesExactly(b) != (err == nil && env.Type.Known()) {
			t.Fatalf("ParsesExactly(%x) = %v, DecodeEnvelope error %v", b, ParsesExactly(b), err)
		}
		if h, ok := DecodeHead(b, TransformConfig{Mode: Off}); !ok || h != env.Head() {
			t.Fatalf("DecodeHead(%x) = %+v, %v; want %+v, true", b, h, ok, env.Head())
		}
		// With the settings unknown: classified as Untransform classifies.
		u, _ := Untransform(b, TransformConfig{})
		checkHead(t, b, TransformConfig{}, u)
		checkExact(t, b)
		checkValuesTo(t, b)
		if err != nil || !env.Type.Known() {
			return
		}
		var again []byte
		switch env.Type {
		case Request:
			again = EncodeRequest(env.RequestID, env.ServiceID, env.MethodID, env.Payload)
		case Response:
			again = EncodeResponse(env.RequestID, env.Status, env.Payload, env.Error)
			if env.HasError && env.Error == "" || env.HasError && b[len(b)-len(env.Error)-5] != 1 {
				return // has_error with an empty text, or a has_error byte other than 1
			}
		case Push:
			again = EncodePush(env.ServiceID, env.MethodID, env.Payload)
		default:
			again = EncodeKeepAlive(env.Type, env.Ticks)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoded %x = %x", b, again)
		}
	})
}

// checkExact: EnvelopeExact reads what the reader's bare decoding reads,
// values and findings, for every frame headExact takes; the others it
// leaves to it.
func checkExact(t *testing.T, b []byte) {
	t.Helper()
	var h Head
	e, ok := EnvelopeExact(b)
	if ok != headExact(b, &h) {
		t.Fatalf("EnvelopeExact(%x) ok %v; headExact %v", b, ok, !ok)
	}
	if !ok {
		return
	}
	want, err := decodeEnvelope(b, nil, true)
	if err != nil || !reflect.DeepEqual(e, want) {
		t.Fatalf("EnvelopeExact(%x) = %+v; decoded %+v (error %v)", b, e, want, err)
	}
	if cap(e.Payload) != cap(want.Payload) {
		t.Fatalf("EnvelopeExact(%x) payload cap %d; decoded %d", b, cap(e.Payload), cap(want.Payload))
	}
	if v, _ := DecodeEnvelopeValues(b); !reflect.DeepEqual(v, want) {
		t.Fatalf("DecodeEnvelopeValues(%x) = %+v; want %+v", b, v, want)
	}
	l, ok := EnvelopeLayout(b)
	want.Error, want.Findings = "", nil
	if !ok || !reflect.DeepEqual(l, want) {
		t.Fatalf("EnvelopeLayout(%x) = %+v, %v; want %+v", b, l, ok, want)
	}
}

// checkValuesTo: DecodeEnvelopeValuesTo sets all of an Envelope, one
// used before included, to DecodeEnvelopeValues's reading.
func checkValuesTo(t *testing.T, b []byte) {
	t.Helper()
	want, werr := DecodeEnvelopeValues(b)
	for _, used := range []Envelope{{}, {Type: Response, RequestID: 7, ServiceID: 1, MethodID: 2, Status: 9, Payload: []byte{1}, PayloadOff: 3,
		HasError: true, Error: "e", ErrorUTF8: true, Ticks: 5, Fields: []dissect.Field{{Name: "x"}}, Findings: []dissect.Finding{{Text: "y"}}}} {
		env := used
		err := DecodeEnvelopeValuesTo(&env, b)
		if !reflect.DeepEqual(env, want) || (err == nil) != (werr == nil) {
			t.Fatalf("DecodeEnvelopeValuesTo(%x) = %+v, %v; want %+v, %v", b, env, err, want, werr)
		}
	}
}

// FuzzTransform: no panic, the inflate cap holds, and whatever decrypts
// came from the key.
func FuzzTransform(f *testing.F) {
	addSeeds(f)
	k := DeriveKeys(testMaster, HKDF)
	f.Fuzz(func(t *testing.T, b []byte, mode byte) {
		u, err := Untransform(b, TransformConfig{Mode: Mode(mode % 4), Keys: &k, MaxInflate: 1 << 16})
		if err == nil && len(u.Envelope) > 1<<16 && u.Gzip {
			t.Fatalf("inflated %d bytes past the cap", len(u.Envelope))
		}
		if u.Decrypted && !hmacOK(b, &k) {
			t.Fatalf("decrypted without a valid HMAC")
		}
		if err != nil && len(u.Findings) == 0 && !errors.Is(err, ErrNoKey) {
			t.Fatalf("error %v without a finding", err)
		}
		cfg := TransformConfig{Mode: Mode(mode % 4), Keys: &k, MaxInflate: 1 << 16}
		if mode&4 != 0 {
			cfg.Keys = nil
			u, _ = Untransform(b, cfg)
		}
		checkHead(t, b, cfg, u)
	})
}

// FuzzMemoryPack: the schemaless cut, the typed decode and the payload
// detection never panic, and a cut's members lie inside the input.
func FuzzMemoryPack(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if o, err := CutMemoryPack(b); err == nil {
			for _, fd := range o.Fields("p", 0) {
				if fd.Bit < 0 || fd.End() > 8*len(b) {
					t.Fatalf("field %s outside the input", fd.Name)
				}
			}
		}
		for _, name := range []string{"LoginRequest", "Plain"} {
			DecodeMemoryPack(b, 0, testDTOs[name], testDTOs, "payload")
		}
		DecodePayload(b, 0, PayloadConfig{Type: testDTOs["LoginRequest"], Types: testDTOs})
	})
}

// FuzzStream: any chunking gives the same frames.
func FuzzStream(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, split uint16) {
		run := func(cut int) (out [][]byte) {
			s := NewStream(StreamConfig{ResyncMaxLen: 256})
			y := func(fr []byte, _ FrameInfo) { out = append(out, bytes.Clone(fr)) }
			s.Feed(b[:cut], y)
			s.Feed(b[cut:], y)
			s.End(y)
			st := s.Stats()
			if st.Fed != st.Framed+st.Skipped+st.Dropped+4*st.Closes+st.Buffered {
				t.Fatalf("stats %+v", st)
			}
			return out
		}
		whole, parts := run(len(b)), run(int(split)%(len(b)+1))
		if fmt.Sprint(whole) != fmt.Sprint(parts) {
			t.Fatalf("split %d: %x; whole %x", split, parts, whole)
		}
	})
}

// FuzzContracts: the C# reader never panics on any text.
func FuzzContracts(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		c, _ := ParseContracts([]SourceFile{{Name: "f.cs", Text: []byte(src)}})
		if c != nil {
			SchemaTOML(c)
		}
	})
}

// FuzzWebSocketMid: ULinkRPC's search for WebSocket framing joined
// mid-stream (FindWSFrames, its evidence wsFrame) reads only what it is
// given and finds an offset inside it, and a decoder started mid-stream on
// it never panics. (The decoder's resynchronisation after gaps and at
// Abandon is fuzzed with a toy judge in decode/transport/websocket.)
func FuzzWebSocketMid(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, split uint16) {
		for _, masked := range []bool{false, true} {
			for _, final := range []bool{false, true} {
				if off, found, decided := FindWSFrames(b, masked, final); found && (off >= len(b) || !decided) {
					t.Fatalf("FindWSFrames(masked %v, final %v) = %d, %v, %v of %d bytes", masked, final, off, found, decided, len(b))
				}
			}
		}
		if h, err := websocket.ParseHeader(b); err == nil {
			wsFrame(h, b[h.Size:h.Size+int(min(h.Len, uint64(len(b)-h.Size)))])
		}
		m := split&1 != 0
		w := NewWebSocket(WSConfig{MidStream: true, Masked: &m})
		cut := int(split>>1) % (len(b) + 1)
		w.Feed(b[:cut], func(websocket.Event) {})
		w.Feed(b[cut:], func(websocket.Event) {})
		w.End(func(websocket.Event) {})
	})
}
