package unturned

// Limits bound what one connection may hold, so a hostile or broken capture
// cannot grow memory without end. Hitting a limit is a finding, never a
// failure. The zero value of a field means its default.
type Limits struct {
	MaxEntries      int // entries per table (server, client, each missing list); default 65536
	MaxUnresolved   int // unresolved references held per connection; default 4096
	InferWindow     int // messages of an undecided direction held before inferring its width; default 32
	CheckpointEvery int // table operations between as-of checkpoints; default 1024
	MaxMessage      int // largest message the framing accepts; default 65535 (wire.md 2)
	// MaxArena bounds the bytes of messages kept in memory (those not in
	// a Store); past it the oldest arena blocks are dropped and their
	// messages list without bytes (see Capture's Storage). 0, the default,
	// keeps all: a file or stdin is read to show it whole, and only live
	// capture, which runs without end, sets a bound.
	MaxArena int64
	// MaxFindings bounds the findings kept per connection and for the
	// capture as a whole; past it findings are counted, not kept (the
	// worst severity still counts them). Default 1000.
	MaxFindings int
	// MaxBuffered bounds the bytes the framers of all connections hold
	// together (partial messages, resynchronisation buffers); past it the
	// largest are dropped with a finding. The CLI sets it to
	// max_total_buffer, the bound of the capture's out-of-order buffers,
	// so that each layer holds at most that much. Default 64 MiB.
	MaxBuffered int
}

// DefaultLimits returns the documented defaults.
func DefaultLimits() Limits {
	return Limits{MaxEntries: 65536, MaxUnresolved: 4096, InferWindow: 32, CheckpointEvery: 1024, MaxMessage: 65535, MaxFindings: 1000, MaxBuffered: 64 << 20}
}

// WithDefaults fills zero fields from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxUnresolved <= 0 {
		l.MaxUnresolved = d.MaxUnresolved
	}
	if l.MaxFindings <= 0 {
		l.MaxFindings = d.MaxFindings
	}
	if l.MaxBuffered <= 0 {
		l.MaxBuffered = d.MaxBuffered
	}
	if l.InferWindow <= 0 {
		l.InferWindow = d.InferWindow
	}
	if l.CheckpointEvery <= 0 {
		l.CheckpointEvery = d.CheckpointEvery
	}
	if l.MaxArena < 0 {
		l.MaxArena = 0
	}
	if l.MaxMessage <= 0 || l.MaxMessage > d.MaxMessage {
		l.MaxMessage = d.MaxMessage
	}
	return l
}
