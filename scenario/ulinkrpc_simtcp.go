package scenario

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/usmnscope/usmnscope/decode/transport/websocket"
	"github.com/usmnscope/usmnscope/dissect"
)

// streamEnd is one end of a TCP connection carrying the ULinkRPC frame
// stream bare (ulinkrpc.md 2.1) or, after the HTTP upgrade, in WebSocket
// binary messages, one per send, masked from the client (2.2, RFC 6455 5.3).
type streamEnd struct {
	d     dissect.Dir // the side: C2S is the client
	c     *net.TCPConn
	r     *bufio.Reader
	ws    bool
	shape flow // the scenario's segment size and split headers cut the writes
	n     int64

	part   []byte // a fragmented WebSocket data message so far
	partOp websocket.Opcode
}

// maxWSFrame bounds a WebSocket frame the simulator reads: a ULinkRPC
// frame (64 MiB, ulinkrpc.md 2) with its length prefix and some slack.
const maxWSFrame = 64<<20 + 1<<10

// tapReader hands every chunk read to tap before the reader sees it.
type tapReader struct {
	r   io.Reader
	tap func([]byte)
}

func (t tapReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.tap(p[:n])
	}
	return n, err
}

// openStream connects a client to a server listening on addr and, for a
// WebSocket, runs the upgrade.
func (s *Sim) openStream(ctx context.Context, sc *RPC, i int, addr string) ([2]rpcLink, error) {
	var ends [2]rpcLink
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return ends, fmt.Errorf("simulate: %w", err)
	}
	defer l.Close()
	var d net.Dialer
	cc, err := d.DialContext(ctx, "tcp", l.Addr().String())
	if err != nil {
		return ends, err
	}
	ln := l.(*net.TCPListener)
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	sc0, err := ln.AcceptTCP()
	stop()
	if err != nil {
		cc.Close()
		return ends, err
	}
	conns := [2]*net.TCPConn{dissect.C2S: cc.(*net.TCPConn), dissect.S2C: sc0}
	var se [2]*streamEnd
	for dir, c := range conns {
		c.SetNoDelay(!s.Nagle)
		if s.Congestion != "" {
			if err := setCongestion(c, s.Congestion); err != nil {
				cc.Close()
				sc0.Close()
				return ends, fmt.Errorf("congestion control %q: %w", s.Congestion, err)
			}
		}
		var r io.Reader = c
		if s.tap != nil {
			from := dissect.Dir(1 - dir)
			r = tapReader{c, func(b []byte) { s.tap(i, from, b) }}
		}
		se[dir] = &streamEnd{d: dissect.Dir(dir), c: c, r: bufio.NewReader(r), ws: sc.U.Transport == "websocket", shape: flow{t: sc.Transport}}
		ends[dir] = se[dir]
	}
	if se[0].ws {
		stop := context.AfterFunc(ctx, func() { cc.Close(); sc0.Close() })
		err := upgrade(se[dissect.C2S], se[dissect.S2C], l.Addr().String(), sc.U.WSPath)
		stop()
		if err != nil {
			cc.Close()
			sc0.Close()
			return ends, fmt.Errorf("websocket upgrade: %w", err)
		}
	}
	return ends, nil
}

// upgrade runs the WebSocket opening handshake (RFC 6455 4; ulinkrpc.md
// 2.2): the client's GET with a fresh Sec-WebSocket-Key, the server's
// check of it and its 101 with Sec-WebSocket-Accept (or a 400), the
// client's check of the accept value.
func upgrade(client, server *streamEnd, host, path string) error {
	var nonce [16]byte
	rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	if err := client.write(websocket.EncodeUpgradeRequest(host, path, key)); err != nil {
		return err
	}
	req, err := server.readHead()
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	if why := checkUpgradeRequest(req, path); why != "" {
		server.write([]byte("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"))
		return fmt.Errorf("server: refused the upgrade: %s", why)
	}
	if err := server.write(websocket.EncodeUpgradeResponse(wsAccept(req.Header("Sec-WebSocket-Key")))); err != nil {
		return err
	}
	resp, err := client.readHead()
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	switch {
	case resp.Request || resp.Status != 101 || !resp.WebSocket():
		return fmt.Errorf("client: the server answered %d %s, not a WebSocket upgrade", resp.Status, resp.Reason)
	case resp.Header("Sec-WebSocket-Accept") != wsAccept(key):
		return fmt.Errorf("client: Sec-WebSocket-Accept %q, want %q", resp.Header("Sec-WebSocket-Accept"), wsAccept(key))
	}
	return nil
}

// checkUpgradeRequest says what is wrong with an upgrade request, "" when
// nothing (RFC 6455 4.2.1).
func checkUpgradeRequest(u websocket.Upgrade, path string) string {
	key, err := base64.StdEncoding.DecodeString(u.Header("Sec-WebSocket-Key"))
	switch {
	case !u.Request || u.Method != "GET":
		return "not a GET"
	case u.Target != path:
		return fmt.Sprintf("path %q, want %q", u.Target, path)
	case !u.WebSocket() || !strings.Contains(strings.ToLower(u.Header("Connection")), "upgrade"):
		return "no Upgrade: websocket and Connection: Upgrade"
	case u.Header("Sec-WebSocket-Version") != "13":
		return fmt.Sprintf("Sec-WebSocket-Version %q, want 13", u.Header("Sec-WebSocket-Version"))
	case err != nil || len(key) != 16:
		return "Sec-WebSocket-Key is not 16 bytes in base64"
	}
	return ""
}

