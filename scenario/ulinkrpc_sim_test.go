package scenario

import (
	"bytes"
	"context"
	"encoding/binary"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/kcp"
	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// simTap records what each side of each connection read off its socket.
type simTap struct {
	mu sync.Mutex
	// got[conn][dir]: TCP stream bytes, or UDP datagrams one an entry.
	got map[int]*[2][][]byte
}

func (st *simTap) tap(conn int, d dissect.Dir, b []byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.got[conn] == nil {
		st.got[conn] = &[2][][]byte{}
	}
	st.got[conn][d] = append(st.got[conn][d], bytes.Clone(b))
}

// runSimRPC simulates a fixture scenario on a free loopback port in real
// time (the fixtures' gaps are a millisecond) and returns it with what
// each side read.
func runSimRPC(t *testing.T, path string) (*RPC, *simTap, SimResult, string) {
	t.Helper()
	sc, err := ReadRPCFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st := &simTap{got: map[int]*[2][][]byte{}}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sim := &Sim{Addr: "127.0.0.1:0", Log: &log, tap: st.tap}
	res, err := sim.RunRPC(ctx, sc)
	if err != nil {
		t.Fatalf("RunRPC(%s): %v\n%s", path, err, log.String())
	}
	return sc, st, res, log.String()
}

// scriptOf returns connection i's sends by direction: the frame stream
// bytes (binary sends) and the WebSocket control frames.
func scriptOf(t *testing.T, sc *RPC, i int) (stream [2][]byte, msgs [2][][]byte, ctrl [2][]rpcSend, frames int) {
	t.Helper()
	sends, frames, err := sc.play(i)
	if err != nil {
		t.Fatal(err)
	}
	for _, sd := range sends {
		if sd.op != websocket.OpBinary {
			ctrl[sd.dir] = append(ctrl[sd.dir], sd)
			continue
		}
		stream[sd.dir] = append(stream[sd.dir], sd.data...)
		msgs[sd.dir] = append(msgs[sd.dir], sd.data)
	}
	return stream, msgs, ctrl, frames
}

func simFixtures(t *testing.T, transport string) []string {
	t.Helper()
	var out []string
	for _, f := range rpcScenarioFiles(t) {
		sc, err := ReadRPCFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if sc.U.Transport == transport {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s fixtures in %s", transport, rpcFixtures)
	}
	return out
}

// TestSimRPCTCP: over TCP each side reads exactly the other's frames,
// length-prefixed and transformed as the scenario says (segment shaping,
// gzip, the invalid prefix of tcp-json included).
func TestSimRPCTCP(t *testing.T) {
	for _, f := range simFixtures(t, "tcp") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sc, st, res, log := runSimRPC(t, f)
			var frames int
			for i := range sc.Conns {
				want, _, _, n := scriptOf(t, sc, i)
				frames += n
				for d := range want {
					if got := bytes.Join(st.got[i][d], nil); !bytes.Equal(got, want[d]) {
						t.Errorf("connection %d: %d bytes read %s; want the %d of the script", i+1, len(got), dissect.Dir(d), len(want[d]))
					}
					if res.Bytes[d] != int64(len(want[d])) {
						t.Errorf("RunRPC bytes %s = %d; want %d", dissect.Dir(d), res.Bytes[d], len(want[d]))
					}
				}
			}
			if res.Conns != len(sc.Conns) || res.Messages != frames || !strings.Contains(log, "all received") {
				t.Errorf("RunRPC = %+v, log %q; want %d connections, %d frames, all received", res, log, len(sc.Conns), frames)
			}
		})
	}
}

