package capture

import (
	"net/netip"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReadFlowsLost: ReadFlows says which stream bytes no packet carried
// (transport-mess lost one server byte, the first of a length header at
// stream offset 257), and Captured refuses a range holding it.
func TestReadFlowsLost(t *testing.T) {
	path := filepath.Join("..", "fixtures", "captures", "transport-mess.pcapng")
	f := Flow{Client: netip.MustParseAddrPort("[fd00::2]:50700"), Server: netip.MustParseAddrPort("[fd00::1]:27016")}
	fs, err := ReadFlows(path, []ExportFlow{{Flow: f}})
	if err != nil {
		t.Fatal(err)
	}
	d := fs.Data[f]
	if got := d.Lost(1); !reflect.DeepEqual(got, []Range{{257, 258}}) {
		t.Errorf("Lost(s2c) = %v; want [{257 258}]", got)
	}
	if got := d.Lost(0); len(got) != 0 {
		t.Errorf("Lost(c2s) = %v; want none", got)
	}
	for _, tt := range []struct {
		from, to int64
		want     bool
	}{
		{0, 257, true}, {257, 292, false}, {256, 258, false}, {258, 292, true}, {292, int64(len(d.Stream[1])), true}, {5, 5, true},
	} {
		if got := d.Captured(1, tt.from, tt.to); got != tt.want {
			t.Errorf("Captured(s2c, %d, %d) = %v; want %v", tt.from, tt.to, got, tt.want)
		}
	}
}
