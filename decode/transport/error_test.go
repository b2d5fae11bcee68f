package transport

import (
	"errors"
	"testing"
)

func TestError(t *testing.T) {
	tests := []struct {
		err      *Error
		text     string
		sentinel error
	}{
		{Short("kcp", "ts", 8, 4, 10), "kcp: ts: need 4 bytes at byte 8, have 2", ErrShort},
		{Short("websocket", "length", 1, 1, 1), "websocket: length: need 1 byte at byte 1, have 0", ErrShort},
		{Format("websocket", "opcode", 0, "reserved opcode %d", 3), "websocket: opcode: reserved opcode 3 at byte 0", ErrFormat},
		{&Error{Layer: "kcp", Offset: 2, Err: ErrFormat, Detail: "odd"}, "kcp: odd at byte 2", ErrFormat},
	}
	for _, tt := range tests {
		if tt.err.Error() != tt.text || !errors.Is(tt.err, tt.sentinel) {
			t.Errorf("%#v: %q, is %v: %v; want %q", tt.err, tt.err.Error(), tt.sentinel, errors.Is(tt.err, tt.sentinel), tt.text)
		}
	}
}
