package ulinkrpc

import (
	"bytes"
	"encoding/binary"

	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// Cmd is a KCP segment's command (ulinkrpc.md 2.3).
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

// KCP layout constants: the 24-byte little-endian header, MTU 1400 and the
// sender's 128-fragment limit (ulinkrpc.md 2.3).
const (
	SegmentHeaderLen = 24
	KCPMTU           = 1400
	KCPMSS           = KCPMTU - SegmentHeaderLen // 1376 data bytes per segment
	KCPMaxFragments  = 128
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

// kcpFields are the header fields in order with their sizes.
var kcpFields = [...]struct {
	name string
	size int
}{{"conv", 4}, {"cmd", 1}, {"frg", 1}, {"wnd", 2}, {"ts", 4}, {"sn", 4}, {"una", 4}, {"len", 4}}

// ParseSegment reads one segment at the front of b and returns it with the
// bytes it took. A cut header or data is ErrShort; an unknown command
// ErrFormat.
func ParseSegment(b []byte) (Segment, int, error) {
	r := newReader("kcp", b, 0)
	s := Segment{Conv: r.u32le("conv"), Cmd: Cmd(r.u8("cmd")), Frg: r.u8("frg"), Wnd: r.u16le("wnd"),
		Ts: r.u32le("ts"), Sn: r.u32le("sn"), Una: r.u32le("una")}
	n := r.u32le("len")
	if r.err == nil && !s.Cmd.known() {
		r.fail("cmd", 4, ErrFormat, "unknown command %d (81 PUSH, 82 ACK, 83 WASK, 84 WINS)", uint8(s.Cmd))
	}
	if r.err == nil && uint64(n) > uint64(r.left()) {
		r.err = &Error{Layer: "kcp", Field: "data", Offset: r.pos, Need: int(min(n, 1<<30)), Have: r.left(), Err: ErrShort}
	}
	s.Data = r.bytes("data", int(n))
	return s, r.pos, r.err
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
			if e, ok := err.(*Error); ok {
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
	for i, f := range kcpFields {
		fs = append(fs, dissect.Field{Name: prefix + f.name, Bit: 8 * at, Bits: 8 * f.size, Value: vals[i]})
		at += f.size
	}
	return append(fs, byteField(prefix+"data", at, s.Data))
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
// means KCPMSS), numbered from sn, frg counting down to 0, as KCP's message
// mode sends it.
func SplitMessage(conv, sn uint32, msg []byte, mss int) []Segment {
	if mss <= 0 {
		mss = KCPMSS
	}
	count := max(1, (len(msg)+mss-1)/mss)
	segs := make([]Segment, count)
	for i := range segs {
		segs[i] = Segment{Conv: conv, Cmd: CmdPush, Frg: uint8(count - 1 - i), Wnd: 128, Sn: sn + uint32(i),
			Data: msg[min(i*mss, len(msg)):min((i+1)*mss, len(msg))]}
	}
	return segs
}

// Handshake is the UKCP request or the UACK answer (ulinkrpc.md 2.3).
type Handshake struct {
	Ack         bool
	Conv        uint32
	SessionPort int32 // UACK: the port that carries the session
}

// ParseHandshake recognises "UKCP" + conv (8 bytes, conv non-zero) and
// "UACK" + conv + sessionPort (12 bytes), as the real code checks them.
func ParseHandshake(b []byte) (Handshake, bool) {
	switch {
	case len(b) == 8 && bytes.HasPrefix(b, []byte("UKCP")):
		h := Handshake{Conv: binary.LittleEndian.Uint32(b[4:])}
		return h, h.Conv != 0
	case len(b) == 12 && bytes.HasPrefix(b, []byte("UACK")):
		return Handshake{Ack: true, Conv: binary.LittleEndian.Uint32(b[4:]), SessionPort: int32(binary.LittleEndian.Uint32(b[8:]))}, true
	}
	return Handshake{}, false
}

// EncodeHandshake builds a UKCP or UACK datagram.
func EncodeHandshake(h Handshake) []byte {
	if !h.Ack {
		return binary.LittleEndian.AppendUint32([]byte("UKCP"), h.Conv)
	}
	b := binary.LittleEndian.AppendUint32([]byte("UACK"), h.Conv)
	return binary.LittleEndian.AppendUint32(b, uint32(h.SessionPort))
}
