package classifier

import (
	"context"
	"strings"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/gate"
)

// Reading is everything the classifier takes from a text's words and
// vectors before it decides: the embedding of the whole text and of its
// clauses, the gate's cues, and, for every rule of the corpus, what the
// words say about it (the rule-vocabulary score, a stance read from the
// rule's sides, a preference stated the other way round). A decision is a
// function of a Reading, the corpus and the scope (see Decide, Capture and
// CaptureReading), so a Reading kept without its text (eval's derived
// figures of real prompts) is decided exactly as the text would be.
//
// The rule-dependent parts are keyed by rule id and hold only rules the
// words touch; they are valid for the corpus texts they were read against.
type Reading struct {
	// Model is the embedder identity of the vectors.
	Model string
	// Vector is the whole text as embedded (EmbedInput).
	Vector []float32
	// Words counts the text's informative words (ContentWords), up to
	// the guard's MinContentWords.
	Words int
	// Cues are the gate's cue features (gate.Cues) of the text with its
	// lines, as the gate was fitted.
	Cues []float64
	// Whole is what the whole text says; Clauses what each clause says
	// (Clauses: at most MaxClauses, none for a text of one clause or for
	// hybrid scoring), each with its own Vector.
	Whole   Segment
	Clauses []Segment
	// Reversed are the rules whose preference the whole text states the
	// other way round (CueReversal).
	Reversed []string

	// What the text itself gives a live classification (empty in a kept
	// Reading): the input as embedded, and the whole query (sparse for a
	// lexical embedder, with its hybrid lexical part).
	input       string
	q, lexQ     query
	lexModel    string
	reversalFor map[string]string
}

// Segment is what one part of a text (the whole, or a clause) says.
type Segment struct {
	// Vector is the clause's embedding (nil for Reading.Whole, whose vector
	// is Reading.Vector).
	Vector []float32
	// Addressed: the part speaks to the agent (Addressed).
	Addressed bool
	// Terms is each rule's vocabulary score for the part (rules with none
	// left out).
	Terms map[string]float64
	// Cue is the polarity cue in its wording (DetectCue) and Insists
	// whether it insists on a rule (Insists).
	Cue     Cue
	Insists bool
	// Sides is, for each rule whose sides the part takes a stance on, the
	// stance read (sideStance).
	Sides map[string]SideStance

	text string // the clause (live readings only)
	q    query
}

// SideStance is what a text says about a rule's sides: the polarity and
// the rule's term it was read from.
type SideStance struct {
	Polarity engine.Polarity
	Term     string
}

// Read reads text (checked by the caller) against the corpus: it embeds the
// whole text and its clauses and reads every rule's figures. Errors: the
// embedder's and the corpus's; a configuration error of the classifier.
func (c *Classifier) Read(ctx context.Context, text string) (Reading, error) {
	if c.err != nil {
		return Reading{}, c.err
	}
	r, _, err := c.read(ctx, text, true)
	if r.Vector == nil {
		r.Vector = r.q.vector()
	}
	for k := range r.Clauses {
		if r.Clauses[k].Vector == nil {
			r.Clauses[k].Vector = r.Clauses[k].q.vector()
		}
	}
	return r, err
}

// read is Read, returning the snapshot it read against; the gate's cues
// are read only for a captured prompt (capture), and the vectors of a
// sparse embedder are left sparse (in the queries).
func (c *Classifier) read(ctx context.Context, text string, capture bool) (Reading, *snapshot, error) {
	r := Reading{Model: c.emb.Identity().ID()}
	raw := engine.CutAtRune(text, c.opts.MaxEmbedBytes)
	r.input = embedInput(text, c.opts.MaxEmbedBytes)
	if c.opts.Lexical != nil {
		r.lexModel = c.opts.Lexical.Identity().ID()
	}
	snap := c.current(ctx, r.Model, r.lexModel)
	var err error
	if r.q, err = embedQuery(ctx, c.emb, r.input); err != nil {
		return r, nil, err
	}
	if c.opts.Lexical != nil {
		if r.lexQ, err = embedQuery(ctx, c.opts.Lexical, engine.CutAtRune(r.input, DefaultLexicalMaxEmbedBytes)); err != nil {
			return r, nil, err
		}
	}
	var clauses []string
	if c.opts.Lexical == nil {
		clauses = Clauses(raw)
	}
	cqs, err := c.embedClauses(ctx, clauses)
	if err != nil {
		return r, nil, err
	}
	s, err := snap.wait()
	if err != nil {
		return r, nil, err
	}
	r.Vector = r.q.dense
	r.Words = countContentWords(r.input, c.guard.MinContentWords)
	if capture {
		r.Cues = gate.Cues(raw)
	}
	r.Whole = c.segment(s, r.input)
	for k, cl := range clauses {
		seg := c.segment(s, cl)
		seg.text, seg.q, seg.Vector = cl, cqs[k], cqs[k].dense
		r.Clauses = append(r.Clauses, seg)
	}
	if !c.polarity.Off {
		r.reversalFor = s.prefs.reversedRules(r.input)
		for _, id := range s.ids {
			if r.reversalFor[id] != "" {
				r.Reversed = append(r.Reversed, id)
			}
		}
	}
	return r, s, nil
}

// segment reads one part of a text against snapshot s.
func (c *Classifier) segment(s *snapshot, text string) Segment {
	seg := Segment{Addressed: Addressed(text), Cue: DetectCue(text), Insists: Insists(text)}
	if s.terms != nil {
		term := make([]float64, len(s.ids))
		s.terms.scores(text, term)
		for i, v := range term {
			if v != 0 {
				if seg.Terms == nil {
					seg.Terms = map[string]float64{}
				}
				seg.Terms[s.ids[i]] = v
			}
		}
	}
	if !c.polarity.Off && len(s.sides) > 0 {
		cls := clauses(strings.ToLower(text))
		for id, sd := range s.sides {
			if pol, ok, term := sideStanceOf(cls, sd); ok {
				if seg.Sides == nil {
					seg.Sides = map[string]SideStance{}
				}
				seg.Sides[id] = SideStance{Polarity: pol, Term: term}
			}
		}
	}
	return seg
}

// query is the segment's query: the live one, else its kept Vector.
func (seg *Segment) query() query {
	if seg.q.dense != nil || seg.q.sparse.Dims > 0 {
		return seg.q
	}
	return query{dense: seg.Vector}
}

// terms fills dst (by rule position of s) with the segment's term scores.
func (seg *Segment) terms(s *snapshot, dst []float64) {
	clear(dst)
	for id, v := range seg.Terms {
		if i, ok := s.dense.pos[id]; ok {
			dst[i] = v
		}
	}
}

// reversal is the phrase (or, for a kept Reading, the rule id) of the
// preference the text states the other way round from rule id's ("": none).
func (r *Reading) reversal(id string) string {
	if p, ok := r.reversalFor[id]; ok {
		return p
	}
	for _, x := range r.Reversed {
		if x == id {
			return id
		}
	}
	return ""
}
