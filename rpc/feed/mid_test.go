package feed

import (
	"testing"

	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/rpc"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// TestMidTransport: a ULinkRPC connection joined mid-stream is a WebSocket
// when either direction shows WebSocket frames as a ULinkRPC peer writes
// them, TCP when either shows chained length-prefixed frames, undecided
// while too few bytes say neither, and TCP at the end when nothing shows.
func TestMidTransport(t *testing.T) {
	var raw, client, server []byte
	key := [4]byte{0xa1, 0x02, 0x5c, 0x77}
	for i := range 30 {
		msg := ulinkrpc.AppendFrame(nil, ulinkrpc.EncodeRequest(uint32(i+1), 1, 1, []byte(`{"Account":"ann"}`)))
		raw = append(raw, msg...)
		client = websocket.EncodeFrame(client, websocket.OpBinary, true, &key, msg)
		server = websocket.EncodeFrame(server, websocket.OpBinary, true, nil, msg)
	}
	for _, tt := range []struct {
		name     string
		c2s, s2c []byte
		final    bool
		want     rpc.Transport
		ok       bool
	}{
		{"masked client frames, cut", client[7:], nil, false, rpc.WebSocket, true},
		{"unmasked server frames, cut", nil, server[3:], false, rpc.WebSocket, true},
		{"raw frames, cut", raw[30:], nil, false, rpc.TCP, true},
		{"raw frames both ways", raw[2:], raw[5:], false, rpc.TCP, true},
		{"server frames from the client side", server[3:], nil, true, rpc.TCP, true},
		{"a few bytes", client[7:12], nil, false, rpc.TCP, false},
		{"a few bytes at the end", client[7:12], nil, true, rpc.TCP, true},
		{"nothing", nil, nil, false, rpc.TCP, false},
	} {
		got, ok := midTransport(tt.c2s, tt.s2c, tt.final)
		if got != tt.want || ok != tt.ok {
			t.Errorf("midTransport(%s) = %s, %v; want %s, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
