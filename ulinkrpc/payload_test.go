package ulinkrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var testDTOs = DTOs{
	"LoginRequest": {Name: "LoginRequest", VersionTolerant: true, Members: []DTOMember{
		{Order: 0, Name: "Account", Type: "string"}, {Order: 1, Name: "Level", Type: "int"},
		{Order: 2, Name: "Items", Type: "list:Item"}, {Order: 3, Name: "Score", Type: "double"}}},
	"Item":  {Name: "Item", VersionTolerant: true, Members: []DTOMember{{Order: 0, Name: "Id", Type: "long"}, {Order: 1, Name: "Tags", Type: "string[]"}}},
	"Plain": {Name: "Plain", Members: []DTOMember{{Order: 0, Name: "A", Type: "short"}, {Order: 1, Name: "B", Type: "bool"}}},
}

// vecLogin is LoginRequest{Account "ann", Level 5, Items [{7, ["x"]}], Score 1.5}:
//
//	04 0b 04 1c 08            member count 4, lengths 11, 4, 28, 8
//	fcffffff 03000000 616e6e  Account: ~3, UTF-16 length 3, "ann"
//	05000000                  Level 5
//	01000000 02 08 0d ...     Items: count 1, Item{Id 7, Tags ["x"]}
//	000000000000f83f          Score 1.5
var vecLogin = MPEncodeObject(true, MPString("ann"), MPInt32(5),
	MPList(MPEncodeObject(true, MPInt64(7), MPList(MPString("x")))), MPFloat64(1.5))

func TestMemoryPackVector(t *testing.T) {
	want := h(`04 0b 04 1c 08  fcffffff 03000000 616e6e  05000000
		01000000 02 08 0d 0700000000000000 01000000 feffffff 01000000 78  000000000000f83f`)
	if !bytes.Equal(vecLogin, want) {
		t.Errorf("MPEncodeObject(login) = %x; want %x", vecLogin, want)
	}
}

func TestDecodeMemoryPack(t *testing.T) {
	v, fs, finds, err := DecodeMemoryPack(vecLogin, 17, testDTOs["LoginRequest"], testDTOs, "payload")
	if err != nil || len(finds) != 0 {
		t.Fatalf("DecodeMemoryPack(login) = %v, %v", err, finds)
	}
	got, _ := json.Marshal(v)
	if want := `{"Account":"ann","Items":[{"Id":7,"Tags":["x"]}],"Level":5,"Score":1.5}`; string(got) != want {
		t.Errorf("DecodeMemoryPack(login) = %s; want %s", got, want)
	}
	wantFields := "payload.Account@22+11=ann payload.Level@33+4=5 payload.Items@37+28=<nil> payload.Items[0]@41+24=<nil> payload.Items[0].Id@44+8=7 payload.Items[0].Tags@52+13=<nil> payload.Items[0].Tags[0]@56+9=x payload.Score@65+8=1.5"
	if got := fieldList(fs); got != wantFields {
		t.Errorf("DecodeMemoryPack(login) fields = %s; want %s", got, wantFields)
	}
	// Every shorter cut fails cleanly.
	for n := range len(vecLogin) {
		if _, _, _, err := DecodeMemoryPack(vecLogin[:n], 0, testDTOs["LoginRequest"], testDTOs, "payload"); err == nil {
			t.Errorf("DecodeMemoryPack(cut %d) = nil error", n)
		}
	}
}

func TestDecodeMemoryPackErrors(t *testing.T) {
	tests := []struct {
		in   []byte
		dto  string
		want string
	}{
		{h(`02 04 02 05000000 0100`), "LoginRequest", "ulinkrpc memorypack: payload.Account: need 10 bytes at byte 7, have 0"},
		{h(`fa`), "Item", "ulinkrpc memorypack: payload: Item: member count 250 is not an object header (0..249, 255 null) at byte 0"},
		{h(`01 04 00000000`), "LoginRequest", ""},
		{h(`02 0100 01 00`), "Plain", "ulinkrpc memorypack: payload: 1 trailing bytes after Plain at byte 4"},
		{h(`01 7f`), "Item", "ulinkrpc memorypack: payload.0.length: member length 127 with 0 bytes left at byte 1"},
	}
	for _, tt := range tests {
		_, _, finds, err := DecodeMemoryPack(tt.in, 0, testDTOs[tt.dto], testDTOs, "payload")
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("DecodeMemoryPack(%x as %s) = %s (findings %v); want %s", tt.in, tt.dto, got, finds, tt.want)
		}
	}
}

