package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/usmnscope/usmnscope/capture"
	"github.com/usmnscope/usmnscope/dissect"
	"github.com/usmnscope/usmnscope/internal/infer"
	"github.com/usmnscope/usmnscope/internal/pipeline"
	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
	"github.com/usmnscope/usmnscope/unturned"
)

// inferSample bounds the event data profile infer holds in memory and
// decodes again under every candidate: the start of a capture, where the
// handshake and the definitions are, is what decides the constants.
const inferSample = 16 << 20

// profileInferOptions are what a profile infer command line asks for.
type profileInferOptions struct {
	IO      *streams
	profile func() (*unturned.Profile, error)

	capture string
	json    bool
}

func newCmdProfileInfer(s *streams, runF func(*profileInferOptions) error) *cobra.Command {
	o := &profileInferOptions{IO: s}
	cmd := &cobra.Command{
		Use:   "infer CAPTURE",
		Short: "Search the profile constants that best explain a capture",
		Long: `Decode CAPTURE (a file, or - for standard input) again under candidate
profiles and print, as a TOML profile (docs/profile.md), the constants that
explain it best, each with its evidence and confidence. Keys the capture
cannot decide are left out (they keep their defaults); client_methods and
server_methods are never decided (an InvokeMethod's parameters are not
described by any profile). --json prints
{"profile": {KEY: VALUE}, "evidence": {KEY: {"confidence", "text"}}}.`,
		Example: "  usmnscope profile infer capture.pcapng > server.toml\n  usmnscope --profile server.toml dump capture.pcapng",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.capture = args[0]
			o.profile = profileLoader(cmd)
			if runF != nil {
				return runF(o)
			}
			return runProfileInfer(o)
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON instead of TOML")
	return cmd
}

// replayDecoder decodes a recording under any profile.
func replayDecoder(rec *pipeline.Recording) infer.Decoder {
	return func(p *unturned.Profile) *session.Index {
		ix := newDecoder(p)
		_ = pipeline.Feed(rec.Source(), ix, nil)
		return ix
	}
}

func runProfileInfer(o *profileInferOptions) error {
	p, err := o.profile()
	if err != nil {
		return err
	}
	src, err := openSource(o.IO, o.capture, p)
	if err != nil {
		return err
	}
	rec := pipeline.Record(src, inferSample)
	src.Close()
	if rec.Err != nil && len(rec.Events) == 0 {
		return fmt.Errorf("profile infer: %s: %w", termsafe.Escape(o.capture), rec.Err)
	}
	start := time.Now()
	res := infer.Run(p, replayDecoder(rec))
	elapsed := time.Since(start)
	out := newOutput(o.IO.out)
	if o.json {
		b, err := inferJSON(res, elapsed)
		if err != nil {
			return err
		}
		out.Write(append(b, '\n'))
		return out.Flush()
	}
	fmt.Fprintf(out, "# usmnscope profile infer: %s\n", termsafe.Escape(o.capture))
	if rec.Truncated {
		fmt.Fprintf(out, "# only the first %d MiB of the capture's data were searched\n", inferSample>>20)
	}
	fmt.Fprintf(out, "# %d messages: profile %s decodes them with score %d (%d flagged), this one with %d (%d flagged)\n",
		res.Best.Messages, termsafe.Escape(p.Name), res.Active.Bad, res.Active.Flagged, res.Best.Bad, res.Best.Flagged)
	if len(res.Keys) == 0 {
		fmt.Fprintln(out, "# the capture decides no key: every key keeps its default")
	}
	for _, k := range res.Keys {
		fmt.Fprintf(out, "%s = %s  # confidence %.2f: %s\n", k.Name, tomlValue(k), k.Confidence, termsafe.Escape(k.Text))
	}
	return out.Flush()
}

// tomlValue formats a claimed value as TOML: the magic in hex, as wire.md
// writes it.
func tomlValue(k infer.Key) string {
	switch v := k.Value.(type) {
	case string:
		return strconv.Quote(v)
	case uint32:
		if k.Name == "marker_magic" {
			return fmt.Sprintf("0x%08X", v)
		}
		return strconv.FormatUint(uint64(v), 10)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprint(k.Value)
}

// inferJSON is the profile infer document (docs/json.md): the keys
// claimed with their evidence, the keys left undecided with the reason,
// and what the search cost.
func inferJSON(res *infer.Result, elapsed time.Duration) ([]byte, error) {
	type evidence struct {
		Confidence float64 `json:"confidence"`
		Text       string  `json:"text"`
	}
	type searched struct {
		Candidates int   `json:"candidates"`
		Decodes    int   `json:"decodes"`
		MS         int64 `json:"ms"`
	}
	doc := struct {
		Profile   map[string]any      `json:"profile"`
		Evidence  map[string]evidence `json:"evidence"`
		Undecided map[string]string   `json:"undecided"`
		Searched  searched            `json:"searched"`
	}{map[string]any{}, map[string]evidence{}, map[string]string{},
		searched{res.Candidates, res.Decodes, elapsed.Milliseconds()}}
	for k, why := range res.Undecided {
		doc.Undecided[k] = why
	}
	for _, k := range res.Keys {
		doc.Profile[k.Name] = k.Value
		doc.Evidence[k.Name] = evidence{k.Confidence, k.Text}
	}
	return json.Marshal(doc)
}

// Hint bounds: the sample and the decodes a dump or tables spends, only
// when the active profile decodes a capture badly, on finding whether
// another profile decodes it cleanly.
const (
	hintSample  = 256 << 10
	hintDecodes = 500
)

// hintScore is what the profile hint judges a decode by: the messages,
// those flagged (infer.Score's Messages and Flagged) and whether a
// workshop message carries an unknown trailer (a marker the profile does
// not know).
type hintScore struct {
	messages, flagged int
	trailer           bool
}

// decodesBadly says whether a decode looks like the wrong profile: a
// marker the profile does not know, or a tenth of the messages flagged.
func (h hintScore) decodesBadly() bool {
	if h.messages == 0 {
		return false
	}
	return h.flagged*10 >= h.messages || h.trailer
}

// scoreIndex is hintScore of a full Index (every message kept), tallied
// from each message's Head as hintTally does for a stream: the index
// records say the kind and the worst severity without decoding, so only
// workshop messages are decoded (for their trailer note). The TUI scores
// its million-message index this way before it says loaded (issue 18).
func scoreIndex(dc *session.Index) hintScore {
	var t hintTally
	buf := make([]session.Head, 0, 4096)
	for n := 1; ; {
		hs := dc.Heads(buf, n)
		if len(hs) == 0 {
			return t.score(dc)
		}
		for i := range hs {
			t.head(dc, &hs[i])
		}
		n += len(hs)
	}
}

// workshopTrailer reports whether m is a workshop message with an unknown
// trailer note.
func workshopTrailer(m *session.Message) bool {
	if m.Kind != unturned.KindGetWorkshopFiles && m.Kind != unturned.KindDownloadWorkshopFiles {
		return false
	}
	for _, f := range m.Findings {
		if f.Severity == dissect.Note && containsTrailer(f.Text) {
			return true
		}
	}
	return false
}

// hintTally is hintScore gathered from a streaming Index (issue 18), which
// keeps no messages to score at the end: each message as it is handed out,
// from its index record (session.Stream.Heads: kind and worst severity, the
// findings infer.Score counts as flagged), and a workshop message's
// findings from the message. It equals scoreIndex of the same capture
// decoded in full, except that with payload schemas a reference resolved
// only after session's late-resolution bound is judged as it was handed
// out, undecoded.
type hintTally struct {
	h   hintScore
	rpc int // ULinkRPC messages: not Unturned ones
}

// head is a Stream.Heads: it tallies message h.N as it is handed out.
func (t *hintTally) head(dc *session.Index, h *session.Head) {
	if h.Kind == unturned.KindUnknown || h.HasFinding && h.Worst >= dissect.Warn {
		if h.RPC != nil {
			// ULinkRPC (whose Kind is Unknown) says nothing of the
			// Unturned profile.
			t.rpc++
			return
		}
		t.h.flagged++
	}
	if !t.h.trailer && (h.Kind == unturned.KindGetWorkshopFiles || h.Kind == unturned.KindDownloadWorkshopFiles) {
		if m := dc.Message(h.N); m != nil {
			t.h.trailer = workshopTrailer(m)
		}
	}
}

// score is the tally after the feed.
func (t *hintTally) score(dc *session.Index) hintScore {
	h := t.h
	h.messages = dc.Len() - t.rpc
	return h
}

func containsTrailer(s string) bool {
	const t = "unknown trailer"
	for i := 0; i+len(t) <= len(s); i++ {
		if s[i:i+len(t)] == t {
			return true
		}
	}
	return false
}

// profileHint adds a capture finding when the active profile decodes the
// capture at path badly and an inferred one decodes its start cleanly,
// with the command that prints that profile (issue 13 point 5). Standard
// input cannot be read again, so it gets no hint.
func profileHint(s *streams, p *unturned.Profile, path string, dc *session.Index) {
	if path == "-" {
		return
	}
	profileHintFrom(s, p, path, dc, scoreIndex(dc))
}

// profileHintFrom is profileHint with the decode's score given (a
// streaming Index tallies it as it goes: hintTally).
func profileHintFrom(s *streams, p *unturned.Profile, path string, dc *session.Index, h hintScore) {
	if path == "-" || !h.decodesBadly() {
		return
	}
	src, err := capture.Open(path, captureOptions(p))
	if err != nil {
		return
	}
	rec := pipeline.Record(src, hintSample)
	src.Close()
	res := infer.RunBounded(p, replayDecoder(rec), hintDecodes)
	if res.Best.Broken > 0 || res.Best.Flagged >= res.Active.Flagged && res.Best.Bad >= res.Active.Bad || len(res.Keys) == 0 || *res.Profile == *p {
		return
	}
	dc.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
		Text: fmt.Sprintf("profile %s decodes %d of %d messages with findings; a profile inferred from the capture decodes them without errors and with fewer findings: `usmnscope profile infer %s > inferred.toml`, then --profile inferred.toml",
			termsafe.Escape(p.Name), res.Active.Flagged, res.Active.Messages, termsafe.Escape(path))})
}
