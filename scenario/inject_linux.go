//go:build linux

package scenario

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// packetSender is an AF_PACKET SOCK_RAW socket bound to one interface:
// frames are sent whole, link header included, with sendmmsg, a batch per
// system call.
type packetSender struct {
	fd   int
	msgs []mmsghdr
	iov  []unix.Iovec
}

// mmsghdr is struct mmsghdr of sendmmsg(2), which x/sys/unix lacks.
type mmsghdr struct {
	hdr unix.Msghdr
	len uint32
	_   [4]byte
}

// openFrameSender opens the packet socket. Its protocol is 0, not
// ETH_P_ALL: a socket with a protocol also receives, and on lo would be
// handed a copy of every frame it sends. PACKET_QDISC_BYPASS hands frames
// straight to the driver, skipping the outgoing copy to packet taps
// (which live on lo drops anyway, keeping the looped incoming one).
func openFrameSender(iface string) (frameSender, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, fmt.Errorf("inject: interface %q: %w", iface, err)
	}
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil, fmt.Errorf("inject: %w (packet socket: %v)", ErrInjectPermission, err)
		}
		return nil, fmt.Errorf("inject: packet socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Ifindex: ifi.Index}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("inject: bind to %q: %w", iface, err)
	}
	// Best effort: without it (old kernels) frames take the queueing path.
	_ = unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_QDISC_BYPASS, 1)
	return &packetSender{fd: fd, msgs: make([]mmsghdr, maxBatch), iov: make([]unix.Iovec, maxBatch)}, nil
}

func (p *packetSender) send(frames [][]byte) error {
	for len(frames) > 0 {
		n := min(len(frames), len(p.msgs))
		for i, f := range frames[:n] {
			p.iov[i].Base = unsafe.SliceData(f)
			p.iov[i].SetLen(len(f))
			p.msgs[i] = mmsghdr{}
			p.msgs[i].hdr.Iov = &p.iov[i]
			p.msgs[i].hdr.SetIovlen(1)
		}
		r, _, errno := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(p.fd), uintptr(unsafe.Pointer(&p.msgs[0])), uintptr(n), 0, 0, 0)
		runtime.KeepAlive(frames)
		switch {
		case errno == unix.EINTR || errno == unix.EAGAIN || errno == unix.ENOBUFS:
			// Interrupted or the device queue is full: try again.
			runtime.Gosched()
			continue
		case errno != 0:
			return fmt.Errorf("sendmmsg of a %d-byte frame: %w", len(frames[0]), errno)
		}
		frames = frames[r:]
	}
	return nil
}

func (p *packetSender) close() error { return unix.Close(p.fd) }
