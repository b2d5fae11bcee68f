package feed

import (
	"encoding/binary"
	"testing"

	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// wsClient is a masked binary WebSocket frame carrying b.
func wsClient(b []byte) []byte {
	mask := []byte{1, 2, 3, 4}
	out := []byte{0x82, 0x80 | byte(len(b))}
	if len(b) >= 126 {
		out = append([]byte{0x82, 0x80 | 126}, byte(len(b)>>8), byte(len(b)))
	}
	out = append(out, mask...)
	for i, c := range b {
		out = append(out, c^mask[i&3])
	}
	return out
}

// TestDetectULinkRPC: a length-prefixed frame (plain, flags, gzip) and a
// WebSocket upgrade carrying one match once whole and are undecided
// before; other first bytes differ from the first byte that shows it.
func TestDetectULinkRPC(t *testing.T) {
	req := ulinkrpc.AppendFrame(nil, ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{"a":1}`)))
	flags := ulinkrpc.AppendFrame(nil, append([]byte{0}, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 5)...))
	head := []byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	ws := append(append([]byte(nil), head...), wsClient(req)...)
	for _, full := range [][]byte{req, flags, ws} {
		for n := 0; n < len(full); n++ {
			if v := Detect(full[:n]); v != undecided {
				t.Fatalf("detect(first %d of % x) = %d; want undecided", n, full, v)
			}
		}
		if v := Detect(full); v != matches {
			t.Errorf("detect(% x) = %d; want matches", full, v)
		}
	}
	bad := binary.BigEndian.AppendUint32(nil, 9)
	bad = append(bad, 1, 2, 3, 4, 5, 6, 7, 8, 9) // a Request shorter than its header
	for _, tt := range []struct {
		in   []byte
		want verdict
	}{
		{[]byte{0x03, 0xcd}, differs},        // a GetWorkshopFiles
		{[]byte("*3\r\n$3\r\nSET"), differs}, // Redis
		{[]byte{0, 0, 0x40}, differs},        // a first frame past Need
		{[]byte{0, 0, 0, 0}, differs},        // a close before any frame
		{[]byte{0, 0, 0, 9, 7}, differs},     // no frame type 7
		{bad, differs},
		{[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), differs},      // no upgrade
		{append(append([]byte(nil), head...), 0x81, 0x80), differs}, // a text frame
	} {
		if v := Detect(tt.in); v != tt.want {
			t.Errorf("detect(% x) = %d; want %d", tt.in, v, tt.want)
		}
	}
	if transport(ws) != rpc.WebSocket || transport(req) != rpc.TCP {
		t.Errorf("transport of the upgrade %s, of the frame %s", transport(ws), transport(req))
	}
}
