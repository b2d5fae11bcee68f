package scenario

import (
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// rpcSend is one thing a side sends: a framed ULinkRPC frame (or raw wire
// bytes), or a WebSocket control frame.
type rpcSend struct {
	dir     dissect.Dir
	at      time.Duration // since the connection's start
	data    []byte        // stream bytes: [length][frame], or wire bytes as given
	op      websocket.Opcode
	capture bool
	cut     int // bytes of its first TCP segment left out of the capture
}

// dotnetEpoch is 0001-01-01 in Unix 100 ns ticks' terms: .NET UTC ticks =
// Unix nanoseconds / 100 + dotnetEpoch (ulinkrpc.md 4 `ticks`).
const dotnetEpoch = 621355968000000000

// rpcPlayer turns one connection's actions into sends.
type rpcPlayer struct {
	s       *RPC
	c       *RPCConn
	at      time.Duration
	nextID  uint32
	capture bool
	sends   []rpcSend
	ivs     uint64
	frames  int
	cut     int
}

func (s *RPC) play(i int) ([]rpcSend, int, error) {
	c := &s.Conns[i]
	pl := &rpcPlayer{s: s, c: c, nextID: 1, capture: !slices.ContainsFunc(c.Actions, func(a RPCAction) bool { return a.Do == "capture" })}
	for j := range c.Actions {
		if err := pl.act(&c.Actions[j]); err != nil {
			return nil, 0, fmt.Errorf("scenario %s: connection %d: action %d (%s): %w", s.Name, i+1, j+1, c.Actions[j].Do, err)
		}
	}
	return pl.sends, pl.frames, nil
}

func (pl *rpcPlayer) send(d dissect.Dir, data []byte, op websocket.Opcode) {
	pl.sends = append(pl.sends, rpcSend{dir: d, at: pl.at, data: data, op: op, capture: pl.capture, cut: pl.cut})
	pl.cut = 0
}

// frame sends an envelope through the transform layer, length-prefixed.
func (pl *rpcPlayer) frame(d dissect.Dir, env []byte, compress *bool) {
	u := &pl.s.U
	on := u.Compress || pl.s.keys != nil
	if compress != nil {
		on = on || *compress
	}
	if on {
		opt := ulinkrpc.TransformOptions{Compress: u.Compress, Threshold: u.Threshold, Keys: pl.s.keys}
		if compress != nil {
			opt.Compress = *compress
		}
		if opt.Keys != nil {
			// A deterministic IV per frame (the real sender draws one at
			// random), so the capture follows from the scenario.
			h := fnv.New128a()
			fmt.Fprintf(h, "%d/%s/%d", pl.s.Seed, pl.c.ClientAddr, pl.ivs)
			pl.ivs++
			opt.IV = h.Sum(nil)
		}
		env = ulinkrpc.ApplyTransform(env, opt)
	}
	pl.frames++
	pl.send(d, ulinkrpc.AppendFrame(nil, env), websocket.OpBinary)
}

func dirFrom(from string, def dissect.Dir) dissect.Dir {
	switch from {
	case "client":
		return dissect.C2S
	case "server":
		return dissect.S2C
	}
	return def
}

func (pl *rpcPlayer) act(a *RPCAction) error {
	gap := pl.s.Transport.Gap.Duration
	if a.Gap.Duration > 0 {
		gap = a.Gap.Duration
	}
	if len(pl.sends) > 0 || pl.at > 0 {
		pl.at += gap
	}
	switch a.Do {
	case "capture":
		pl.capture, pl.cut = true, a.Cut
	case "call":
		id := pl.nextID
		if a.ID != nil {
			id = *a.ID
		}
		pl.nextID = id + 1
		if pl.nextID == 0 {
			pl.nextID = 1 // skips 0 (ulinkrpc.md 5)
		}
		arg, err := pl.s.payload(a.Args, a.Pad, ulinkrpc.Request, a.Service, a.Method, false)
		if err != nil {
			return fmt.Errorf("args: %w", err)
		}
		pl.frame(dissect.C2S, ulinkrpc.EncodeRequest(id, a.Service, a.Method, arg), a.Compress)
		if a.Answer != nil && !*a.Answer {
			return nil
		}
		reply, err := pl.s.payload(a.Reply, 0, ulinkrpc.Request, a.Service, a.Method, true)
		if err != nil {
			return fmt.Errorf("reply: %w", err)
		}
		st, _ := status(a.Status)
		errText := ""
		if a.Error != nil {
			errText = *a.Error
		}
		pl.at += a.Latency.Duration
		pl.frame(dissect.S2C, ulinkrpc.EncodeResponse(id, st, reply, errText), a.Compress)
	case "push":
		arg, err := pl.s.payload(a.Args, a.Pad, ulinkrpc.Push, a.Service, a.Method, false)
		if err != nil {
			return fmt.Errorf("args: %w", err)
		}
		pl.frame(dissect.S2C, ulinkrpc.EncodePush(a.Service, a.Method, arg), a.Compress)
	case "ping":
		ticks := pl.s.Start.Add(pl.at).UnixNano()/100 + dotnetEpoch
		if a.Ticks != nil {
			ticks = *a.Ticks
		}
		pl.frame(dissect.C2S, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePing, ticks), a.Compress)
		if a.Answer != nil && !*a.Answer {
			return nil
		}
		pl.at += a.Latency.Duration
		pl.frame(dissect.S2C, ulinkrpc.EncodeKeepAlive(ulinkrpc.KeepAlivePong, ticks), a.Compress)
	case "raw":
		b, _ := hex.DecodeString(strings.ReplaceAll(a.Hex, " ", ""))
		pl.frame(dirFrom(a.From, dissect.C2S), b, a.Compress)
	case "wire":
		b, _ := hex.DecodeString(strings.ReplaceAll(a.Hex, " ", ""))
		pl.send(dirFrom(a.From, dissect.C2S), b, websocket.OpBinary)
	case "ws_ping":
		d := dirFrom(a.From, dissect.C2S)
		pl.send(d, []byte("usmnscope"), websocket.OpPing)
		pl.at += a.Latency.Duration
		pl.send(1-d, []byte("usmnscope"), websocket.OpPong)
	case "ws_close":
		d := dirFrom(a.From, dissect.C2S)
		code := a.Code
		if code == 0 {
			code = 1000
		}
		body := binary.BigEndian.AppendUint16(nil, uint16(code))
		body = append(body, a.Reason...)
		pl.send(d, body, websocket.OpClose)
		pl.at += a.Latency.Duration
		pl.send(1-d, body, websocket.OpClose)
	}
	return nil
}

