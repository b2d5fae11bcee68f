//go:build !linux

package scenario

import "errors"

// openFrameSender fails: the packet socket is Linux's.
func openFrameSender(string) (frameSender, error) {
	return nil, errors.New("inject: sending raw frames needs Linux (AF_PACKET)")
}
