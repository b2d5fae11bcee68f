package ulinkrpc

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
)

// h decodes hex with spaces, newlines and "#" comments to the line's end.
func h(s string) []byte {
	var clean strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line, _, _ = strings.Cut(line, "#")
		clean.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(clean.String())
	if err != nil {
		panic(err)
	}
	return b
}

// Spec vectors (ulinkrpc.md 4), annotated.
var (
	// Request #7, service 1, method 2, JSON {"A":1}.
	vecRequest = h(`
		01           # type Request
		00000007     # request_id 7
		00000001     # service_id 1
		00000002     # method_id 2
		00000007     # length 7
		7b2241223a317d # {"A":1}`)
	// Response #7, HandlerError, empty payload, error "boom".
	vecResponseErr = h(`
		02           # type Response
		00000007     # request_id 7
		02           # status HandlerError
		00000000     # length 0
		01           # has_error
		00000004     # error_length 4
		626f6f6d     # "boom"`)
	// Response #7, Ok, payload 01 02, no error.
	vecResponseOk = h(`02 00000007 00 00000002 0102 00`)
	// Push service 3, method 1, payload ff (a null MemoryPack object).
	vecPush = h(`03 00000003 00000001 00000001 ff`)
	// KeepAlivePing and Pong, ticks 0x08dc...
	vecPing = h(`04 08dcb1f6a1b2c3d4`)
	vecPong = h(`05 08dcb1f6a1b2c3d4`)
)

var validFrames = map[string][]byte{
	"request": vecRequest, "response-error": vecResponseErr, "response-ok": vecResponseOk,
	"push": vecPush, "ping": vecPing, "pong": vecPong,
}

func fieldList(fs []dissect.Field) string {
	var b strings.Builder
	for _, f := range fs {
		if v, ok := f.Value.([]byte); ok {
			fmt.Fprintf(&b, "%s@%d+%d=%x ", f.Name, f.Bit/8, f.Bits/8, v)
			continue
		}
		fmt.Fprintf(&b, "%s@%d+%d=%v ", f.Name, f.Bit/8, f.Bits/8, f.Value)
	}
	return strings.TrimSpace(b.String())
}

func TestDecodeEnvelope(t *testing.T) {
	tests := []struct {
		name   string
		in     []byte
		fields string
	}{
		{"request", vecRequest, `type@0+1=1 request_id@1+4=7 service_id@5+4=1 method_id@9+4=2 length@13+4=7 payload@17+7=7b2241223a317d`},
		{"response-error", vecResponseErr, `type@0+1=2 request_id@1+4=7 status@5+1=2 length@6+4=0 payload@10+0= has_error@10+1=true error_length@11+4=4 error@15+4=boom`},
		{"response-ok", vecResponseOk, `type@0+1=2 request_id@1+4=7 status@5+1=0 length@6+4=2 payload@10+2=0102 has_error@12+1=false`},
		{"push", vecPush, `type@0+1=3 service_id@1+4=3 method_id@5+4=1 length@9+4=1 payload@13+1=ff`},
		{"ping", vecPing, `type@0+1=4 ticks@1+8=638580920012686292`},
		{"pong", vecPong, `type@0+1=5 ticks@1+8=638580920012686292`},
	}
	for _, tt := range tests {
		env, err := DecodeEnvelope(tt.in)
		if err != nil {
			t.Errorf("DecodeEnvelope(%s) error %v", tt.name, err)
			continue
		}
		if got := fieldList(env.Fields); got != tt.fields {
			t.Errorf("DecodeEnvelope(%s) fields = %s; want %s", tt.name, got, tt.fields)
		}
		if len(env.Findings) != 0 {
			t.Errorf("DecodeEnvelope(%s) findings = %v; want none", tt.name, env.Findings)
		}
	}
}

func TestEnvelopeValues(t *testing.T) {
	env, _ := DecodeEnvelope(vecResponseErr)
	if env.Type != Response || env.RequestID != 7 || env.Status != StatusHandlerError || !env.HasError || env.Error != "boom" || !env.ErrorUTF8 {
		t.Errorf("DecodeEnvelope(response-error) = %+v", env)
	}
	env, _ = DecodeEnvelope(vecPing)
	if env.Ticks != 0x08dcb1f6a1b2c3d4 {
		t.Errorf("DecodeEnvelope(ping).Ticks = %#x; want 0x08dcb1f6a1b2c3d4", env.Ticks)
	}
}