// TestSimRPCWebSocket: the WebSocket sides exchange a real upgrade (the
// accept value matches the key) and then each side's frames, decoded here
// by package ulinkrpc's WebSocket decoder: the data bytes are the script's
// frame stream and the control frames are its ping, pong and close.
func TestSimRPCWebSocket(t *testing.T) {
	for _, f := range simFixtures(t, "websocket") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sc, st, _, _ := runSimRPC(t, f)
			for i := range sc.Conns {
				want, _, ctrl, _ := scriptOf(t, sc, i)
				var keys [2]string
				for d := range want {
					masked := d == int(dissect.C2S)
					ws := ulinkrpc.NewWebSocket(ulinkrpc.WSConfig{Upgrade: true, Masked: &masked})
					var data []byte
					var got []string
					ws.Feed(bytes.Join(st.got[i][d], nil), func(ev websocket.Event) {
						switch ev.Kind {
						case websocket.EventData:
							data = append(data, ev.Data...)
						case websocket.EventUpgrade:
							keys[d] = ev.Upgrade.Header("Sec-WebSocket-Key") + ev.Upgrade.Header("Sec-WebSocket-Accept")
						case websocket.EventPing, websocket.EventPong:
							got = append(got, ev.Kind.String()+" "+string(ev.Data))
						case websocket.EventClose:
							got = append(got, "close "+string(binary.BigEndian.AppendUint16(nil, uint16(ev.Code)))+ev.Reason)
						default:
							got = append(got, ev.Kind.String())
						}
					})
					for _, f := range ws.Findings() {
						if f.Severity != dissect.Note {
							t.Errorf("connection %d %s: finding %v; want no warning or error", i+1, dissect.Dir(d), f)
						}
					}
					if !bytes.Equal(data, want[d]) {
						t.Errorf("connection %d: WebSocket data %s = %d bytes; want the script's %d", i+1, dissect.Dir(d), len(data), len(want[d]))
					}
					var wantCtrl []string
					for _, sd := range ctrl[d] {
						wantCtrl = append(wantCtrl, map[websocket.Opcode]string{websocket.OpPing: "ping ", websocket.OpPong: "pong ", websocket.OpClose: "close "}[sd.op]+string(sd.data))
					}
					if strings.Join(got, "|") != strings.Join(wantCtrl, "|") {
						t.Errorf("connection %d: WebSocket events %s = %q; want %q", i+1, dissect.Dir(d), got, wantCtrl)
					}
				}
				if keys[0] == "" || wsAccept(keys[0]) != keys[1] {
					t.Errorf("connection %d: Sec-WebSocket-Key %q answered with Sec-WebSocket-Accept %q; want %q", i+1, keys[0], keys[1], wsAccept(keys[0]))
				}
			}
		})
	}
}

// TestSimRPCKCP: the KCP sides open with UKCP/UACK for the scenario's
// conv and then carry each side's messages as PUSH segments, which package
// ulinkrpc's reassembler joins back into the script's frames; the
// scenario's retransmitted segments arrive twice and its reordered ones
// out of order, and every PUSH is acknowledged.
func TestSimRPCKCP(t *testing.T) {
	for _, f := range simFixtures(t, "kcp") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sc, st, _, _ := runSimRPC(t, f)
			for i := range sc.Conns {
				_, want, _, _ := scriptOf(t, sc, i)
				conv := sc.Conns[i].Conv
				var pushes [2]int64
				var acks [2]int64
				for d := range want {
					dgs := st.got[i][d]
					if len(dgs) == 0 {
						t.Fatalf("connection %d: nothing read %s", i+1, dissect.Dir(d))
					}
					h, ok := ulinkrpc.ParseHandshake(dgs[0])
					if !ok || h.Ack != (d == int(dissect.S2C)) || h.Conv != conv {
						t.Errorf("connection %d: first datagram %s = %x; want the handshake for conv %d", i+1, dissect.Dir(d), dgs[0], conv)
					}
					r := ulinkrpc.NewReassembler(kcp.Config{}, nil)
					r.Start(conv)
					var got [][]byte
					for _, dg := range dgs[1:] {
						if err := r.Datagram(dg, func(m kcp.Message) { got = append(got, bytes.Clone(m.Data)) }); err != nil {
							t.Errorf("connection %d: datagram %x: %v", i+1, dg, err)
						}
					}
					if len(got) != len(want[d]) || !bytes.Equal(bytes.Join(got, nil), bytes.Join(want[d], nil)) {
						t.Errorf("connection %d: KCP messages %s = %d (%d bytes); want the script's %d (%d bytes)", i+1, dissect.Dir(d), len(got), len(bytes.Join(got, nil)), len(want[d]), len(bytes.Join(want[d], nil)))
					}
					c := r.Counts(conv)
					pushes[d], acks[d] = c.Push-c.Duplicates, c.Ack
					if c.Duplicates < int64(countIn(sc.Transport.Retransmit, d, sc, i)) {
						t.Errorf("connection %d %s: %d duplicate PUSH segments; want at least the scenario's retransmissions", i+1, dissect.Dir(d), c.Duplicates)
					}
				}
				for d := range pushes {
					if acks[1-d] < pushes[d] {
						t.Errorf("connection %d: %d PUSH segments %s, %d ACKs back; want every one acknowledged", i+1, pushes[d], dissect.Dir(d), acks[1-d])
					}
				}
			}
		})
	}
}

