package scenario

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/usmnscope/usmnscope/dissect"
)

// Flood is one [[flood]] table of a scenario: hostile traffic at a scale
// no script spells out, written streaming after the scenario's ordinary
// connections (so memory does not grow with Frames or Conns).
//
// Each of Conns connections (client 10.128.0.0 + i, port 50000) sends
// Frames frames, each the SystemSockets framing of wire.md 2 (a 2-byte
// big-endian length) around Message followed by Pad bytes 0x55, PerSegment
// frames to a TCP segment. The connections take turns segment by segment,
// so all of them are open at once. LoseEvery loses (never captures) the
// first data segment of each connection and every LoseEvery-th after it:
// a hole that is never filled, with all later data arriving out of order.
type Flood struct {
	Conns      int    `toml:"conns"`       // connections (default 1)
	Server     string `toml:"server"`      // "IP:PORT"; default 10.0.0.1 and the profile's transport port
	From       string `toml:"from"`        // "client" (default) or "server": which side sends the frames
	Open       string `toml:"open"`        // "syn": a three-way handshake first (default); "data": none
	Close      bool   `toml:"close"`       // FIN exchange at the end
	Frames     int    `toml:"frames"`      // frames per connection
	Message    string `toml:"message"`     // hex message bytes of each frame
	Pad        int    `toml:"pad"`         // bytes 0x55 after Message in each frame
	PerSegment int    `toml:"per_segment"` // frames per TCP segment (default 1)
	LoseEvery  int    `toml:"lose_every"`  // 0: nothing lost
}

// floodBase is the first client address of flood connections, outside the
// 10.0.0.0/16 that ordinary connections and load captures use.
var floodBase = netip.AddrFrom4([4]byte{10, 128, 0, 0})

// maxFloodConns bounds Flood.Conns: 2^22 addresses above floodBase stay
// inside 10.0.0.0/8.
const maxFloodConns = 1 << 22

// checkFloods validates the [[flood]] tables and fills in defaults.
func (s *Scenario) checkFloods() error {
	for i := range s.Floods {
		fl := &s.Floods[i]
		where := fmt.Sprintf("flood %d", i+1)
		if fl.Conns == 0 {
			fl.Conns = 1
		}
		if fl.Conns < 0 || fl.Conns > maxFloodConns {
			return fmt.Errorf("%s: conns: %d is outside 1..%d", where, fl.Conns, maxFloodConns)
		}
		if fl.From == "" {
			fl.From = "client"
		}
		if fl.From != "client" && fl.From != "server" {
			return fmt.Errorf("%s: from: %q is not \"client\" or \"server\"", where, fl.From)
		}
		if fl.Open == "" {
			fl.Open = "syn"
		}
		if fl.Open != "syn" && fl.Open != "data" {
			return fmt.Errorf("%s: open: %q is not \"syn\" or \"data\"", where, fl.Open)
		}
		if fl.PerSegment == 0 {
			fl.PerSegment = 1
		}
		msg, err := unhex(fl.Message)
		if err != nil {
			return fmt.Errorf("%s: message: %w", where, err)
		}
		if fl.Pad < 0 || len(msg)+fl.Pad > 0xffff {
			return fmt.Errorf("%s: message and pad: %d bytes do not fit a 2-byte frame header (docs/protocol.md)", where, len(msg)+fl.Pad)
		}
		if fl.Frames < 0 || fl.PerSegment < 1 || fl.LoseEvery < 0 {
			return fmt.Errorf("%s: frames, per_segment and lose_every must not be negative (per_segment at least 1)", where)
		}
		if seg := fl.PerSegment * (2 + len(msg) + fl.Pad); seg > 65000 {
			return fmt.Errorf("%s: a segment of %d frames is %d bytes, more than 65000", where, fl.PerSegment, seg)
		}
		server, err := addr(fl.Server, fmt.Sprintf("10.0.0.1:%d", s.P.TransportPort))
		if err != nil || !server.Addr().Is4() {
			return fmt.Errorf("%s: server: %q is not an IPv4 IP:PORT", where, fl.Server)
		}
	}
	return nil
}

