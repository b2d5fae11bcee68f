package capture

import (
	"errors"
	"net/netip"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/usmnscope/usmnscope/internal/enum"
)

// Flow names one TCP connection by its two ends, the server side chosen by
// the rule in the Open event (see the package comment). It is comparable and
// serves as a map key.
type Flow struct{ Client, Server netip.AddrPort }

// String returns "client → server".
func (f Flow) String() string { return f.Client.String() + " → " + f.Server.String() }

// ServerRule says which rule decided the server side of a flow.
type ServerRule uint8

const (
	RuleSYN       ServerRule = iota // the receiver of the first SYN (or sender of SYN+ACK)
	RulePort                        // the side on Options.TransportPort
	RuleLowerPort                   // the side with the lower port
)

var ruleNames = [...]string{RuleSYN: "syn", RulePort: "port", RuleLowerPort: "lower-port"}

func (r ServerRule) String() string { return enum.Name(ruleNames[:], int(r)) }

// Level grades a note.
type Level uint8

const (
	LevelNote Level = iota
	LevelWarn
	LevelError
)

var levelNames = [...]string{LevelNote: "note", LevelWarn: "warn", LevelError: "error"}

func (l Level) String() string { return enum.Name(levelNames[:], int(l)) }

// EventKind says what an Event carries.
type EventKind uint8

const (
	EventOpen     EventKind = iota // a new TCP flow; Rule says how its server side was chosen
	EventData                      // reassembled bytes of one direction
	EventGap                       // Lost bytes are missing in one direction
	EventClose                     // the flow ended (RST, or FIN in both directions)
	EventNote                      // a remark about the capture or a flow
	EventDatagram                  // one UDP datagram on an Options.DatagramPorts port (Data, FromServer)
)

var kindNames = [...]string{EventOpen: "open", EventData: "data", EventGap: "gap", EventClose: "close", EventNote: "note", EventDatagram: "datagram"}

func (k EventKind) String() string { return enum.Name(kindNames[:], int(k)) }

// Event is one step of a capture: a flow opening, bytes of one direction,
// a gap, a close or a note.
type Event struct {
	// Flow comes first, so that its 64 bytes lie where a whole-event copy
	// (16 bytes at a time) puts them: a consumer reading Flow off a copied
	// event then loads what one store wrote. At offset 8 each of its loads
	// spanned two stores, which the CPU cannot forward (issue 18).
	Flow Flow // zero for capture-wide notes
	// Data is the bytes of an EventData or EventDatagram, valid until the
	// next Next call: it may alias the frame as read, whose buffer the
	// source reuses for the next (a file's read buffer, the live ring). A
	// consumer that keeps bytes past that copies what it keeps.
	Data  []byte
	Lost  int       // EventGap: bytes missing
	Time  time.Time // capture time of the packet that produced the event
	Frame int       // frame number (from 1) of that packet
	Text  string    // EventNote: terminal-safe text
	// Offset is, for EventData and EventDatagram, the byte offset in the
	// input file of Data[0] when Data is one contiguous run of the file
	// (an in-order segment's payload delivered as is, a datagram not
	// reassembled from fragments), so that a consumer can drop the bytes
	// and read them back later; -1 otherwise (reassembled from several
	// segments or fragments, gzip, standard input, memory, live, other
	// kinds).
	Offset int64
	// ID numbers the TCP flow of an open, data, gap or close event, from 1
	// in the order flows open, never again for another flow (until 2³²
	// flows); 0 for other events. A consumer may key its per-flow state by
	// it rather than by Flow: a new flow on the 4-tuple of a closed one has
	// the same Flow and a new ID.
	ID uint32

	// The one-byte fields come last, together, so that the event is 16
	// bytes smaller than in declaration-by-topic order.
	Kind       EventKind
	Rule       ServerRule
	FromServer bool  // direction of Data and Gap
	Level      Level // EventNote
	// Probe marks an EventDatagram yielded only because its UDP flow is
	// being probed (Options.ProbeDatagrams): its consumer may claim the
	// flow (DatagramClaimer) to have all of it.
	Probe bool
}

