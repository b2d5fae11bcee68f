package kcp

import (
	"encoding/binary"

	"github.com/usmnscope/usmnscope/decode/transport"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// layer names this package's errors (transport.Error.Layer).
const layer = "kcp"

// Cmd is a segment's command.
type Cmd uint8

const (
	CmdPush Cmd = 81 // data
	CmdAck  Cmd = 82
	CmdWask Cmd = 83 // window probe
	CmdWins Cmd = 84 // window size
)

var cmdNames = [...]string{CmdPush: "PUSH", CmdAck: "ACK", CmdWask: "WASK", CmdWins: "WINS"}

func (c Cmd) String() string { return enum.Name(cmdNames[:], uint64(c)) }

func (c Cmd) known() bool { return c >= CmdPush && c <= CmdWins }

// Layout constants: the 24-byte little-endian header, KCP's default MTU
// of 1400, and its 128-fragment limit on a message (a sender refuses a
// message of more fragments than its receive window, 128 by default).
const (
	HeaderLen    = 24
	MTU          = 1400
	MSS          = MTU - HeaderLen // 1376 data bytes per segment
	MaxFragments = 128
)

// Segment is one KCP segment. Off is its offset in the datagram.
type Segment struct {
	Conv uint32
	Cmd  Cmd
	Frg  uint8 // fragments still to come in this message
	Wnd  uint16
	Ts   uint32
	Sn   uint32
	Una  uint32
	Data []byte // len bytes, aliasing the datagram
	Off  int
}

// fields are the header fields in order with their sizes.
var fields = [...]struct {
	name string
	size int
}{{"conv", 4}, {"cmd", 1}, {"frg", 1}, {"wnd", 2}, {"ts", 4}, {"sn", 4}, {"una", 4}, {"len", 4}}

// ParseSegment reads one segment at the front of b and returns it with the
// bytes it took. A cut header or data is transport.ErrShort, an unknown
// command transport.ErrFormat; on an error the int is where the reading
// stopped, and the Segment holds no data.
func ParseSegment(b []byte) (Segment, int, error) {
	if len(b) < HeaderLen {
		at := 0
		for _, f := range fields {
			if at+f.size > len(b) {
				return Segment{}, at, transport.Short(layer, f.name, at, f.size, len(b))
			}
			at += f.size
		}
	}
	le := binary.LittleEndian
	s := Segment{Conv: le.Uint32(b), Cmd: Cmd(b[4]), Frg: b[5], Wnd: le.Uint16(b[6:]),
		Ts: le.Uint32(b[8:]), Sn: le.Uint32(b[12:]), Una: le.Uint32(b[16:])}
	n := le.Uint32(b[20:])
	if !s.Cmd.known() {
		return s, HeaderLen, transport.Format(layer, "cmd", 4, "unknown command %d (81 PUSH, 82 ACK, 83 WASK, 84 WINS)", uint8(s.Cmd))
	}
	if uint64(n) > uint64(len(b)-HeaderLen) {
		return s, HeaderLen, transport.Short(layer, "data", HeaderLen, int(min(n, 1<<30)), len(b))
	}
	end := HeaderLen + int(n)
	s.Data = b[HeaderLen:end:end]
	return s, end, nil
}

// ParseDatagram reads every segment of a datagram. On an error the
// segments before it are returned; the error's offset is in the datagram.
func ParseDatagram(b []byte) ([]Segment, error) { return AppendDatagram(nil, b) }

// AppendDatagram is ParseDatagram appending to segs, so that a reader of
// many datagrams reuses one slice (a slice per datagram was most of what
// `tables` allocated over KCP, issue 18).
func AppendDatagram(segs []Segment, b []byte) ([]Segment, error) {
	for off := 0; off < len(b); {
		s, n, err := ParseSegment(b[off:])
		if err != nil {
			if e, ok := err.(*transport.Error); ok {
				e.Offset += off
			}
			return segs, err
		}
		s.Off = off
		segs = append(segs, s)
		off += n
	}
	return segs, nil
}

// Fields lists the segment's header fields and data with byte spans in its
// datagram, named prefix.conv … prefix.data.
func (s Segment) Fields(prefix string) []dissect.Field {
	vals := [...]any{uint64(s.Conv), uint64(s.Cmd), uint64(s.Frg), uint64(s.Wnd), uint64(s.Ts), uint64(s.Sn), uint64(s.Una), uint64(len(s.Data))}
	fs := make([]dissect.Field, 0, len(vals)+1)
	at := s.Off
	for i, f := range fields {
		fs = append(fs, dissect.Field{Name: prefix + f.name, Bit: 8 * at, Bits: 8 * f.size, Value: vals[i]})
		at += f.size
	}
	return append(fs, dissect.Field{Name: prefix + "data", Bit: 8 * at, Bits: 8 * len(s.Data), Value: s.Data})
}

// EncodeSegment appends a segment; len is len(s.Data).
func EncodeSegment(dst []byte, s Segment) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, s.Conv)
	dst = append(dst, byte(s.Cmd), s.Frg)
	dst = binary.LittleEndian.AppendUint16(dst, s.Wnd)
	for _, v := range [...]uint32{s.Ts, s.Sn, s.Una, uint32(len(s.Data))} {
		dst = binary.LittleEndian.AppendUint32(dst, v)
	}
	return append(dst, s.Data...)
}

// SplitMessage cuts msg into PUSH segments of at most mss data bytes (0
// means MSS), numbered from sn, frg counting down to 0, as KCP's message
// mode sends it.
func SplitMessage(conv, sn uint32, msg []byte, mss int) []Segment {
	if mss <= 0 {
		mss = MSS
	}
	count := max(1, (len(msg)+mss-1)/mss)
	segs := make([]Segment, count)
	for i := range segs {
		segs[i] = Segment{Conv: conv, Cmd: CmdPush, Frg: uint8(count - 1 - i), Wnd: 128, Sn: sn + uint32(i),
			Data: msg[min(i*mss, len(msg)):min((i+1)*mss, len(msg))]}
	}
	return segs
}