// frame is one framed flood frame.
func (fl *Flood) frame() []byte {
	msg, _ := unhex(fl.Message)
	b := binary.BigEndian.AppendUint16(nil, uint16(len(msg)+fl.Pad))
	b = append(b, msg...)
	return append(b, bytes.Repeat([]byte{0x55}, fl.Pad)...)
}

// floodConn is the state of one flood connection while it is written.
type floodConn struct {
	f    *flow
	sent int // frames so far
	segs int // data segments so far
}

// writeFlood streams one flood to out, starting at now, and returns the
// time after its last packet.
func (s *Scenario) writeFlood(fl *Flood, now time.Time, st *Stats, out func(Packet)) time.Time {
	l := linkTypes[s.Link]
	server, _ := addr(fl.Server, fmt.Sprintf("10.0.0.1:%d", s.P.TransportPort))
	frame := fl.frame()
	seg := bytes.Repeat(frame, fl.PerSegment)
	dir := dirOf(fl.From)
	t := defaultTransport()
	t.Segment = len(seg)
	conns := make([]floodConn, fl.Conns)
	base := floodBase.As4()
	for i := range conns {
		n := binary.BigEndian.Uint32(base[:]) + uint32(i)
		var a [4]byte
		binary.BigEndian.PutUint32(a[:], n)
		c := dissect.Conn{Client: netip.AddrPortFrom(netip.AddrFrom4(a), 50000), Server: server}
		conns[i].f = newFlow(s.Seed, c, l, t, now, out)
		conns[i].f.capture = true
	}
	st.Conns += fl.Conns
	step := func(fc *floodConn, do func(*flow)) {
		fc.f.now = now
		do(fc.f)
		now = fc.f.now
	}
	if fl.Open == "syn" {
		for i := range conns {
			step(&conns[i], (*flow).handshake)
		}
	}
	w := Write{Dir: dir, Capture: true}
	for more := fl.Frames > 0; more; {
		more = false
		for i := range conns {
			fc := &conns[i]
			k := min(fl.PerSegment, fl.Frames-fc.sent)
			if k <= 0 {
				continue
			}
			fc.sent += k
			more = more || fc.sent < fl.Frames
			fc.segs++
			w.Data = seg[:k*len(frame)]
			step(fc, func(f *flow) {
				// write takes its capture flag from the write: false is a
				// segment sent and never captured.
				w.Capture = fl.LoseEvery == 0 || (fc.segs-1)%fl.LoseEvery != 0
				f.write(&w)
			})
			st.Messages += k
		}
	}
	if fl.Close {
		for i := range conns {
			step(&conns[i], func(f *flow) { f.capture = true; f.close() })
		}
	}
	return now
}

// hostile says whether the scenario needs the streaming writer of
// generateHostile: it floods or lies about record lengths.
func (s *Scenario) hostile() bool { return len(s.Floods) > 0 || len(s.Lies) > 0 }

// generateHostile writes the scenario's ordinary connections, then each
// flood in turn, through a writer that applies the record-length lies.
func (s *Scenario) generateHostile(w io.Writer, f Format) (Stats, error) {
	var ps []Packet
	var st Stats
	if len(s.Conns) > 0 {
		var err error
		if ps, st, err = s.Packets(); err != nil {
			return st, err
		}
	}
	lw, err := newLyingWriter(w, f, linkTypes[s.Link], s.Lies)
	if err != nil {
		return st, err
	}
	var werr error
	out := func(p Packet) {
		if werr == nil {
			werr = lw.write(p)
		}
		st.Packets++
		st.Bytes += int64(len(p.Data))
	}
	now := s.Start
	for _, p := range ps {
		if werr == nil {
			werr = lw.write(p)
		}
		now = p.Time
	}
	for i := range s.Floods {
		now = s.writeFlood(&s.Floods[i], now.Add(time.Millisecond), &st, out)
	}
	if werr != nil {
		return st, fmt.Errorf("scenario: %w", werr)
	}
	if err := lw.flush(); err != nil {
		return st, fmt.Errorf("scenario: %w", err)
	}
	return st, nil
}
