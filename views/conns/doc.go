// Package conns is the connections pane: one line per TCP connection with
// the USMN state of each side (wire.md 4.1 marker, 4.2 widening), counts,
// the worst finding and a sparkline of messages per second. Row 0 stands
// for all connections.
//
// # USMN state
//
// "usmn C/S" means the client's and the server's markers were seen (wire.md
// 4.1); "wide:c2s,s2c" lists the directions read with widened enums (wire.md
// 4.2), with "?" when the widening was inferred rather than seen. The
// sparkline shows messages per second over the connection's last seconds.
// A ULinkRPC connection shows "ulinkrpc" and its transport (tcp, websocket
// or kcp, ulinkrpc.md 2) in their place.
package conns
