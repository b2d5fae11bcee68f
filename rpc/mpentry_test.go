package rpc

import (
	"testing"

	"github.com/usmnscope/usmnscope/ulinkrpc"
)

// TestAppendEntry: a MemoryPack member cut into an MPWalk is written as
// appendField writes the field MPObject.Fields makes of it.
func TestAppendEntry(t *testing.T) {
	ins := [][]byte{
		ulinkrpc.MPEncodeObject(true, ulinkrpc.MPString("player-5"), ulinkrpc.MPInt32(73)),
		ulinkrpc.MPEncodeObject(true, ulinkrpc.MPString("t\"\u009b"), ulinkrpc.MPInt64(-1767268803063), ulinkrpc.MPFloat64(116.4)),
		ulinkrpc.MPEncodeObject(true, []byte{200}, []byte{0xfe, 0xff}, []byte{1, 2, 3}, nil,
			ulinkrpc.MPList([]byte{1, 2}, []byte{3, 4}), ulinkrpc.MPList(ulinkrpc.MPString("a"), ulinkrpc.MPString("b"))),
		ulinkrpc.MPEncodeObject(true, ulinkrpc.MPList(ulinkrpc.MPEncodeObject(true, ulinkrpc.MPString("in"), []byte{4}))),
	}
	var w ulinkrpc.MPWalk
	for _, b := range ins {
		if err := w.Cut(b, "payload"); err != nil {
			t.Fatalf("MPWalk.Cut(%x) = %v", b, err)
		}
		for i := range w.Entries {
			e := &w.Entries[i]
			f := w.Field(e, 13)
			got, want := appendEntry(nil, &w, e, 13), appendField(nil, &f)
			if string(got) != string(want) {
				t.Errorf("appendEntry(%s) = %s; want %s", w.Name(e), got, want)
			}
		}
	}
}
