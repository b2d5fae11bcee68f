package infer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/usmnscope/usmnscope/unturned"
)

// searchedKeys are the keys the stages decide, in wire.md 6 order.
var searchedKeys = []string{"game", "extra_bits", "server_invoke_listener", "server_negotiate", "client_invoke_listener", "client_negotiate",
	"id_bit_count_bit_count", "type_name_bit_count", "negotiate_mode_bit_count",
	"mode_tell_client_missing_listener", "mode_tell_client_listener_id", "mode_tell_server_missing_listener", "mode_request_server_listener_id"}

// claims decides each searched key from the final survivors: a key is
// claimed when every survivor has the same value, none of them holds a
// filler there, and some candidate with another value was read and left
// more messages inexact (the margin). Every other key is undecided, with
// the reason.
func (s *search) claims(final []cand, smp *sample) ([]Key, []Undecided) {
	var keys []Key
	var und []Undecided
	for _, key := range searchedKeys {
		st, ok := s.keys[key]
		if !ok || s.cut >= 0 && st >= s.cut || len(final) == 0 {
			why := fmt.Sprintf("the search stopped at its bound of %d candidate profiles before deciding it", s.max)
			if s.ev.over {
				why = fmt.Sprintf("the search stopped at its bound of %d message decodes before deciding it", s.decodeBound)
			}
			und = append(und, Undecided{key, why})
			continue
		}
		vals := map[string]any{}
		free := false
		for _, c := range final {
			v := get(&c.p, key)
			vals[fmt.Sprint(v)] = v
			free = free || c.free&keyBit(key) != 0
		}
		if key == "game" && len(s.games) > 0 {
			vals = map[string]any{}
			for g := range s.games {
				vals[g] = g
			}
		}
		if free {
			und = append(und, Undecided{key, unseen(key)})
			continue
		}
		if key == "game" && smp.det[1] == 0 {
			// Without the workshop handshake only an S→C message numbered
			// 18 could tell the games apart, and it reads in 3.26 too (as
			// ReplicateConfig, whose body is not decoded): no exact
			// reading decides the game.
			und = append(und, Undecided{key, s.tie(key, map[string]any{"3.24": "3.24", "3.26": "3.26"}, smp)})
			continue
		}
		if len(vals) > 1 {
			und = append(und, Undecided{key, s.tie(key, vals, smp)})
			continue
		}
		v := get(&final[0].p, key)
		alt, at, margin := s.runnerUp(key, v, st)
		if alt == nil {
			und = append(und, Undecided{key, "no other value was tried"})
			continue
		}
		if fin := final[0].score; margin <= fin {
			und = append(und, Undecided{key, fmt.Sprintf("%s = %s scores %d better than any other value, but the best candidate still scores %d: messages no candidate reads exactly (another module's traffic, or damage) outweigh the difference",
				key, format(v, key), margin, fin)})
			continue
		}
		keys = append(keys, Key{Name: key, Value: v, Confidence: round2(1 - 1/float64(2+margin)),
			Text: s.evidence(key, &final[0].p, alt, at, margin)})
	}
	return keys, und
}

// runnerUp returns the candidate with another value of key that came
// closest, the stage it was read in and by how many messages it lost
// there (candidates that tied in a stage were judged again in the next),
// from the stage that first varies the key.
func (s *search) runnerUp(key string, v any, from int) (*cand, int, int) {
	var best *cand
	at, margin := -1, 0
	for i := from; i < len(s.stages); i++ {
		st := &s.stages[i]
		for j := range st.cands {
			c := &st.cands[j]
			if c.score == st.min || get(&c.p, key) == v {
				continue
			}
			if d := c.score - st.min; best == nil || d < margin {
				best, at, margin = c, i, d
			}
		}
	}
	return best, at, margin
}

