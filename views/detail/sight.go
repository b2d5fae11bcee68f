package detail

import (
	"fmt"
	"strings"
	"time"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
)

// sightNodes are, for a message of a connection several captures have
// (docs/json.md "Several captures"), the group of where each capture saw
// it (host, capture, frame, time on the first capture's clock), its
// one-way delay and the captures that lack it; nothing otherwise.
func sightNodes(msg *session.Message) []*node {
	s := msg.Sight
	if s == nil {
		return nil
	}
	title := "Seen in " + fmt.Sprint(len(s.Seen))
	if s.HasOneWay {
		title += ", one way " + time.Duration(s.OneWayNS).String()
	}
	if len(s.MissingIn) > 0 {
		title += ", missing in " + termsafe.Escape(strings.Join(s.MissingIn, ", "))
	}
	g := &node{path: "seen", field: -1, group: true, text: title}
	for i, e := range s.Seen {
		g.children = append(g.children, &node{path: fmt.Sprintf("seen/%d", i), field: -1, depth: 1,
			text: fmt.Sprintf("%s (%s) frame %d at %s", termsafe.Escape(e.Host), termsafe.Escape(e.Capture), e.Frame,
				time.Unix(0, e.TimeNS).UTC().Format("15:04:05.000000000"))})
	}
	if s.HasOneWay {
		g.children = append(g.children, &node{path: "seen/oneway", field: -1, depth: 1, text: "one-way delay: " + time.Duration(s.OneWayNS).String()})
	}
	for i, c := range s.MissingIn {
		g.children = append(g.children, &node{path: fmt.Sprintf("seen/missing/%d", i), field: -1, depth: 1, text: "missing in " + termsafe.Escape(c)})
	}
	return []*node{g}
}