// countIn counts the PUSH segment numbers of list sent in direction d on
// connection i (numbered from 1 across both directions in script order).
func countIn(list []int, d int, sc *RPC, i int) int {
	sends, _, _ := sc.play(i)
	n, count := 1, 0
	for _, sd := range sends {
		segs := max(1, (len(sd.data)+sc.U.MSS-1)/sc.U.MSS)
		for j := range segs {
			for _, k := range list {
				if k == n+j && int(sd.dir) == d {
					count++
				}
			}
		}
		n += segs
	}
	return count
}

// TestSimRPCRefusesLoad: the Unturned load mix does not apply to a
// ULinkRPC scenario.
func TestSimRPCRefusesLoad(t *testing.T) {
	sc, err := ReadRPCFile(filepath.Join(rpcFixtures, "tcp-json.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&Sim{Addr: "127.0.0.1:0", Count: 5}).RunRPC(context.Background(), sc); err == nil || !strings.Contains(err.Error(), "load mix") {
		t.Errorf("RunRPC with Count 5 = %v; want an error about the load mix", err)
	}
}

// TestSimRPCCancel: a cancelled context stops a slow ULinkRPC simulation
// promptly, on every transport.
func TestSimRPCCancel(t *testing.T) {
	for _, name := range []string{"tcp-json", "websocket-json", "kcp-json"} {
		sc, err := ReadRPCFile(filepath.Join(rpcFixtures, name+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		sc.Transport.Gap.Duration = time.Hour
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		_, err = (&Sim{Addr: "127.0.0.1:0"}).RunRPC(ctx, sc)
		cancel()
		if err == nil || time.Since(start) > 10*time.Second {
			t.Errorf("%s: RunRPC with a cancelled context = %v after %v; want an error soon", name, err, time.Since(start))
		}
	}
}

// TestRPCAddr: without an address a ULinkRPC simulation listens on
// loopback on the scenario's server port, ULinkRPC's 20000 by default.
func TestRPCAddr(t *testing.T) {
	tests := []struct {
		server, want string
	}{
		{"", "127.0.0.1:20000"},
		{`server = "10.0.0.1:20001"`, "127.0.0.1:20001"},
		{`server = "[fd00::1]:30000"` + "\n" + `client = "[fd00::2]:4000"`, "127.0.0.1:30000"},
	}
	for _, tt := range tests {
		sc, err := ParseRPC("t", []byte("protocol = \"ulinkrpc\"\n[[connection]]\n"+tt.server+"\n[[connection.action]]\ndo = \"ping\"\n"), "")
		if err != nil {
			t.Fatal(err)
		}
		if got := RPCAddr(sc); got != tt.want {
			t.Errorf("RPCAddr(%q) = %s; want %s", tt.server, got, tt.want)
		}
	}
}

// TestKCPReceive: the simulator's KCP receiver joins fragments in sn
// order whatever order they come in, drops duplicates (before and after
// their message is complete) and segments outside its window.
func TestKCPReceive(t *testing.T) {
	seg := func(sn uint32, frg uint8, data string) kcp.Segment {
		return kcp.Segment{Conv: 7, Cmd: kcp.CmdPush, Frg: frg, Sn: sn, Data: []byte(data)}
	}
	tests := []struct {
		name string
		in   []kcp.Segment
		want []string
		next uint32
	}{
		{"in order", []kcp.Segment{seg(0, 1, "ab"), seg(1, 0, "c"), seg(2, 0, "d")}, []string{"abc", "d"}, 3},
		{"reordered", []kcp.Segment{seg(1, 0, "c"), seg(0, 1, "ab"), seg(2, 0, "d")}, []string{"abc", "d"}, 3},
		{"duplicates", []kcp.Segment{seg(0, 1, "ab"), seg(0, 1, "ab"), seg(1, 0, "c"), seg(1, 0, "c"), seg(0, 1, "ab")}, []string{"abc"}, 2},
		{"held duplicate", []kcp.Segment{seg(1, 0, "c"), seg(1, 0, "c"), seg(0, 1, "ab")}, []string{"abc"}, 2},
		{"outside the window", []kcp.Segment{seg(kcpWnd, 0, "x"), seg(0, 0, "a")}, []string{"a"}, 1},
		{"gap", []kcp.Segment{seg(0, 0, "a"), seg(2, 0, "c")}, []string{"a"}, 1},
	}
	for _, tt := range tests {
		e := &kcpEnd{conv: 7, msgs: make(chan []byte, 8), rcvBuf: map[uint32]kcp.Segment{}}
		for _, s := range tt.in {
			e.push(s)
		}
		close(e.msgs)
		var got []string
		for m := range e.msgs {
			got = append(got, string(m))
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || e.rcvNext != tt.next {
			t.Errorf("%s: push(%d segments) = %q, rcvNext %d; want %q, %d", tt.name, len(tt.in), got, e.rcvNext, tt.want, tt.next)
		}
	}
}

// TestCheckUpgradeRequest: the simulated server refuses an upgrade RFC
// 6455 4.2.1 does not allow.
func TestCheckUpgradeRequest(t *testing.T) {
	key := "dGhlIHNhbXBsZSBub25jZQ=="
	good := string(websocket.EncodeUpgradeRequest("h", "/ws", key))
	tests := []struct {
		head, want string
	}{
		{good, ""},
		{strings.Replace(good, "GET /ws", "GET /other", 1), `path "/other"`},
		{strings.Replace(good, "GET", "POST", 1), "not a GET"},
		{strings.Replace(good, "Upgrade: websocket", "Upgrade: h2c", 1), "no Upgrade: websocket"},
		{strings.Replace(good, "Version: 13", "Version: 8", 1), "Sec-WebSocket-Version"},
		{strings.Replace(good, key, "c2hvcnQ=", 1), "16 bytes"},
	}
	for _, tt := range tests {
		u, err := websocket.ParseUpgrade([]byte(tt.head))
		if err != nil {
			t.Fatal(err)
		}
		if got := checkUpgradeRequest(u, "/ws"); (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("checkUpgradeRequest(%q) = %q; want %q", tt.head, got, tt.want)
		}
	}
}

// TestSimRPCDetectsCorruption: when what arrives differs from the
// script, the receiving side says so, on every transport.
func TestSimRPCDetectsCorruption(t *testing.T) {
	for _, name := range []string{"tcp-json", "websocket-json", "kcp-memorypack"} {
		sc, err := ReadRPCFile(filepath.Join(rpcFixtures, name+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		sends, _, err := sc.play(0)
		if err != nil {
			t.Fatal(err)
		}
		// The server expects a different last byte of the first Request.
		bad := slices.Clone(sends)
		bad[0].data = slices.Clone(bad[0].data)
		bad[0].data[len(bad[0].data)-1] ^= 1
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		s := &Sim{FullSpeed: true}
		var ends [2]rpcLink
		if sc.U.Transport == "kcp" {
			ends, err = s.openKCP(ctx, sc, 0, "127.0.0.1:0", sends)
		} else {
			ends, err = s.openStream(ctx, sc, 0, "127.0.0.1:0")
		}
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- s.playSide(ctx, dissect.C2S, ends[0], sends) }()
		serr := s.playSide(ctx, dissect.S2C, ends[1], bad)
		ends[0].close()
		ends[1].close()
		<-done
		cancel()
		if serr == nil || !strings.Contains(serr.Error(), "differ from the") || !strings.Contains(serr.Error(), "write 1 of the script") {
			t.Errorf("%s: the server's play with a changed first Request = %v; want the difference found at write 1", name, serr)
		}
	}
}