func TestCutMemoryPack(t *testing.T) {
	o, err := CutMemoryPack(vecLogin)
	if err != nil {
		t.Fatalf("CutMemoryPack(login) = %v", err)
	}
	var guesses []string
	for _, m := range o.Members {
		guesses = append(guesses, fmt.Sprintf("%d@%d+%d %s", m.Index, m.Off, m.Len, m.Guess))
	}
	want := `0@5+11 string "ann"; 1@16+4 i32 5 / f32 7e-45; 2@20+28 list of 1 objects; 3@48+8 i64 4609434218613702656 / f64 1.5`
	if got := strings.Join(guesses, "; "); got != want {
		t.Errorf("CutMemoryPack(login) = %s; want %s", got, want)
	}
	wantFields := `payload.0@5+11=ann payload.1@16+4=5 payload.2@20+28=<nil> payload.2[0]@24+24=<nil> payload.2[0].0@27+8=7 payload.2[0].1@35+13=["x"] payload.3@48+8=4609434218613702656`
	if got := fieldList(o.Fields("payload", 0)); got != wantFields {
		t.Errorf("Fields = %s; want %s", got, wantFields)
	}
	for n := range len(vecLogin) {
		if _, err := CutMemoryPack(vecLogin[:n]); err == nil {
			t.Errorf("CutMemoryPack(cut %d) = nil error", n)
		}
	}
	if _, err := CutMemoryPack(append(bytes.Clone(vecLogin), 0)); !errors.Is(err, ErrTrailing) {
		t.Errorf("CutMemoryPack(trailing) = %v; want ErrTrailing", err)
	}
}

func TestDecodePayload(t *testing.T) {
	tests := []struct {
		in     []byte
		cfg    PayloadConfig
		enc    Encoding
		fields string
	}{
		{nil, PayloadConfig{}, EncodingEmpty, ""},
		{[]byte(`{"Account":"ann","Tags":[1,2.5],"Ok":true,"N":null}`), PayloadConfig{}, EncodingJSON,
			"payload@17+51=<nil> payload.Account@28+5=ann payload.Tags@41+7=<nil> payload.Tags[0]@42+1=1 payload.Tags[1]@44+3=2.5 payload.Ok@54+4=true payload.N@63+4=<nil>"},
		{vecLogin, PayloadConfig{Type: testDTOs["LoginRequest"], Types: testDTOs}, EncodingMemoryPack, ""},
		{vecLogin, PayloadConfig{}, EncodingMemoryPack, ""},
		{[]byte{0xfa, 1}, PayloadConfig{}, EncodingRaw, ""},
		{vecLogin, PayloadConfig{Serializer: SerializerJSON}, EncodingRaw, ""},
		{[]byte(`7`), PayloadConfig{Serializer: SerializerMemoryPack}, EncodingRaw, ""},
	}
	for _, tt := range tests {
		p := DecodePayload(tt.in, 17, tt.cfg)
		if p.Encoding != tt.enc || p.Bytes != len(tt.in) {
			t.Errorf("DecodePayload(%.16x, %+v) = %v; want %v", tt.in, tt.cfg.Serializer, p.Encoding, tt.enc)
		}
		if tt.fields != "" && fieldList(p.Fields) != tt.fields {
			t.Errorf("DecodePayload(%s) fields = %s; want %s", tt.in, fieldList(p.Fields), tt.fields)
		}
	}
}

// Guessing nested shapes is bounded: every member is tried as an object and
// as a list of objects, which without a budget is exponential in depth.
func TestCutMemoryPackDeep(t *testing.T) {
	v := MPEncodeObject(true, MPInt32(1), MPInt32(2))
	for range 30 {
		v = MPEncodeObject(true, MPList(v), MPInt32(3))
	}
	start := time.Now()
	o, err := CutMemoryPack(v)
	if err != nil || len(o.Members) != 2 {
		t.Fatalf("CutMemoryPack(deep) = %d members, %v", len(o.Members), err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("CutMemoryPack(deep %d bytes) took %v", len(v), d)
	}
}
