package pipeline

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/decode"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// Proto names a protocol a TCP connection may be decoded as (wire.md
// section 2, "Which TCP connections are SystemSockets"). It is the key of
// the protocol registry below: a second protocol (ULinkRPC, ulinkrpc.md)
// takes a value, a name and a detector, and `--decode-as PORT=NAME`
// accepts it with no other change.
type Proto uint8

const (
	ProtoNone     Proto = iota // not decoded: at most one connection note
	ProtoUnturned              // SystemSockets NetPak messages (wire.md 2-4)
	ProtoULinkRPC              // ULinkRPC frames over TCP or a WebSocket (ulinkrpc.md 1)
	ProtoHosted                // another registered protocol (decode.Protocol with New): the route names it
)

// protoNames are the names --decode-as and the notes use.
var protoNames = [...]string{ProtoNone: "none", ProtoUnturned: "unturned", ProtoULinkRPC: "ulinkrpc"}

// names are the names ParseProto accepts (ProtoHosted has none of its own).
var names = protoNames[:ProtoHosted]

func (p Proto) String() string { return enum.Name(protoNames[:], p) }

// ParseProto reads a protocol name.
func ParseProto(s string) (Proto, error) {
	for i, n := range names {
		if n == s {
			return Proto(i), nil
		}
	}
	return ProtoNone, fmt.Errorf("protocol %q: want one of %s", s, strings.Join(names, ", "))
}

// ParseDecodeAs reads one --decode-as value, PORT=PROTO ("27017=unturned").
func ParseDecodeAs(s string) (uint16, Proto, error) {
	ps, name, ok := strings.Cut(s, "=")
	if !ok {
		return 0, ProtoNone, fmt.Errorf("decode-as %q: want PORT=PROTO, e.g. 27017=unturned", s)
	}
	port, err := strconv.ParseUint(strings.TrimSpace(ps), 10, 16)
	if err != nil || port == 0 {
		return 0, ProtoNone, fmt.Errorf("decode-as %q: port %q is not a TCP port (1-65535)", s, ps)
	}
	p, err := ParseProto(strings.TrimSpace(name))
	if err != nil {
		return 0, ProtoNone, fmt.Errorf("decode-as %q: %w", s, err)
	}
	return uint16(port), p, nil
}

// DecodeAs checks --decode-as values and returns them as the profile's
// DecodeAs string (unturned.Profile.DecodeAs), sorted by port, the last
// value for a port winning.
func DecodeAs(values []string) (string, error) {
	m := map[uint16]Proto{}
	for _, v := range values {
		port, p, err := ParseDecodeAs(v)
		if err != nil {
			return "", err
		}
		m[port] = p
	}
	ports := make([]int, 0, len(m))
	for port := range m {
		ports = append(ports, int(port))
	}
	sort.Ints(ports)
	parts := make([]string, len(ports))
	for i, port := range ports {
		parts[i] = fmt.Sprintf("%d=%s", port, m[uint16(port)])
	}
	return strings.Join(parts, ","), nil
}

// decodeAsMap reads a profile's DecodeAs string; values that do not parse
// (it is built by DecodeAs, so none should) are skipped.
func decodeAsMap(s string) map[uint16]Proto {
	if s == "" {
		return nil
	}
	m := map[uint16]Proto{}
	for _, v := range strings.Split(s, ",") {
		if port, p, err := ParseDecodeAs(v); err == nil {
			m[port] = p
		}
	}
	return m
}

// DecodeAsPorts returns the ports a profile's DecodeAs decodes (not the
// ones it turns off), sorted: what a live capture's kernel filter must keep
// besides transport_port.
func DecodeAsPorts(s string) []uint16 {
	var ports []uint16
	for port, p := range decodeAsMap(s) {
		if p != ProtoNone {
			ports = append(ports, port)
		}
	}
	sort.Slice(ports, func(i, j int) bool { return ports[i] < ports[j] })
	return ports
}

// verdict is a detector's answer about the bytes seen so far
// (decode.Verdict).
type verdict = decode.Verdict

const (
	undecided = decode.Undecided // more bytes needed
	matches   = decode.Matches
	differs   = decode.Differs
)

// detector looks at the first client→server bytes of a connection whose
// start was captured (at most sniffLen of them) and says whether they open
// the protocol: a registered protocol's Detect (register.go), tried in
// the order they registered on a TCP connection on no named port.
type detector struct {
	proto Proto
	need  int // bytes the detector may ask for before it must decide
	check func(c2s []byte) verdict
	hp    *decode.Protocol
}

// gwfLen is the length of the vanilla GetWorkshopFiles message (wire.md
// 3): enum 0 and its alignment in byte 0, 960 zero bytes, then
// String("Hello!") as 0a 00 and the six bytes.
const gwfLen = 969

var gwfTail = []byte{0x0a, 0x00, 'H', 'e', 'l', 'l', 'o', '!'}

// detectGetWorkshopFiles: the first client message of a SystemSockets
// connection is a GetWorkshopFiles (wire.md 2): a 2-byte big-endian length
// of at least 969, then 961 zero bytes and the "Hello!" string. A trailer
// (the USMN marker) may follow; it is not looked at.
func detectGetWorkshopFiles(c2s []byte) verdict {
	if len(c2s) < 2 {
		return undecided
	}
	if int(c2s[0])<<8|int(c2s[1]) < gwfLen {
		return differs
	}
	body := c2s[2:min(len(c2s), 2+gwfLen)]
	for _, b := range body[:min(len(body), gwfLen-len(gwfTail))] {
		if b != 0 {
			return differs
		}
	}
	if len(body) > gwfLen-len(gwfTail) {
		tail := body[gwfLen-len(gwfTail):]
		if !bytes.Equal(tail, gwfTail[:len(tail)]) {
			return differs
		}
	}
	if len(body) < gwfLen {
		return undecided
	}
	return matches
}
