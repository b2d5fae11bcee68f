package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

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
// decodes (twice: under the active profile and the inferred one; the
// search reads a sample of its messages, infer.RunBounded): the start of a
// capture, where the handshake and the definitions are, is what decides
// the constants. 512 KiB is some 50,000 small messages.
const inferSample = 512 << 10

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
explain it best, each with its evidence and confidence. The search decides
the constants in the order the wire lets them be decided (the game from the
workshop handshake, the marker, the widening, the listener header widths,
the negotiate modes) and says how many candidate profiles it tried. Keys the
capture cannot decide are left out (they keep their defaults) and listed as
undecided with the reason; client_methods and server_methods are never
decided (an InvokeMethod's parameters are not described by any profile).
--json prints {"profile": {KEY: VALUE}, "evidence": {KEY: {"confidence",
"text"}}, "undecided": {KEY: REASON}, "searched": {"candidates", "decodes",
"messages", "ms"}}.`,
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
	res := infer.Run(p, replayDecoder(rec))
	out := newOutput(o.IO.out)
	if o.json {
		b, err := inferJSON(res)
		if err != nil {
			return err
		}
		out.Write(append(b, '\n'))
		return out.Flush()
	}
	fmt.Fprintf(out, "# usmnscope profile infer: %s\n", termsafe.Escape(o.capture))
	if rec.Truncated {
		fmt.Fprintf(out, "# only the first %d KiB of the capture's data were searched\n", inferSample>>10)
	}
	fmt.Fprintf(out, "# %d messages: profile %s decodes them with score %d (%d flagged), this one with %d (%d flagged)\n",
		res.Best.Messages, termsafe.Escape(p.Name), res.Active.Bad, res.Active.Flagged, res.Best.Bad, res.Best.Flagged)
	fmt.Fprintf(out, "# searched %d candidate profiles in %d ms (%d messages read, %d decodes of the capture)\n",
		res.Candidates, res.Elapsed.Milliseconds(), res.Sample, res.Decodes)
	if len(res.Keys) == 0 {
		fmt.Fprintln(out, "# the capture decides no key: every key keeps its default")
	}
	for _, k := range res.Keys {
		fmt.Fprintf(out, "%s = %s  # confidence %.2f: %s\n", k.Name, tomlValue(k), k.Confidence, termsafe.Escape(k.Text))
	}
	for _, u := range res.Undecided {
		fmt.Fprintf(out, "# undecided: %s: %s\n", u.Name, termsafe.Escape(u.Reason))
	}
	return out.Flush()
}

// tomlValue formats a claimed value as TOML: the magic in hex, as docs/profile.md
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

// inferJSON is docs/json.md's profile infer document.
func inferJSON(res *infer.Result) ([]byte, error) {
	type evidence struct {
		Confidence float64 `json:"confidence"`
		Text       string  `json:"text"`
	}
	type searched struct {
		Candidates int   `json:"candidates"`
		Decodes    int   `json:"decodes"`
		Messages   int   `json:"messages"`
		MS         int64 `json:"ms"`
	}
	doc := struct {
		Profile   map[string]any      `json:"profile"`
		Evidence  map[string]evidence `json:"evidence"`
		Undecided map[string]string   `json:"undecided"`
		Searched  searched            `json:"searched"`
	}{map[string]any{}, map[string]evidence{}, map[string]string{},
		searched{res.Candidates, res.Decodes, res.Sample, res.Elapsed.Milliseconds()}}
	for _, k := range res.Keys {
		doc.Profile[k.Name] = k.Value
		doc.Evidence[k.Name] = evidence{k.Confidence, k.Text}
	}
	for _, u := range res.Undecided {
		doc.Undecided[u.Name] = u.Reason
	}
	return json.Marshal(doc)
}

// Hint bounds: the sample a dump or tables spends, only when the active
// profile decodes a capture badly, on finding whether another profile
// decodes it cleanly, and the candidate profiles the search reads it under
// (infer.RunBounded: two decodes of the sample's start, each candidate
// reading at most a few thousand messages of it).
const (
	hintSample     = 256 << 10
	hintCandidates = 5000
)

// The hint's time is bounded by the work it may do (issue 29: at most a
// tenth of the load and 1 s), counted in message decodes as
// infer.RunBudget counts them. The search reads a message 3–5 times
// faster than a load decodes one (measured on this 2-core machine: 1.3–2.9
// million readings a second; dump --json 0.57 million messages, tables
// --json more), so 3/10 of the load's messages stay within a tenth of its
// time, and 1,000,000 readings within 1 s. A capture the profile decodes
// badly hands out few messages for its bytes (the 19.5 MB load of 200,000
// messages gives 26,807 under a wrong profile, in the same 0.9 s of CPU),
// so the load is also counted by its bytes: a reading per 128 bytes of
// the file, under a tenth of the load's time at the rates above. Below
// 30,000 readings (10–25 ms, less than starting the process) a small
// capture is searched as before. The sample it records is at most a
// twentieth of the file: its two decodes count in the bound too.
const (
	hintMaxDecodes = 1_000_000
	hintMinDecodes = 30_000
	hintMinSample  = 64 << 10
)

// hintBudget is the message decodes the hint may spend after a load that
// handed out messages from a file of size bytes.
func hintBudget(messages int, size int64) int {
	return min(hintMaxDecodes, max(hintMinDecodes, messages*3/10, int(min(size/128, hintMaxDecodes))))
}

// hintSampleBytes is the capture data the hint records from a file of
// size bytes.
func hintSampleBytes(size int64) int {
	return int(min(hintSample, max(hintMinSample, size/20)))
}

// hintRun is the hint's search (a test counts the work it is given and
// spends).
var hintRun = infer.RunBudget

// The hint's scorer is internal/infer's (infer.Hint, infer.Tally): these
// names keep the call sites of the decode set-up.
type hintScore = infer.Hint

// hintTally tallies a streaming Index's messages as they are handed out.
type hintTally struct{ infer.Tally }

func (t *hintTally) head(dc *session.Index, h *session.Head) { t.Head(dc, h) }
func (t *hintTally) score(dc *session.Index) hintScore       { return t.Score(dc) }

// scoreIndex is the hint's score of a full Index.
func scoreIndex(dc *session.Index) hintScore { return infer.ScoreHeads(dc) }

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
	if path == "-" || !h.Bad() {
		return
	}
	src, err := capture.Open(path, captureOptions(p))
	if err != nil {
		return
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	rec := pipeline.Record(src, hintSampleBytes(size))
	src.Close()
	res := hintRun(p, replayDecoder(rec), hintCandidates, hintBudget(dc.Len(), size))
	if res.Best.Broken > 0 || res.Best.Flagged >= res.Active.Flagged && res.Best.Bad >= res.Active.Bad || len(res.Keys) == 0 || *res.Profile == *p {
		return
	}
	dc.Note(dissect.Conn{}, dissect.Finding{Severity: dissect.Warn, Group: dissect.Protocol, Bit: -1,
		Text: fmt.Sprintf("profile %s decodes %d of %d messages with findings; a profile inferred from the capture decodes them without errors and with fewer findings: `usmnscope profile infer %s > inferred.toml`, then --profile inferred.toml",
			termsafe.Escape(p.Name), res.Active.Flagged, res.Active.Messages, termsafe.Escape(path))})
}