// evidence says which messages decided a key: those the runner-up reads
// inexactly and the claimed value reads exactly.
func (s *search) evidence(key string, win *unturned.Profile, alt *cand, at, margin int) string {
	sc := s.stages[at].sc
	var tw, ta kindTally
	s.ev.eval(win, sc, &tw, nil)
	s.ev.eval(&alt.p, sc, &ta, nil)
	var by []string
	for k := range ta {
		if d := ta[k] - tw[k]; d > 0 {
			by = append(by, fmt.Sprintf("%d %s", d, unturned.Kind(k)))
		}
	}
	decided := "the messages it reads exactly"
	if len(by) > 0 {
		decided = strings.Join(by, ", ")
	}
	return fmt.Sprintf("decided by %s: with %s = %s instead (the best other value), the %d messages read score %d worse (%d a message read inexactly, %d one of a connection captured mid-stream read as a build-specific body)",
		decided, key, format(get(&alt.p, key), key), s.ev.s.n, margin, wInexact, wOpaque)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// format writes a value as the TOML output does.
func format(v any, key string) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case uint32:
		if key == "marker_magic" {
			return fmt.Sprintf("0x%08X", v)
		}
		return strconv.FormatUint(uint64(v), 10)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return fmt.Sprint(v)
}

// unseen is why a key that only a message of some kind shows is not
// decided: no such message was read.
func unseen(key string) string {
	what := map[string]string{
		"server_invoke_listener":            "no C→S Invoke Message Listener",
		"server_negotiate":                  "no C→S Negotiate Listener Details",
		"client_invoke_listener":            "no S→C Invoke Message Listener",
		"client_negotiate":                  "no S→C Negotiate Listener Details",
		"mode_tell_client_missing_listener": "no TellClientMissingListener",
		"mode_tell_client_listener_id":      "no TellClientListenerId",
		"mode_tell_server_missing_listener": "no TellServerMissingListener",
		"mode_request_server_listener_id":   "no RequestServerListenerId",
	}[key]
	if what == "" {
		what = "no message that shows it"
	}
	return what + " in the capture (one widened enum value per internal message or mode is needed to tell them apart)"
}

// tie is why a key several values explain equally is not decided.
func (s *search) tie(key string, vals map[string]any, smp *sample) string {
	list := make([]any, 0, len(vals))
	for _, v := range vals {
		list = append(list, v)
	}
	sort.Slice(list, func(i, j int) bool { return less(list[i], list[j]) })
	any := valueList(list, key)
	switch key {
	case "game":
		if smp.det[1] == 0 {
			return "no DownloadWorkshopFiles in the capture: it starts after the workshop handshake (only its holiday width tells 3.24 from 3.26)"
		}
		return fmt.Sprintf("%s read the %d DownloadWorkshopFiles equally", any, smp.det[1])
	case "extra_bits":
		return fmt.Sprintf("any of %s explains the capture equally: no widened enum tells them apart (a USMN handshake with both markers, or USMN messages, are needed)", any)
	case "id_bit_count_bit_count":
		return fmt.Sprintf("any of %s reads the server's marker and S→C definitions the same (or there are none)", any)
	case "type_name_bit_count":
		return fmt.Sprintf("any of %s reads every listener type name the same: the length's high bits fall into the alignment padding (or there is no type name)", any)
	case "negotiate_mode_bit_count":
		return fmt.Sprintf("any of %s reads the Negotiate Listener Details the same (or there are none)", any)
	}
	return fmt.Sprintf("any of %s explains the capture equally", any)
}

func less(a, b any) bool {
	switch a := a.(type) {
	case string:
		return a < b.(string)
	case uint32:
		return a < b.(uint32)
	case int64:
		return a < b.(int64)
	}
	return false
}

// valueList writes sorted values, runs of consecutive integers as a..b.
func valueList(vs []any, key string) string {
	var out []string
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && next(vs[j], vs[j+1]) {
			j++
		}
		if j-i >= 2 {
			out = append(out, format(vs[i], key)+".."+format(vs[j], key))
		} else {
			for k := i; k <= j; k++ {
				out = append(out, format(vs[k], key))
			}
		}
		i = j + 1
	}
	return strings.Join(out, ", ")
}

func next(a, b any) bool {
	switch a := a.(type) {
	case uint32:
		return b.(uint32) == a+1
	case int64:
		return b.(int64) == a+1
	}
	return false
}