// payload encodes a DTO value: JSON (keys sorted, as given) or MemoryPack
// from the contracts' member types. answer picks the method's reply type.
// A nil value is an empty payload (a null argument or a void result).
func (s *RPC) payload(v map[string]any, pad int, t ulinkrpc.FrameType, sid, mid int32, answer bool) ([]byte, error) {
	if pad > 0 {
		if v == nil {
			v = map[string]any{}
		}
		v["Pad"] = strings.Repeat("x", pad)
	}
	if v == nil {
		return nil, nil
	}
	if s.U.Serializer == "json" {
		return json.Marshal(v)
	}
	_, m := s.contracts.Lookup(t, sid, mid)
	if m == nil {
		return nil, fmt.Errorf("no contract method for %s (%d, %d)", t, sid, mid)
	}
	name := m.Request
	if answer {
		name = m.Reply
	}
	return s.mpValue(name, v, 0)
}

// mpValue writes v as MemoryPack type t (schema.md section 4's names).
func (s *RPC) mpValue(t string, v any, depth int) ([]byte, error) {
	if depth > 16 {
		return nil, fmt.Errorf("types nested too deep")
	}
	num := func() (int64, float64) {
		switch x := v.(type) {
		case int64:
			return x, float64(x)
		case float64:
			return int64(x), x
		case bool:
			if x {
				return 1, 1
			}
		}
		return 0, 0
	}
	i, f := num()
	switch t {
	case "bool":
		b, _ := v.(bool)
		return ulinkrpc.MPBool(b), nil
	case "byte", "sbyte":
		return []byte{byte(i)}, nil
	case "short", "ushort":
		return binary.LittleEndian.AppendUint16(nil, uint16(i)), nil
	case "int", "uint":
		return binary.LittleEndian.AppendUint32(nil, uint32(i)), nil
	case "long", "ulong":
		return binary.LittleEndian.AppendUint64(nil, uint64(i)), nil
	case "float":
		return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f))), nil
	case "double":
		return ulinkrpc.MPFloat64(f), nil
	case "string":
		if v == nil {
			return ulinkrpc.MPNullString(), nil
		}
		str, _ := v.(string)
		return ulinkrpc.MPString(str), nil
	}
	if elem, ok := strings.CutPrefix(t, "list:"); ok {
		if v == nil {
			return ulinkrpc.MPNullString(), nil
		}
		xs, _ := v.([]any)
		items := make([][]byte, 0, len(xs))
		for _, x := range xs {
			b, err := s.mpValue(elem, x, depth+1)
			if err != nil {
				return nil, err
			}
			items = append(items, b)
		}
		return ulinkrpc.MPList(items...), nil
	}
	dto := s.types[t]
	if dto == nil {
		return nil, fmt.Errorf("unknown type %q", t)
	}
	if v == nil {
		return ulinkrpc.MPNullObject(), nil
	}
	obj, _ := v.(map[string]any)
	members := slices.Clone(dto.Members)
	slices.SortFunc(members, func(a, b ulinkrpc.DTOMember) int { return cmp.Compare(a.Order, b.Order) })
	var out [][]byte
	for _, m := range members {
		b, err := s.mpValue(m.Type, obj[m.Name], depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t, m.Name, err)
		}
		out = append(out, b)
	}
	return ulinkrpc.MPEncodeObject(dto.VersionTolerant, out...), nil
}

