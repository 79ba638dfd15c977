package gate

import (
	"math"
	"regexp"
	"strings"
)

// A cue is one feature of a prompt's wording that the embedding sees
// poorly: whether it speaks to the agent about how it works ("you keep…",
// "I told you…", "from now on…") or hands it a task ("can you add…", a
// pasted stack trace). Each gives 0 or 1, except the length features.
type cue struct {
	name string
	f    func(p prompt) float64
}

// prompt is a text prepared once for the cues.
type prompt struct {
	lower string // lower case, whitespace folded
	words int
	lines []string
}

func prepare(text string) prompt {
	lower := strings.ToLower(text)
	return prompt{
		lower: strings.Join(strings.Fields(lower), " "),
		words: len(strings.Fields(lower)),
		lines: strings.Split(strings.TrimSpace(text), "\n"),
	}
}

func has(re *regexp.Regexp) func(p prompt) float64 {
	return func(p prompt) float64 { return b2f(re.MatchString(p.lower)) }
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

var (
	reNegImperativeStart = regexp.MustCompile(`^(please |pls |and |also |ok,? |no,? |again,? )?(don'?t|do not|never|stop|quit|no more|avoid|cease)\b`)
	reNegImperative      = regexp.MustCompile(`\b(don'?t|do not|never|stop|quit|no more|avoid|stop doing)\b`)
	reToldYou            = regexp.MustCompile(`\b(i told you|i said|i asked you|i already (said|told)|how many times|again\b|every (single )?time|you keep|you always|keeps? (doing|adding|creating|making|running|using)|once more)`)
	reStanding           = regexp.MustCompile(`\b(from now on|going forward|in (the )?future|next time|always|remember (that|to)|for this (project|repo)|in this (project|repo|codebase)|we (use|don'?t|never|always|prefer)|i (prefer|want you to|need you to|don'?t want|hate|like it when)|make sure (you|to) (always|never)|whenever you|any time you|as a rule)\b`)
	reComplaint          = regexp.MustCompile(`\b(why (did|are|would|do|is) you|you (just|did|used|ran|added|created|made|wrote|broke|deleted|removed|changed|started|committed|pushed|installed|invented|ignored|forgot|went)|you'?re (doing|using|adding|still)|what did i say|that'?s not what i (asked|said|wanted)|i didn'?t ask|i never asked|nobody asked|without asking)\b`)
	reAddress            = regexp.MustCompile(`\b(you|your|you'?re|yourself)\b`)
	rePermission         = regexp.MustCompile(`\b(is fine|it'?s fine|is ok(ay)?|go ahead|feel free|you (can|may) (use|just)|no need (to|for)|don'?t need to|is allowed|that'?s fine)\b`)
	reInstead            = regexp.MustCompile(`\b(instead of|rather than|not [a-z0-9._-]+,|, not )`)
	reRulesFile          = regexp.MustCompile(`(claude\.md|agents\.md|\.cursorrules|cursor rules|rules file|my rules|the rules|instructions file|memory file)`)
	reTaskStart          = regexp.MustCompile(`^(hey,? |hi,? |ok,? |okay,? |now,? |great,? |cool,? |thanks,? |also,? |next,? |alright,? )?(can|could|would) you\b|^(hey,? |hi,? |ok,? |okay,? |now,? |great,? |cool,? |also,? |next,? |alright,? |please,? |pls,? )?(add|create|implement|fix|make|write|update|build|refactor|change|remove|delete|rename|move|generate|set up|setup|install|run|deploy|check|look at|read|explain|show|tell|help|migrate|convert|debug|find|investigate|try|test|commit|push|open|start|use)\b`)
	reQuestion           = regexp.MustCompile(`^(what|how|where|which|who|when|is|are|does|do|can|should|would|will)\b.*\?$`)
	reShortAck           = regexp.MustCompile(`^(y|yes|yep|yeah|ok|okay|k|continue|go|go on|proceed|next|do it|sure|lgtm|looks good|perfect|great|thanks|thank you|ty|nice|cool|keep going)[.! ]*$`)
	reErrorPaste         = regexp.MustCompile(`(traceback \(most recent call last\)|^\s*at [\w.$<>]+\(|error:|exception|panic:|fatal:|\bfail\b|errno|stack trace|undefined reference|segmentation fault|npm err!|warning:|exit (code|status) \d)`)
)

// cues are the cue features, in the order of Model.Cues.
var cues = []cue{
	{"neg_imperative_start", has(reNegImperativeStart)},
	{"neg_imperative", has(reNegImperative)},
	{"told_you", has(reToldYou)},
	{"standing", has(reStanding)},
	{"complaint", has(reComplaint)},
	{"addresses_agent", has(reAddress)},
	{"permission", has(rePermission)},
	{"instead", has(reInstead)},
	{"rules_file", has(reRulesFile)},
	{"task_start", has(reTaskStart)},
	{"question", has(reQuestion)},
	{"short_ack", has(reShortAck)},
	{"error_paste", has(reErrorPaste)},
	{"code_lines", func(p prompt) float64 { return codeShare(p.lines) }},
	{"log_words", func(p prompt) float64 { return math.Log1p(float64(p.words)) / 6 }},
	{"few_words", func(p prompt) float64 { return b2f(p.words <= 3) }},
	{"many_lines", func(p prompt) float64 { return b2f(len(p.lines) > 6) }},
}

// CueNames are the names of the cue features, in order.
func CueNames() []string {
	out := make([]string, len(cues))
	for i, c := range cues {
		out[i] = c.name
	}
	return out
}

// Cues returns the cue features of text, in CueNames' order.
func Cues(text string) []float64 {
	p := prepare(text)
	out := make([]float64, len(cues))
	for i, c := range cues {
		out[i] = c.f(p)
	}
	return out
}

// codeShare is the share of lines that look like code or program output:
// indented, or holding braces, semicolons, arrows, paths with a line
// number, or more symbols than letters.
func codeShare(lines []string) float64 {
	if len(lines) == 0 {
		return 0
	}
	n := 0
	for _, l := range lines {
		if looksLikeCode(l) {
			n++
		}
	}
	return float64(n) / float64(len(lines))
}

func looksLikeCode(l string) bool {
	if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
		return true
	}
	t := strings.TrimSpace(l)
	if t == "" {
		return false
	}
	if strings.ContainsAny(t, "{};") || strings.Contains(t, "=>") || strings.Contains(t, "->") || strings.Contains(t, "()") {
		return true
	}
	letters, symbols := 0, 0
	for _, r := range t {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letters++
		case r == ' ':
		default:
			symbols++
		}
	}
	return symbols > letters
}
