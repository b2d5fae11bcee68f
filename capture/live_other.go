//go:build !linux

package capture

import "errors"

// OpenLive is only implemented on Linux (AF_PACKET without libpcap).
func OpenLive(LiveOptions) (Source, error) {
	return nil, errors.New("capture: live capture is only supported on Linux; capture with tcpdump -w and open the file, or pipe `tcpdump -U -w -` into `usmnscope open -`")
}
