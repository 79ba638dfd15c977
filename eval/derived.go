package eval

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// Derived figures of the real prompts (eval/realprompts/derived): for each
// labelled prompt, keyed by its text's SHA-256, what the hook's capture
// decision needs and nothing that gives its words back — the route it
// takes, the classifier's Reading of its prose (the gate's cues, how many
// informative words, and for the whole text and each clause: the
// embedding, quantised to int8 with a scale, whether it speaks to the
// agent, its polarity cue kind and insistence, and per rule its vocabulary
// score and side stance; the rules whose preference it reverses).

// DerivedPrompt is one prompt's derived figures.
type DerivedPrompt struct {
	SHA256 string
	Route  string
	// English is the share of the prompt's words that are common English
	// function words (englishWords); below NotEnglish the prompt is read
	// as written in another language.
	English float64
	Reading classifier.Reading
}

// NotEnglish is the share of common English function words below which a
// prompt is read as not English (English prose has 30–50%).
const NotEnglish = 0.1

// englishWords are common English function words.
var englishWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`the a an to of and or in on at for with from by is are was were be been it its this that these those
		you your i me my we our us he she they them not no do does did don't can can't will would should could have has had
		there here what why how when where which who if then than but so just also please all any some more only about into`) {
		englishWords[w] = true
	}
}

// englishShare is the share of text's words that are englishWords (1 for
// a text without words).
func englishShare(text string) float64 {
	n, en := 0, 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		n++
		if englishWords[w] {
			en++
		}
	}
	if n == 0 {
		return 1
	}
	return round4(float64(en) / float64(n))
}

// derivedLine is one line of a shard.
type derivedLine struct {
	SHA256   string       `json:"sha256"`
	Route    string       `json:"route"`
	English  float64      `json:"english"`
	Words    int          `json:"words,omitempty"`
	Cues     []float64    `json:"cues,omitempty"`
	Whole    *derivedSeg  `json:"whole,omitempty"`
	Clauses  []derivedSeg `json:"clauses,omitempty"`
	Reversed []int        `json:"reversed,omitempty"`
}

// derivedSeg is one segment (the whole prose or a clause). Rules are named
// by their index in DerivedMeta.Rules (map keys in decimal), vocabulary
// scores kept in units of 1e-4.
type derivedSeg struct {
	Vec       string         `json:"v"`
	Scale     float64        `json:"s"`
	Addressed bool           `json:"a,omitempty"`
	Terms     map[string]int `json:"t,omitempty"`
	Cue       int            `json:"c,omitempty"`
	Insists   bool           `json:"i,omitempty"`
	Sides     map[string]int `json:"sd,omitempty"`
}

// round4 rounds to 4 decimals (the figures kept are no finer).
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// quantize is v as int8 values (base64) and the scale that gives them back:
// v[i] ≈ q[i]·scale.
func quantize(v []float32) (string, float64) {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	scale := m / 127
	q := make([]byte, len(v))
	for i, x := range v {
		if scale > 0 {
			q[i] = byte(int8(math.Round(float64(x) / scale)))
		}
	}
	return base64.StdEncoding.EncodeToString(q), float64(float32(scale))
}

// dequantize gives the vector back, at unit length (as the embedder's).
func dequantize(s string, scale float64) ([]float32, error) {
	q, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	v := make([]float32, len(q))
	var n float64
	for i, b := range q {
		x := float64(int8(b)) * scale
		v[i] = float32(x)
		n += x * x
	}
	if n = math.Sqrt(n); n > 0 {
		for i := range v {
			v[i] = float32(float64(v[i]) / n)
		}
	}
	return v, nil
}

// ruleTable numbers the rules the derived figures name.
type ruleTable struct {
	ids []string
	at  map[string]int
}

func newRuleTable(ids []string) *ruleTable {
	t := &ruleTable{ids: ids, at: map[string]int{}}
	for i, id := range ids {
		t.at[id] = i
	}
	return t
}