// DatagramClaimer is a Source that probes UDP flows
// (Options.ProbeDatagrams): ClaimDatagrams asks for every later datagram
// of flow f (either orientation), as EventDatagram without Probe. Claiming
// a flow not seen yet (a session moved to another port) is allowed, within
// Options.MaxProbeFlows.
type DatagramClaimer interface {
	ClaimDatagrams(f Flow)
}

// Stats counts what a Source has read so far.
type Stats struct {
	Packets int64 // frames read
	Bytes   int64 // captured bytes of those frames
	Read    int64 // bytes of input consumed (for progress)
	Size    int64 // total input size, -1 when unknown (stdin, live)
	Flows   int   // TCP flows opened
	// Decompressed counts, for gzip input, the bytes it expanded to so
	// far (Read and Size count the compressed bytes); 0 otherwise.
	Decompressed int64

	KernelPackets uint64 // live: packets the kernel saw
	KernelDrops   uint64 // live: packets the kernel dropped
	Live          bool

	TCPGame      int64 // TCP segments of game flows
	UDPGame      int64 // UDP datagrams on the transport port (SteamNetworkingSockets)
	UDPQuery     int64 // UDP datagrams on the query port
	UDPNonGame   int64 // other UDP datagrams
	Other        int64 // frames that are neither TCP nor UDP, or not IP at all
	Undecodable  int64 // frames whose link or IP layers failed to decode
	Gaps         int64 // gap events
	LostBytes    int64 // bytes reported missing by gap events
	Retransmits  int64 // segments whose bytes were all seen already
	BufferCapHit int64 // times an out-of-order buffer cap forced a skip

	Fragments        int64 // IPv4 fragments read
	Reassembled      int64 // IPv4 datagrams joined from them
	FragmentsDropped int64 // fragments given up (expired, over a cap, contradicting, incomplete at the end)
}

// Source yields the events of a capture in order. Next returns io.EOF at the
// end, and a nil event with any error. The event it returns, Data included,
// is the caller's until the next Next call, to read or change: a pointer
// into the source's queue, as the 168-byte event copied out at each call
// was a twentieth of `tables --json` (issue 18). A Source is used by one
// goroutine; Stats may be called between Next calls.
type Source interface {
	Next() (*Event, error)
	Stats() Stats
	Close() error
}

