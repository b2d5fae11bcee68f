package rpc

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// sameLight fails unless light, a light session (Config.Light) fed what
// full was fed, adds up to full's `tables --json` entry (tables, record
// count, connection findings with their n) and events, and keeps no
// records.
func sameLight(t *testing.T, full, light *Session) {
	t.Helper()
	if !light.cfg.Light || full.cfg.Light {
		t.Fatalf("light session %v, full session %v; want true, false", light.cfg.Light, full.cfg.Light)
	}
	if got, want := AppendConnJSON(nil, light), AppendConnJSON(nil, full); !bytes.Equal(got, want) {
		t.Fatalf("light session's tables entry\n%s\nwant the full session's\n%s", got, want)
	}
	if !reflect.DeepEqual(light.Events(), full.Events()) {
		t.Fatalf("light session's events %v; want %v", light.Events(), full.Events())
	}
	if len(light.Records()) != 0 || len(light.Pending()) != 0 {
		t.Fatalf("light session keeps %d records and %d pending; want none", len(light.Records()), len(light.Pending()))
	}
}

// TestLightSame: a light session adds up to a full session's tables,
// record count and connection findings (the pending notes with their
// method names, the transform classification, the forgotten askers) over
// the golden conversations, plain, compressed and encrypted (with the key,
// without it, with a wrong one), with and without contracts, cut into
// chunks of every size, mid-stream after garbage, and past a bound of two
// open askers.
func TestLightSame(t *testing.T) {
	keys := ulinkrpc.DeriveKeys([]byte("fixture master key"), ulinkrpc.HKDF)
	wrong := ulinkrpc.DeriveKeys([]byte("not the key"), ulinkrpc.HKDF)
	steps := append(conversation(),
		step{dissect.C2S, 3000, ulinkrpc.EncodeRequest(4, 1, 1, loginMP("bob", 3))},
		step{dissect.C2S, 3100, ulinkrpc.EncodeRequest(5, 7, 9, nil)}, // never answered, no name
		step{dissect.C2S, 3150, ulinkrpc.EncodeRequest(4, 1, 2, nil)}, // the same request_id again
		step{dissect.S2C, 3180, ulinkrpc.EncodeResponse(4, ulinkrpc.StatusOk, nil, "")},
		step{dissect.S2C, 3200, ulinkrpc.EncodeResponse(6, ulinkrpc.Status(9), nil, "")}, // nothing to pair
		step{dissect.C2S, 3300, ulinkrpc.EncodeRequest(7, 1, 1, nil)},
		step{dissect.S2C, 3310, ulinkrpc.EncodeResponse(7, ulinkrpc.Status(9), nil, "odd")}, // an unknown status
		step{dissect.C2S, 3400, append(ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 7), 0)},
		step{dissect.S2C, 3450, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 99)}, // the oldest Ping
		step{dissect.C2S, 3500, []byte{9, 1, 2}},
		step{dissect.S2C, 3600, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 1)}, // nothing to pair
		step{dissect.S2C, 3700, ulinkrpc.EncodePush(1, 1, nil)},
		step{dissect.S2C, 3800, ulinkrpc.EncodePush(3, 3, nil)},
	)
	transformed := func(opt ulinkrpc.TransformOptions) []step {
		var out []step
		for i, st := range steps {
			if i%3 != 2 || opt.Keys != nil {
				st.env = ulinkrpc.ApplyTransform(st.env, opt)
			}
			out = append(out, st)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		cfg   Config
		steps []step
	}{
		{"plain", Config{Contracts: contracts(t)}, steps},
		{"nonames", Config{}, steps},
		{"off", Config{Contracts: contracts(t), Transform: ulinkrpc.TransformConfig{Mode: ulinkrpc.Off}}, steps},
		{"bound", Config{Contracts: contracts(t), MaxOpen: 2}, steps},
		{"gzip-mixed", Config{Contracts: contracts(t)}, transformed(ulinkrpc.TransformOptions{Compress: true, Threshold: 16})},
		{"encrypted", Config{Contracts: contracts(t), Transform: ulinkrpc.TransformConfig{Keys: &keys}}, transformed(ulinkrpc.TransformOptions{Keys: &keys})},
		{"encrypted-nokey", Config{Contracts: contracts(t)}, transformed(ulinkrpc.TransformOptions{Keys: &keys})},
		{"encrypted-wrongkey", Config{Contracts: contracts(t), Transform: ulinkrpc.TransformConfig{Keys: &wrong}}, transformed(ulinkrpc.TransformOptions{Keys: &keys})},
		{"on", Config{Contracts: contracts(t), Transform: ulinkrpc.TransformConfig{Mode: ulinkrpc.On}}, transformed(ulinkrpc.TransformOptions{Compress: true, Threshold: 16})},
	} {
		for _, cut := range []int{0, 1, 3, 7} {
			full := New(testConn, tc.cfg)
			play(full, tc.steps, cut)
			cfg := tc.cfg
			cfg.Light = true
			light := New(testConn, cfg)
			play(light, tc.steps, cut)
			t.Run(fmt.Sprintf("%s/cut%d", tc.name, cut), func(t *testing.T) { sameLight(t, full, light) })
		}
	}
	// Mid-stream, after bytes that are no frame: resynchronised alike.
	for _, cfg := range []Config{{MidStream: true}, {MidStream: true, Light: true}} {
		s := New(testConn, cfg)
		s.Bytes(dissect.C2S, []byte{0xde, 0xad, 0xbe, 0xef, 0, 0}, stamp(1, 1))
		play(s, steps, 5)
		if cfg.Light {
			full := New(testConn, Config{MidStream: true})
			full.Bytes(dissect.C2S, []byte{0xde, 0xad, 0xbe, 0xef, 0, 0}, stamp(1, 1))
			play(full, steps, 5)
			sameLight(t, full, s)
		}
	}
}

// TestLightRecycle: a light session's records go back to it once numbered
// (Recycle) and the next frames reuse them: a steady exchange of calls,
// answers, pushes and keep-alives allocates nothing per frame once its
// tables have their entries.
func TestLightRecycle(t *testing.T) {
	s := New(testConn, Config{Contracts: contracts(t), Light: true})
	var chunk []byte
	for _, env := range [][]byte{
		ulinkrpc.EncodeRequest(1, 1, 1, []byte(`{}`)),
		ulinkrpc.EncodeResponse(1, ulinkrpc.StatusOk, nil, ""),
		ulinkrpc.EncodePush(1, 1, nil),
		ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, 3),
	} {
		chunk = append(chunk, wire(env)...)
	}
	pong := wire(ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, 3))
	frame := 0
	exchange := func() {
		frame++
		s.Bytes(dissect.C2S, chunk, stamp(frame, frame))
		s.Bytes(dissect.S2C, pong, stamp(frame, frame))
	}
	for range 2000 {
		exchange() // the tables' latency lists grow to their size
	}
	if n := testing.AllocsPerRun(200, exchange); n != 0 {
		t.Errorf("a light session allocates %.1f times per exchange of five frames; want 0", n)
	}
	if got, want := s.Len(), 5*(2000+201); got != want {
		t.Errorf("Len() = %d; want %d", got, want)
	}
}