// rulesOf are the rules ps name, in order.
func rulesOf(ps []DerivedPrompt) []string {
	set := map[string]bool{}
	for _, p := range ps {
		r := p.Reading
		for _, id := range r.Reversed {
			set[id] = true
		}
		for _, seg := range append([]classifier.Segment{r.Whole}, r.Clauses...) {
			for id := range seg.Terms {
				set[id] = true
			}
			for id := range seg.Sides {
				set[id] = true
			}
		}
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// encodeDerived is the line of p, its rules numbered by t.
func encodeDerived(p DerivedPrompt, t *ruleTable) derivedLine {
	l := derivedLine{SHA256: p.SHA256, Route: p.Route, English: p.English}
	if p.Route != RouteProse {
		return l
	}
	r := p.Reading
	l.Words = r.Words
	for _, id := range r.Reversed {
		l.Reversed = append(l.Reversed, t.at[id])
	}
	for _, c := range r.Cues {
		l.Cues = append(l.Cues, round4(c))
	}
	w := encodeSeg(r.Whole, r.Vector, t)
	l.Whole = &w
	for _, c := range r.Clauses {
		l.Clauses = append(l.Clauses, encodeSeg(c, c.Vector, t))
	}
	return l
}

func encodeSeg(s classifier.Segment, vec []float32, t *ruleTable) derivedSeg {
	d := derivedSeg{Addressed: s.Addressed, Cue: int(s.Cue.Kind), Insists: s.Insists}
	d.Vec, d.Scale = quantize(vec)
	for id, v := range s.Terms {
		if d.Terms == nil {
			d.Terms = map[string]int{}
		}
		d.Terms[strconv.Itoa(t.at[id])] = int(math.Round(v * 1e4))
	}
	for id, st := range s.Sides {
		if d.Sides == nil {
			d.Sides = map[string]int{}
		}
		d.Sides[strconv.Itoa(t.at[id])] = int(st.Polarity)
	}
	return d
}

// decodeDerived is the prompt of line l, read for embedder model model,
// its rules named by t. Errors: a vector that does not decode, a rule
// number t does not have.
func decodeDerived(l derivedLine, model string, t *ruleTable) (DerivedPrompt, error) {
	p := DerivedPrompt{SHA256: l.SHA256, Route: l.Route, English: l.English}
	if l.Route != RouteProse {
		return p, nil
	}
	if l.Whole == nil {
		return p, fmt.Errorf("prompt %s: no figures of its prose", l.SHA256)
	}
	r := classifier.Reading{Model: model, Words: l.Words, Cues: l.Cues}
	for _, i := range l.Reversed {
		id, err := t.id(i)
		if err != nil {
			return p, fmt.Errorf("prompt %s: %w", l.SHA256, err)
		}
		r.Reversed = append(r.Reversed, id)
	}
	var err error
	if r.Whole, r.Vector, err = decodeSeg(*l.Whole, t); err != nil {
		return p, fmt.Errorf("prompt %s: %w", l.SHA256, err)
	}
	for _, c := range l.Clauses {
		seg, vec, err := decodeSeg(c, t)
		if err != nil {
			return p, fmt.Errorf("prompt %s: %w", l.SHA256, err)
		}
		seg.Vector = vec
		r.Clauses = append(r.Clauses, seg)
	}
	p.Reading = r
	return p, nil
}

// id is the rule numbered key.
func (t *ruleTable) id(i int) (string, error) {
	if i < 0 || i >= len(t.ids) {
		return "", fmt.Errorf("rule number %d: the table has %d", i, len(t.ids))
	}
	return t.ids[i], nil
}

func decodeSeg(d derivedSeg, t *ruleTable) (classifier.Segment, []float32, error) {
	vec, err := dequantize(d.Vec, d.Scale)
	if err != nil {
		return classifier.Segment{}, nil, err
	}
	s := classifier.Segment{Addressed: d.Addressed, Cue: classifier.Cue{Kind: classifier.CueKind(d.Cue)}, Insists: d.Insists}
	for k, v := range d.Terms {
		id, err := t.key(k)
		if err != nil {
			return s, nil, err
		}
		if s.Terms == nil {
			s.Terms = map[string]float64{}
		}
		s.Terms[id] = float64(v) / 1e4
	}
	for k, pol := range d.Sides {
		id, err := t.key(k)
		if err != nil {
			return s, nil, err
		}
		if s.Sides == nil {
			s.Sides = map[string]classifier.SideStance{}
		}
		s.Sides[id] = classifier.SideStance{Polarity: engine.Polarity(pol)}
	}
	return s, vec, nil
}

// key is the rule a map key numbers.
func (t *ruleTable) key(k string) (string, error) {
	i, err := strconv.Atoi(k)
	if err != nil {
		return "", fmt.Errorf("rule number %q: %w", k, err)
	}
	return t.id(i)
}