func TestEnvelopeErrors(t *testing.T) {
	tests := []struct {
		in   []byte
		err  error
		text string
	}{
		{nil, ErrShort, "ulinkrpc envelope: type: need 1 byte at byte 0, have 0"},
		{h(`01 0000`), ErrShort, "ulinkrpc envelope: request_id: need 4 bytes at byte 1, have 2"},
		{h(`01 00000001 00000001 00000001 ffffffff`), ErrInvalidLength, "ulinkrpc envelope: length: invalid length -1 (0..67108864) at byte 13"},
		{h(`01 00000001 00000001 00000001 04000001`), ErrInvalidLength, "ulinkrpc envelope: length: invalid length 67108865 (0..67108864) at byte 13"},
		{h(`01 00000001 00000001 00000001 00000005 0102`), ErrShort, "ulinkrpc envelope: payload: need 5 bytes at byte 17, have 2"},
		{append(bytes.Clone(vecRequest), 0), ErrTrailing, "ulinkrpc envelope: Request: 1 trailing bytes at byte 24"},
		{append(bytes.Clone(vecPing), 0, 0), ErrTrailing, "ulinkrpc envelope: KeepAlivePing: 2 trailing bytes at byte 9"},
		{h(`02 00000001 00 00000000`), ErrShort, "ulinkrpc envelope: has_error: need 1 byte at byte 10, have 0"},
		{h(`02 00000001 00 00000000 01 00000009 41`), ErrShort, "ulinkrpc envelope: error: need 9 bytes at byte 15, have 1"},
		{h(`02 00000001 00 00000000 01 80000000`), ErrInvalidLength, "ulinkrpc envelope: error_length: invalid length -2147483648 (0..67108864) at byte 11"},
	}
	for _, tt := range tests {
		env, err := DecodeEnvelope(tt.in)
		if !errors.Is(err, tt.err) || err.Error() != tt.text {
			t.Errorf("DecodeEnvelope(%x) = %v; want %s", tt.in, err, tt.text)
		}
		if n := len(env.Findings); n == 0 || env.Findings[n-1].Severity != dissect.Error {
			t.Errorf("DecodeEnvelope(%x) findings = %v; want an error last", tt.in, env.Findings)
		}
	}
}

func TestEnvelopeNotes(t *testing.T) {
	tests := []struct {
		in   []byte
		text string
		sev  dissect.Severity
	}{
		{h(`09 0102`), "envelope: unknown frame type 9: the receiver ignores the frame", dissect.Note},
		{h(`02 00000001 07 00000000 00`), "envelope: unknown status 7", dissect.Note},
		{h(`02 00000001 02 00000000 01 00000002 c328`), "envelope: error: invalid UTF-8", dissect.Error},
	}
	for _, tt := range tests {
		env, err := DecodeEnvelope(tt.in)
		if err != nil || len(env.Findings) != 1 || env.Findings[0].Text != tt.text || env.Findings[0].Severity != tt.sev {
			t.Errorf("DecodeEnvelope(%x) = %v, %v; want one %v %q", tt.in, env.Findings, err, tt.sev, tt.text)
		}
	}
}

// Every shorter cut of a valid frame fails cleanly (x/net quicwire).
func TestEnvelopeCuts(t *testing.T) {
	for name, frame := range validFrames {
		for n := range len(frame) {
			_, err := DecodeEnvelope(frame[:n])
			if !errors.Is(err, ErrShort) && !errors.Is(err, ErrInvalidLength) {
				t.Errorf("DecodeEnvelope(%s[:%d]) = %v; want a short or length error", name, n, err)
			}
			if ParsesExactly(frame[:n]) {
				t.Errorf("ParsesExactly(%s[:%d]) = true; want false", name, n)
			}
		}
		if !ParsesExactly(frame) {
			t.Errorf("ParsesExactly(%s) = false; want true", name)
		}
	}
}

func TestEncodeEnvelope(t *testing.T) {
	tests := []struct {
		got, want []byte
	}{
		{EncodeRequest(7, 1, 2, []byte(`{"A":1}`)), vecRequest},
		{EncodeResponse(7, StatusHandlerError, nil, "boom"), vecResponseErr},
		{EncodeResponse(7, StatusOk, []byte{1, 2}, ""), vecResponseOk},
		{EncodePush(3, 1, []byte{0xff}), vecPush},
		{EncodeKeepAlive(KeepAlivePing, 0x08dcb1f6a1b2c3d4), vecPing},
	}
	for _, tt := range tests {
		if !bytes.Equal(tt.got, tt.want) {
			t.Errorf("encode = %x; want %x", tt.got, tt.want)
		}
	}
}

func TestEnumStrings(t *testing.T) {
	tests := []struct{ got, want string }{
		{Request.String(), "Request"}, {FrameType(0).String(), "Unknown(0)"}, {FrameType(23).String(), "Unknown(23)"},
		{StatusProtocolError.String(), "ProtocolError"}, {Status(6).String(), "Unknown(6)"},
		{ClassGzip.String(), "gzip"}, {SHA256.String(), "sha256"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("String() = %s; want %s", tt.got, tt.want)
		}
	}
}
