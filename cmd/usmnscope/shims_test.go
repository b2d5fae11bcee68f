package main

import (
	"io"
	"runtime"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/filter"
	"github.com/usmnscope/usmnscope/internal/gctune"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/tuifeed"
	"github.com/usmnscope/usmnscope/netpak"
	"github.com/usmnscope/usmnscope/render"
	"github.com/usmnscope/usmnscope/schema"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
	utfeed "github.com/usmnscope/usmnscope/unturned/feed"
	"github.com/usmnscope/usmnscope/unturned/infer"
)

// The names these tests knew from before the decode builder
// (pipeline.Open), the render layer (render) and the TUI feeder (tuifeed)
// left this package: each is what the command now calls.

var (
	bitString   = render.BitString
	valueBits   = render.ValueBits
	hexASCII    = render.HexASCII
	formatValue = render.FormatValue
	summary     = render.Summary
	messageName = render.MessageName
	relTime     = render.RelTime
)

const (
	storeBlock = capture.StoreBlock
	idleFlush  = tuifeed.IdleFlush
)

// lineFormat is render.Format with its old method names.
type lineFormat struct{ start time.Time }

func (f lineFormat) line(m *session.Message) string { return render.Format{Start: f.start}.Line(m) }
func (f lineFormat) tree(m *session.Message) string { return render.Format{Start: f.start}.Tree(m) }

func writeTables(w io.Writer, dc *session.Index, at int) { render.Tables(w, dc, at) }

// attachStore makes the capture file at path the store of dc, as Open
// does ("-": none).
func attachStore(dc *session.Index, path string) {
	if path == "-" {
		return
	}
	attachFile(dc, path, nil)
}

// attachLive makes live's --write file the store of dc, as Open does.
func attachLive(dc *session.Index, path string, src any) {
	if s, ok := src.(interface{ Sync() error }); ok && path != "" {
		attachFile(dc, path, s.Sync)
	}
}

func attachFile(dc *session.Index, path string, sync func() error) {
	if s := capture.OpenStore(path, sync); s != nil {
		dc.SetStore(s)
		runtime.AddCleanup(dc, func(s *capture.FileStore) { s.Close() }, s)
	}
}

// newLiveDecoder is live's index: the arena bounded to arena bytes.
func newLiveDecoder(p *unturned.Profile, arena int64) *session.Index {
	return pipeline.NewIndex(p, arena)
}

// liveCaptureOptions are live's capture options (pipeline.LiveOptions).
func liveCaptureOptions(p *unturned.Profile, rp *pipeline.RPC, iface string, anyPort bool) capture.LiveOptions {
	return pipeline.LiveOptions(p, rp, pipeline.Live{Interface: iface, AnyPort: anyPort})
}

// decodeAsOf is p's DecodeAs, "" without a profile.
func decodeAsOf(p *unturned.Profile) string {
	if p == nil {
		return ""
	}
	return p.DecodeAs
}

// openSourceWith opens path ("-": s.in) with the capture options given.
func openSourceWith(s *streams, path string, opts capture.Options) (capture.Source, error) {
	if path == "-" {
		return capture.NewReader(s.in, "stdin", opts)
	}
	return capture.Open(path, opts)
}

// feedUI is the TUI's feeder (tuifeed.Run) over src into dc.
func feedUI(src capture.Source, dc *session.Index, rp *pipeline.RPC, send func(tea.Msg), clk tuifeed.Clock, live bool, after func()) <-chan struct{} {
	return tuifeed.Run(func(progress func(capture.Stats)) error { return pipeline.FeedRPC(src, dc, rp, progress) }, send, clk, live, after)
}

// readCaptureRPC is readCapture as dump and tables call it.
func readCaptureRPC(s *streams, p *unturned.Profile, set *schema.Set, rp *pipeline.RPC, path string, _ func(*session.Index) error, stream func(*session.Index) session.Stream) (*session.Index, error) {
	return readCapture(s, pipeline.Config{Profile: p, Schemas: set, RPC: rp}, path, stream)
}

func writeHexdump(w io.Writer, data []byte, fields []netpak.Span) { render.Hexdump(w, data, fields) }

const jsonBatchLen = render.JSONBatchLen

var boundOptions = pipeline.BoundOptions

// The helpers profile infer and its hint used (now pipeline.Infer and
// pipeline.Hint): the capture options, source and index of a decode
// without ULinkRPC, as Open makes them, and the hint's score and bounds.
func captureOptions(p *unturned.Profile) capture.Options { return pipeline.CaptureOptions(p, nil) }

func newDecoder(p *unturned.Profile) *session.Index { return pipeline.NewIndex(p, -1) }

func openSource(s *streams, path string, p *unturned.Profile) (capture.Source, error) {
	return pipeline.OpenSource(pipeline.Options{Config: pipeline.Config{Profile: p}, Path: path, Stdin: s.in})
}

type hintScore = infer.Hint

func scoreIndex(dc *session.Index) hintScore { return utfeed.Score(dc) }

func profileHint(_ *streams, p *unturned.Profile, path string, dc *session.Index) {
	pipeline.HintIndex(p, path, dc)
}

var hintBudget = pipeline.HintBudget

const (
	hintMinDecodes = pipeline.HintMinDecodes
	hintMaxDecodes = pipeline.HintMaxDecodes
)

var (
	newRPC        = pipeline.RPCWith
	rpcBounds     = pipeline.RPCBounds
	readContracts = pipeline.ReadContracts
)
var selected = filter.Select

// tuiConfig is what the TUI shows of a capture file (tuifeed.FileViews).
var tuiConfig = tuifeed.FileViews

// tuiTuning is the TUI's collector tuning (gctune.TUI).
var tuiTuning = gctune.TUI