// readHead reads an HTTP head up to its blank line.
func (e *streamEnd) readHead() (websocket.Upgrade, error) {
	var head []byte
	for !bytes.HasSuffix(head, []byte("\r\n\r\n")) {
		line, err := e.r.ReadSlice('\n')
		head = append(head, line...)
		if len(head) > websocket.MaxUpgradeLen {
			return websocket.Upgrade{}, fmt.Errorf("HTTP head longer than %d bytes", websocket.MaxUpgradeLen)
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return websocket.Upgrade{}, fmt.Errorf("reading the HTTP head: %w", err)
		}
	}
	return websocket.ParseUpgrade(head)
}

func (e *streamEnd) write(b []byte) error {
	n, err := e.c.Write(b)
	e.n += int64(n)
	return err
}

// send writes a send's stream bytes (in a WebSocket frame over a
// WebSocket), cut where the generator cuts its TCP segments.
func (e *streamEnd) send(sd *rpcSend) error {
	data := sd.data
	if e.ws {
		var key *[4]byte
		if e.d == dissect.C2S {
			var k [4]byte
			rand.Read(k[:])
			key = &k
		}
		data = websocket.EncodeFrame(nil, sd.op, true, key, sd.data)
	}
	from := 0
	for _, to := range e.shape.cuts(&Write{Data: data, Frames: []int{0}}) {
		if err := e.write(data[from:to]); err != nil {
			return err
		}
		from = to
	}
	return nil
}

func (e *streamEnd) recv(_ context.Context, sd *rpcSend) error {
	if !e.ws {
		got := make([]byte, len(sd.data))
		if _, err := io.ReadFull(e.r, got); err != nil {
			return err
		}
		return checkGot(got, sd.data)
	}
	op, got, err := e.readMessage()
	if err != nil {
		return err
	}
	if op != sd.op {
		return fmt.Errorf("received a WebSocket %s frame, want %s", op, sd.op)
	}
	return checkGot(got, sd.data)
}

// readMessage reads WebSocket frames up to a control frame or the last
// frame of a data message.
func (e *streamEnd) readMessage() (websocket.Opcode, []byte, error) {
	for {
		h, p, err := e.readFrame()
		if err != nil {
			return 0, nil, err
		}
		switch {
		case h.Opcode.Control():
			return h.Opcode, p, nil
		case h.Opcode == websocket.OpContinuation && e.part == nil:
			return 0, nil, errors.New("a WebSocket continuation frame outside a message")
		case h.Opcode != websocket.OpContinuation && e.part != nil:
			return 0, nil, errors.New("a WebSocket data frame inside an unfinished message")
		case h.Opcode != websocket.OpContinuation:
			e.partOp, e.part = h.Opcode, []byte{}
		}
		e.part = append(e.part, p...)
		if len(e.part) > maxWSFrame {
			return 0, nil, fmt.Errorf("a WebSocket message of more than %d bytes", maxWSFrame)
		}
		if h.Fin {
			op, msg := e.partOp, e.part
			e.part = nil
			return op, msg, nil
		}
	}
}

// readFrame reads one WebSocket frame: client frames must be masked and
// server frames not (RFC 6455 5.1).
func (e *streamEnd) readFrame() (websocket.Header, []byte, error) {
	b := make([]byte, 2, 14)
	if _, err := io.ReadFull(e.r, b); err != nil {
		return websocket.Header{}, nil, err
	}
	more := map[byte]int{126: 2, 127: 8}[b[1]&0x7f]
	if b[1]&0x80 != 0 {
		more += 4
	}
	b = b[:2+more]
	if _, err := io.ReadFull(e.r, b[2:]); err != nil {
		return websocket.Header{}, nil, err
	}
	h, err := websocket.ParseHeader(b)
	if err != nil {
		return h, nil, err
	}
	if fromClient := e.d == dissect.S2C; h.Masked != fromClient {
		return h, nil, fmt.Errorf("a WebSocket frame from the %s with mask bit %v", map[bool]string{true: "client", false: "server"}[fromClient], h.Masked)
	}
	if h.Len > maxWSFrame {
		return h, nil, fmt.Errorf("a WebSocket frame of %d bytes", h.Len)
	}
	b = append(b, make([]byte, h.Len)...)
	if _, err := io.ReadFull(e.r, b[h.Size:]); err != nil {
		return h, nil, err
	}
	_, p, err := websocket.ParseFrame(b)
	return h, p, err
}

// finish half-closes the side and reads to the peer's end: anything the
// script did not send is an error.
func (e *streamEnd) finish(context.Context) error {
	if err := e.c.CloseWrite(); err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, e.r)
	if err != nil {
		return err
	}
	if n > 0 || e.part != nil {
		return fmt.Errorf("%d bytes arrived after the script's last", n+int64(len(e.part)))
	}
	return nil
}

func (e *streamEnd) sent() int64 { return e.n }
func (e *streamEnd) close()      { e.c.Close() }
