//go:build !linux

package scenario

import (
	"errors"
	"net"
)

// setCongestion fails: choosing the algorithm per socket is Linux's.
func setCongestion(*net.TCPConn, string) error {
	return errors.New("only Linux sets a connection's congestion control")
}