// Options tune a Source. Zero values take the defaults. Every Max field
// bounds something a capture can make a Source hold (SECURITY.md
// "Bounds"); hitting one is a note, never an error.
type Options struct {
	TransportPort uint16 // TCP (SystemSockets) and UDP (SteamNetworkingSockets) game port; 27016 when 0
	QueryPort     uint16 // UDP A2S query port; 27015 when 0
	// DatagramPorts are UDP ports (not the game or query port) whose
	// datagrams are yielded one each as EventDatagram, the side on such a
	// port as the server (ULinkRPC's KCP, ulinkrpc.md 2.3). Up to four
	// ports, 0 for none (an array keeps Options comparable). Nothing is
	// held for them.
	DatagramPorts [4]uint16
	// ProbeDatagrams asks for the first datagrams of every other UDP flow
	// (not on the game, query or DatagramPorts ports), up to this many
	// per flow, as EventDatagram with Probe set, so that the consumer can
	// recognise a protocol that opens with a handshake on any port
	// (ULinkRPC's KCP, ulinkrpc.md 1 and 2.3); a flow it claims through
	// DatagramClaimer then has every later datagram yielded. 0: none. A
	// flow's orientation is its first datagram's: the sender is the client.
	ProbeDatagrams int
	// MaxProbeFlows bounds the UDP flows probed and claimed; past it the
	// datagrams of new flows are only counted, in one note at the end.
	// DefaultMaxProbeFlows when 0.
	MaxProbeFlows int

	MaxBufferedPerFlow int // bytes of out-of-order data buffered per flow; 1 MiB when 0
	MaxBufferedTotal   int // bytes of out-of-order data buffered in all; 64 MiB when 0
	// MaxFlows bounds the TCP flows tracked at once, and apart from them
	// the UDP peers counted on the transport port and the A2S sources
	// whose replies are compared; 10000 when 0.
	MaxFlows int

	MaxFragments         int // IPv4 fragments held for reassembly; 16384 when 0
	MaxFragmentBytes     int // bytes of those fragments (headers and data); 4 MiB when 0
	MaxFragmentDatagrams int // IPv4 datagrams being reassembled at once; 1024 when 0

	MaxInterfaces int // pcapng interfaces read per section; 1024 when 0
	// MaxNotes bounds the notes of each kind that can repeat (A2S_INFO
	// changes, buffer cap hits, unsupported link types, decoder panics,
	// kernel drops); the rest are counted in one note at the end; 1000
	// when 0.
	MaxNotes int
	// MaxDecompressed bounds the bytes a gzip-compressed input may
	// expand to: deflate packs up to 1032 bytes into one, so the size of
	// the file does not bound its content; 4 GiB when 0.
	MaxDecompressed int64
	// Quiet, when not 0, makes a source that may wait (standard input, a
	// pipe; not a regular file) return ErrQuiet once its input has brought
	// nothing for this long after some packets, having handed on what TCP
	// reassembly held behind a hole (quiet.go).
	Quiet time.Duration
}

// Defaults, as wire.md §6 ("transport_port") and §2 (the query port) give
// them, and the bounds of SECURITY.md.
const (
	DefaultTransportPort      = 27016
	DefaultQueryPort          = 27015
	DefaultMaxBufferedPerFlow = 1 << 20
	DefaultMaxBufferedTotal   = 64 << 20
	DefaultMaxFlows           = 10000

	// The fragment bounds hold some 90 datagrams of 64 KiB in 1,500-byte
	// fragments at once, or many more small ones; 4 MiB is Linux's
	// ipfrag_high_thresh.
	DefaultMaxFragments         = 16384
	DefaultMaxFragmentBytes     = 4 << 20
	DefaultMaxFragmentDatagrams = 1024

	DefaultMaxInterfaces         = 1024
	DefaultMaxNotes              = 1000
	DefaultMaxDecompressed int64 = 4 << 30
)

func (o Options) withDefaults() Options {
	if o.TransportPort == 0 {
		o.TransportPort = DefaultTransportPort
	}
	if o.QueryPort == 0 {
		o.QueryPort = DefaultQueryPort
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxBufferedPerFlow, DefaultMaxBufferedPerFlow)
	def(&o.MaxBufferedTotal, DefaultMaxBufferedTotal)
	def(&o.MaxFlows, DefaultMaxFlows)
	def(&o.MaxFragments, DefaultMaxFragments)
	def(&o.MaxFragmentBytes, DefaultMaxFragmentBytes)
	def(&o.MaxFragmentDatagrams, DefaultMaxFragmentDatagrams)
	def(&o.MaxInterfaces, DefaultMaxInterfaces)
	def(&o.MaxNotes, DefaultMaxNotes)
	if o.MaxDecompressed <= 0 {
		o.MaxDecompressed = DefaultMaxDecompressed
	}
	return o
}

// Packet is one captured frame held in memory (NewPackets).
type Packet struct {
	Data []byte
	Link layers.LinkType
	Time time.Time
}

// ErrPermission is wrapped by OpenLive when the process may not open a raw
// socket.
var ErrPermission = errors.New("capture: live capture needs CAP_NET_RAW: run as root, or grant it once with `sudo setcap cap_net_raw+ep $(command -v usmnscope)`")
