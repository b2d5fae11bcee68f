package ulinkrpc

import (
	"encoding/json"
	"slices"
	"testing"
)

// payloadFindingsCases are payloads of every kind PayloadFindings tells
// apart: empty, JSON (with leading space), MemoryPack that cuts, bytes
// that do neither, a JSON-looking start that is not JSON.
var payloadFindingsCases = [][]byte{
	nil, {}, []byte(`{"Account":"ann","Tags":[1,2.5],"Ok":true,"N":null}`), []byte(" \t\n\r[1, 2]"), []byte(`7`),
	[]byte(`"x"`), []byte(`-`), []byte(`{"a":`), []byte("\"\xff\""), []byte(`nul`), []byte(` `), vecLogin,
	{0xfa, 1}, {0xff}, {0}, {0x20, 1}, {'{', 0xff},
}

// payloadFindingsConfigs are the configurations PayloadFindings is
// checked under: each serializer, with and without a schema.
var payloadFindingsConfigs = []PayloadConfig{
	{}, {Serializer: SerializerJSON}, {Serializer: SerializerMemoryPack},
	{Type: testDTOs["LoginRequest"], Types: testDTOs}, {Serializer: SerializerMemoryPack, Type: testDTOs["Plain"], Types: testDTOs},
}

// PayloadFindings gives DecodePayload's findings with FindingsOnly, for
// every serializer, with and without a schema.
func TestPayloadFindings(t *testing.T) {
	for _, b := range payloadFindingsCases {
		samePayloadFindings(t, b)
	}
}

// FuzzPayloadFindings: PayloadFindings is DecodePayload's findings,
// jsonStart is true for every JSON value.
func FuzzPayloadFindings(f *testing.F) {
	for _, b := range payloadFindingsCases {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		samePayloadFindings(t, b)
		if json.Valid(b) && !jsonStart(b) {
			t.Fatalf("jsonStart(%q) = false for a JSON value", b)
		}
	})
}

func samePayloadFindings(t *testing.T, b []byte) {
	t.Helper()
	for _, cfg := range payloadFindingsConfigs {
		want := cfg
		want.FindingsOnly = true
		w := DecodePayload(b, 17, want).Findings
		got := PayloadFindings(nil, b, 17, cfg)
		if !slices.Equal(got, w) {
			t.Errorf("PayloadFindings(%q, %+v) = %v; want %v", b, cfg.Serializer, got, w)
		}
	}
}
