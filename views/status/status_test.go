package status

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/usmnscope/usmnscope/dissect"
)

func TestView(t *testing.T) {
	for _, tc := range []struct {
		in   Info
		want string
	}{
		{Info{Name: "a.pcapng", Profile: "default", Messages: 3, Conns: 1, Loading: true, Progress: 0.25},
			" a.pcapng │ profile default │ 3 msgs │ 1 conn │ clean │ loading 25%"},
		{Info{Name: "x\x1b[2J", Profile: "p", Worst: dissect.Error, HasFinding: true, Err: "bad\x07"},
			` x\x1b[2J │ profile p │ 0 msgs │ 0 conns │ worst error │ error: bad\x07`},
		{Info{Name: "live lo", Profile: "default", Live: true, PacketsPerS: 12.4, Drops: 2, Paused: true, Loading: true},
			" live lo │ 12 pkt/s │ 2 drops │ PAUSED │ profile default │ 0 msgs │ 0 conns │ clean"},
	} {
		got := strings.TrimRight(ansi.Strip(View(DefaultStyles(true), tc.in, 120)), " ")
		if got != tc.want {
			t.Errorf("View(%+v) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
