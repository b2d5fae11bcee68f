package dissect

import (
	"net/netip"

	"github.com/usmnscope/usmnscope/internal/enum"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/netpak"
)

// Field is one decoded field: its name, its first bit, its bit length and
// its typed value (bool, uint64, int64, float64, string, []byte or nil).
// It is netpak.Span itself, so a NetPak decoder records fields with no
// conversion.
type Field = netpak.Span

// Dir is the direction of a message on a connection.
type Dir uint8

const (
	C2S Dir = iota // client to server: the server reads EServerMessage
	S2C            // server to client: the client reads EClientMessage
)

var dirNames = [...]string{C2S: "c2s", S2C: "s2c"}

func (d Dir) String() string { return enum.Name(dirNames[:], d) }

// ParseDir reads a direction by its name (c2s, s2c).
func ParseDir(s string) (Dir, bool) {
	for d, name := range dirNames {
		if s == name {
			return Dir(d), true
		}
	}
	return 0, false
}

// Severity of a finding (outputs.md: note, warn, error).
type Severity uint8

const (
	Note Severity = iota
	Warn
	Error
)

var severityNames = [...]string{Note: "note", Warn: "warn", Error: "error"}

func (s Severity) String() string { return enum.Name(severityNames[:], s) }

// Group says what kind of finding it is.
type Group uint8

const (
	Malformed Group = iota // the bits do not parse
	Sequence               // out of order, gaps, resynchronisation
	Undecoded              // bits shown but not decoded
	Protocol               // well-formed but against the protocol (version mismatch, unknown trailer)
	Inference              // a guess usmnscope made (widened enums without a handshake)
)

var groupNames = [...]string{Malformed: "malformed", Sequence: "sequence", Undecoded: "undecoded", Protocol: "protocol", Inference: "inference"}

func (g Group) String() string { return enum.Name(groupNames[:], g) }

// Finding is one piece of expert info about a message or a connection.
type Finding struct {
	Severity Severity
	Group    Group
	Text     string
	Bit      int // message bit the finding points at, or -1
}

// Conn identifies a connection by its two ends. It is comparable, so it
// serves as a map key.
type Conn struct {
	Client netip.AddrPort
	Server netip.AddrPort
}

// String formats the connection as outputs.md's "CLIENT_IP:PORT-SERVER_IP:PORT".
func (c Conn) String() string { return c.Client.String() + "-" + c.Server.String() }

// GroupNames lists the names of every Group in order, for completions and
// the filter's choices.
func GroupNames() []string { return append([]string(nil), groupNames[:]...) }

// AppendJSON appends f as an outputs.md "expert" entry:
// {"severity":…,"group":…,"text":…}, strings by the JSON rule of termsafe.
func (f *Finding) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"severity":`...)
	dst = termsafe.AppendJSONString(dst, f.Severity.String())
	dst = append(dst, `,"group":`...)
	dst = termsafe.AppendJSONString(dst, f.Group.String())
	dst = append(dst, `,"text":`...)
	dst = termsafe.AppendJSONString(dst, f.Text)
	return append(dst, '}')
}
