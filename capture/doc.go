// Package capture turns packet captures (pcap and pcapng files, standard
// input, frames in memory, or a live Linux interface) into per-TCP-connection,
// per-direction reassembled byte chunks with timestamps and frame numbers,
// plus notes about everything else on the game ports. It knows nothing of
// USMN or NetPak: it stops where SystemSockets framing begins
// (../shared/spec/wire.md §2, "Transports and framing").
//
// # Sources
//
// A Source yields Events until io.EOF. Open reads a file ("-" is standard
// input), NewReader any io.Reader, NewPackets frames held in memory, and
// OpenLive a live interface. The CLI, the TUI and tests all consume the same
// interface. Input that is not a capture at all is an error from Open; a
// capture that is cut or corrupt after a valid header yields what was read,
// then a note naming the byte offset, then io.EOF. Nothing in a frame can
// make a Source panic: a recover around each frame turns a decoder bug into
// a note.
//
// # Reading files
//
// Classic pcap and pcapng are read by hand out of one read buffer: a record
// or block is parsed in place and its frame handed on as a slice of the
// buffer, with no copy, no allocation and no bufio or pcapgo call per frame
// (BenchmarkReadReassemble, BenchmarkReadReassemblePcapng). pcapng
// sections of either byte order are read with their Interface Description
// Blocks (link type, snap length, if_tsresol, if_tsoffset per interface);
// Enhanced, Simple and the obsolete Packet Blocks carry frames; other blocks
// are skipped as they stream by, as is a section of an unknown major
// version. A block whose lengths lie (under 12 bytes, a trailing length
// that differs, a captured length beyond the block, more than 16 MiB) ends
// the capture with a note naming its offset. The buffer grows only as bytes
// arrive, so a lying length cannot make it allocate more than the input
// holds. A section keeps Options.MaxInterfaces interfaces; the blocks past
// them, and the frames on those interfaces, are counted in one note at the
// end. Gzip-compressed input is unpacked as it is read, up to
// Options.MaxDecompressed bytes (Stats.Decompressed counts them): its file
// size does not bound what it holds. A timestamp outside what int64
// nanoseconds hold (1677 to 2262) is clamped to the nearer end, with one
// note, rather than wrapped.
//
// # Link types
//
// Ethernet (with 802.1Q tags), Linux cooked SLL and SLL2 (what `tcpdump -i
// any` writes), raw IPv4/IPv6 (LINKTYPE_RAW, 228, 229) and BSD
// loopback/null, each per pcapng interface, carrying IPv4 or IPv6. Other
// link types are skipped with one note per interface. IPv6 extension
// headers (hop-by-hop, routing, destination options, the fragment header
// of an unfragmented packet) are followed to the TCP or UDP header, in
// files without limit and in the live kernel filter up to four of them.
//
// # IPv4 fragments
//
// Fragmented IPv4 datagrams (RFC 791 §2.3) are joined with gopacket's
// ip4defrag, whichever path decoded the frame, and then read like any
// packet. What is held is bounded (Options.MaxFragments, MaxFragmentBytes,
// MaxFragmentDatagrams: past one, the datagram begun longest ago is
// dropped), a datagram not whole 30 s of capture time after its first
// fragment is dropped, and so are fragments that contradict each other,
// as a receiver drops them; dropped data becomes a TCP gap. One note says
// fragments were seen, one the first drop, and one at the end the counts
// (Stats.Fragments, Reassembled, FragmentsDropped). Fragmented IPv6
// packets are not reassembled: their TCP or UDP data is not read.
//
// # Events
//
// EventOpen announces a TCP flow and the rule that chose its server side.
// EventData carries bytes of one direction in stream order; its Data is only
// valid until the next Next call. When Data is one in-order segment's
// payload, as is, read from a plain pcap or pcapng file, Offset is where
// those bytes lie in the file, so that a consumer may drop them and read
// them back later; it is -1 for reassembled data, gzip, standard input,
// memory and live sources. EventGap says Lost bytes of a direction
// are missing (a lost segment, or data given up on when the out-of-order
// buffer cap was hit), so that framing resynchronises (wire.md §2: "a
// capture may start mid-connection or lose segments"). EventClose follows a
// RST, or a FIN from both sides. EventNote carries text about the capture or
// a flow (UDP transports, A2S_INFO replies, unsupported link types,
// truncation, caps). Time and Frame are those of the frame that produced the
// event, frames numbered from 1. Notes the input can make repeat (A2S_INFO
// changes, buffer cap hits, unsupported link types, decoder panics, kernel
// drops) stop at Options.MaxNotes per kind; one note at the end counts
// the rest.
//
// # Which side is the server
//
// In order: the receiver of the first SYN (or the sender of a SYN+ACK) —
// rule "syn"; otherwise the side on Options.TransportPort (27016 by default,
// the profile's transport_port, wire.md §6) — rule "port"; otherwise the
// side with the lower port — rule "lower-port". The rule travels in the
// Open event so that the user can see how sure the guess is.
//
// # Reassembly
//
// Reassembly is gopacket/reassembly, behind a fast path for the common case:
// while a flow's segments arrive in order, each frame's payload is handed on
// directly, with no copy and no allocation; bytes that were already
// delivered (retransmissions, overlaps with the past) are trimmed. The first
// segment that arrives ahead of the next expected byte moves the flow, for
// the rest of its life, to the gopacket assembler, primed with a synthetic
// SYN per direction so that it continues where the fast path stopped. The
// assembler orders segments, resolves overlaps, and reports a gap when the
// missing bytes have not come after two seconds of capture time, when the
// buffer caps (Options.MaxBufferedPerFlow, MaxBufferedTotal) are hit (with a
// note), or at the end of input. A direction seen without its SYN starts at
// its first segment. Options.MaxFlows bounds the flows tracked at once.
//
// # UDP on the game ports
//
// UDP on the transport port is SteamNetworkingSockets, encrypted (wire.md
// §2): it is counted per peer and explained once, with the advice to run the
// server with -NetTransport SystemSockets. A2S_INFO replies from the query
// port (27015 by default) are decoded for the server name and the
// <net>…</net> transport tag of its keywords, and noted when they differ
// from the source's last. Other UDP is counted. Source ports cost an
// attacker nothing, so Options.MaxFlows bounds the peers counted and the
// A2S sources compared, as it bounds TCP flows; the datagrams from the
// others are counted in one note at the end. UDP on Options.DatagramPorts
// (other than those two ports) is yielded one datagram per EventDatagram,
// holding nothing: ULinkRPC's KCP (ulinkrpc.md 2.3). Its Data is the UDP
// payload in the frame, as an EventData's, only valid until the next Next
// call. With
// Options.ProbeDatagrams, the first datagrams of every other UDP flow are
// yielded too, marked Probe, for the consumer to recognise a handshake on
// any port; a flow it claims (DatagramClaimer) has all its later datagrams
// yielded. Only a count per flow is held, for at most
// Options.MaxProbeFlows flows (DefaultMaxProbeFlows); the others are
// counted in one note at the end. The package still knows no protocol.
//
// # Live capture
//
// OpenLive (Linux only) reads an AF_PACKET TPACKET_V3 ring through
// gopacket/afpacket without libpcap or cgo, on a cooked socket so that every
// interface, "any" included, yields IP packets. A kernel BPF program keeps
// `tcp port P or udp port P or udp port Q`, TCP on LiveOptions.TCPPorts,
// UDP on Options.DatagramPorts (all UDP with Options.ProbeDatagrams, all
// TCP with LiveOptions.AllTCP), and every later IPv4 fragment of TCP or
// UDP (it has no ports to judge: one of another port never completes, and
// expires), and drops the duplicate outgoing copy of
// loopback packets. Kernel packet and drop counters appear in Stats.
// LiveOptions.Write saves every packet to a pcapng file, flushed before the
// packet is decoded, so that an interrupted session loses nothing it showed.
// Without CAP_NET_RAW the error wraps ErrPermission, which says how to grant
// it.
package capture