// Packets plays the scenario and returns its packets in capture order.
func (s *RPC) Packets() ([]Packet, Stats, error) {
	l := linkTypes[s.Link]
	var all []Packet
	st := Stats{Conns: len(s.Conns)}
	keep := func(p Packet) { p.Data = slices.Clone(p.Data); all = append(all, p) }
	for i := range s.Conns {
		sends, frames, err := s.play(i)
		if err != nil {
			return nil, st, err
		}
		st.Messages += frames
		start := s.Start.Add(time.Duration(i*connStagger) * time.Microsecond)
		c := &s.Conns[i]
		conn := dissect.Conn{Client: c.ClientAddr, Server: c.ServerAddr}
		if s.U.Transport == "kcp" {
			s.kcpPackets(c, conn, l, start, sends, keep)
			continue
		}
		f := newFlow(s.Seed, conn, l, s.Transport, start, keep)
		f.play(&Script{Conn: conn, Transport: s.Transport, Writes: s.streamWrites(conn, sends)})
	}
	slices.SortStableFunc(all, func(a, b Packet) int { return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano()) })
	st.Packets = len(all)
	for _, p := range all {
		st.Bytes += int64(len(p.Data))
	}
	return all, st, nil
}

// streamWrites turns sends into TCP writes: as they are for TCP; for
// WebSocket after the HTTP upgrade, each in a binary frame (masked from
// the client, with a key from the seed) or as a control frame.
func (s *RPC) streamWrites(conn dissect.Conn, sends []rpcSend) []Write {
	var ws []Write
	var last time.Duration
	add := func(sd rpcSend, data []byte) {
		ws = append(ws, Write{Dir: sd.dir, Data: data, Frames: []int{0}, Gap: sd.at - last, Capture: sd.capture, Cut: sd.cut})
		last = sd.at
	}
	if s.U.Transport != "websocket" {
		for _, sd := range sends {
			add(sd, sd.data)
		}
		return ws
	}
	capture := len(sends) == 0 || sends[0].capture
	h := fnv.New32a()
	fmt.Fprintf(h, "%d/%s", s.Seed, conn)
	key := fmt.Sprintf("%016x%08x", s.Seed, h.Sum32())
	wsKey := base64Std(key[:16])
	ws = append(ws,
		Write{Dir: dissect.C2S, Data: websocket.EncodeUpgradeRequest(conn.Server.String(), s.U.WSPath, wsKey), Frames: []int{0}, Capture: capture},
		Write{Dir: dissect.S2C, Data: websocket.EncodeUpgradeResponse(wsAccept(wsKey)), Frames: []int{0}, Gap: 100 * time.Microsecond, Capture: capture})
	for n, sd := range sends {
		var mask *[4]byte
		if sd.dir == dissect.C2S {
			var k [4]byte
			binary.BigEndian.PutUint32(k[:], h.Sum32()+uint32(n)*2654435761)
			mask = &k
		}
		add(sd, websocket.EncodeFrame(nil, sd.op, true, mask, sd.data))
	}
	return ws
}

// Generate writes the scenario's capture to w.
func (s *RPC) Generate(w io.Writer, f Format) (Stats, error) {
	ps, st, err := s.Packets()
	if err != nil {
		return st, err
	}
	return st, writePackets(w, f, s.Link, ps)
}
