// Package kcp is KCP over UDP as a transport a protocol composes: the
// segments of a datagram (ParseSegment, ParseDatagram: a 24-byte
// little-endian header, conv, cmd, frg, wnd, ts, sn, una, len, and its
// data), and a Reassembler that rebuilds one direction's messages per
// conversation as a KCP receiver in message mode does: PUSH segments put
// back in sn order, retransmissions dropped as duplicates, the fragments
// of a message (frg counting down to 0) joined; ACK, WASK and WINS
// counted. Each message says the datagram it arrived with: the one after
// which a receiver could deliver it.
//
// A conversation's start is the protocol's to say (its handshake:
// Reassembler.Start), else the first sn seen starts it. What a protocol
// makes of the messages (ULinkRPC frames their bytes as one
// length-prefixed stream per conversation) is its own.
//
// It knows no protocol: the prefix its parse-error findings take, and the
// shared allowance its buffers draw from, are its Config's.
//
// # Bounds
//
// A Reassembler holds at most Config.MaxConvs conversations per
// direction, Config.MaxSegments segments ahead of a missing sn and
// Config.MaxConvData bytes a conversation, Config.MaxData bytes in all,
// and draws from Config.Budget: past a bound it skips the gap, with a
// warning, and hands on the messages behind it. A message never grows
// past 256 fragments (frg is a byte).
package kcp
