// Package classifier maps a user's natural-language correction to the rule it
// is about, and decides whether it insists on that rule or takes it back.
// The correction is embedded and compared, by cosine similarity (a dot
// product of normalised vectors), with the stored embeddings of every rule's
// template, examples and contrary phrasings, and with the corrections users
// confirmed for it (learned exemplars, see Learned), held in contiguous
// float32 matrices; for sentence embedders the words it shares with each rule's
// texts are mixed in (termIndex), and a correction addressed to the agent
// gains AddressedBoost on every rule. The best score falls in one of three bands
// — auto_match, confirm, new_rule — or the text names its rule itself with
// CORRECT[rule_id]: ... (explicit). The guard keeps texts that name nothing
// out of both upper bands, and an auto match on the edge of its rule (see
// neighbours) out of the auto band; the polarity check (PolarityCheck) makes a text
// that contradicts its rule a counterexample, or a question, never a
// reinforcement. Record turns the decision into evidence; Confirm resolves
// the confirm band.
package classifier

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/lexsona/lexsona/engine"
	"github.com/lexsona/lexsona/gate"
	"github.com/lexsona/lexsona/models"
)

// Defaults of Options.
const (
	DefaultK        = 5
	DefaultMinScore = 0.5
	// DefaultMaxEmbedBytes bounds the text a model embedder sees: far more
	// than the 256 tokens all-MiniLM-L6-v2 reads, so its own truncation decides.
	DefaultMaxEmbedBytes = 16 << 10
	// DefaultLexicalMaxEmbedBytes bounds the text the lexical embedder sees
	// (it has no token limit, and its cost grows with the text).
	DefaultLexicalMaxEmbedBytes = 4 << 10
)

// Options configure a Classifier. The zero value gives the product's
// behaviour: k = 5 candidates scoring above 0.5, the thresholds of the model
// (a calibration file when there is one), the DefaultGuard, and the score of
// DefaultTermWeight (for a sentence embedder, dense cosine mixed with the
// rule-vocabulary score). TermWeight = DenseOnly() gives the paper's method:
// dense cosine alone.
type Options struct {
	// Thresholds, when set, override the calibration file and the defaults.
	Thresholds *Thresholds
	// CalibrationFile is an explicit calibration file (it must exist and be
	// for the embedder's model). Otherwise CalibrationDir, when set, is
	// searched for CalibrationFileName(model ID); with neither, the
	// thresholds are Thresholds or DefaultThresholds.
	CalibrationFile string
	CalibrationDir  string
	// K is the number of candidates (DefaultK when ≤ 0).
	K int
	// MinScore is the candidate floor: only rules scoring strictly above it
	// are candidates (DefaultMinScore when 0). It is lowered to the confirm
	// threshold when that is lower, so the confirm band always has candidates.
	MinScore float64
	// Guard keeps generic corrections from auto-matching; nil means DefaultGuard().
	Guard *Guard
	// Polarity decides whether a correction contradicts the rule it matched;
	// nil means DefaultPolarityCheck().
	Polarity *PolarityCheck
	// Lexical and LexicalWeight enable hybrid scoring: score = w·dense +
	// (1−w)·lexical with w = 1 − LexicalWeight. LexicalWeight 0 (the default,
	// the paper's w = 1) uses dense scores only and never calls Lexical.
	// Lexical's vectors must be stored too (sync the registry with it).
	Lexical       models.Embedder
	LexicalWeight float64
	// TermWeight mixes in the words a correction shares with each rule's
	// texts: score = (1−t)·similarity + t·term score (see termIndex). nil
	// means DefaultTermWeight for the embedder's model; 0 (DenseOnly) scores
	// by similarity alone, as the paper does; it must be in [0, 1].
	TermWeight *float64
	// MaxEmbedBytes caps the text given to the embedder (the whole text is
	// still what Record stores); 0 means DefaultLexicalMaxEmbedBytes for the
	// lexical backend and DefaultMaxEmbedBytes otherwise.
	MaxEmbedBytes int
	// Gates are the correction gates Capture applies; nil means the shipped
	// ones (gate.Default).
	Gates *gate.Set
	// CaptureFloor is the candidate floor of a captured prompt (Capture,
	// CaptureReading): the rules scoring above it are its suggestion's
	// candidates, nearest first, whatever its band. nil means
	// DefaultCaptureFloor; it must be in [-1, 1].
	CaptureFloor *float64
	// Stance is the learned stance model a captured prompt's direction is
	// checked with (Result.DirectionUnsure); nil means the shipped one
	// (DefaultStance).
	Stance *StanceModel
}

// DefaultCaptureFloor is the candidate floor of a captured prompt: 0.30,
// the MiniLM confirm threshold, which the replay of the real corpus's train
// repositories kept (eval.CalibrateReal: lower floors put more ordinary
// prompts in the inbox than right rules first).
const DefaultCaptureFloor = 0.30

// Classifier classifies corrections against one corpus with one embedder.
// It decides and writes nothing: the use-case layer records what it decided.
// It is safe for concurrent use; its index is rebuilt lazily when the
// corpus version (or the embedder's model identity) changes.
type Classifier struct {
	corpus   Corpus
	emb      models.Embedder
	opts     Options
	guard    Guard
	polarity PolarityCheck
	termW    float64 // the resolved Options.TermWeight
	err      error   // a configuration error, returned by every call

	mu   sync.Mutex // serialises index rebuilds
	snap atomic.Pointer[snapshot]

	thrMu sync.Mutex
	thr   map[string]thresholdsEntry // by model identity ID

	learned learnedCache // vectors of learned exemplars, across rebuilds
}

type thresholdsEntry struct {
	t      Thresholds
	source string
	err    error
}

// New returns a classifier over corpus's stored vectors of emb's model. It
// does no I/O; a bad option (hybrid weight out of [0, 1], hybrid without a
// lexical embedder, a term weight out of [0, 1], invalid Options.Thresholds
// or Options.Polarity) makes every later call return an EINVALID error
// naming it.
func New(corpus Corpus, emb models.Embedder, opts Options) *Classifier {
	c := &Classifier{corpus: corpus, emb: emb, opts: opts, guard: DefaultGuard(), polarity: DefaultPolarityCheck(), thr: map[string]thresholdsEntry{}}
	if opts.Guard != nil {
		c.guard = *opts.Guard
	}
	if opts.Polarity != nil {
		c.polarity = *opts.Polarity
	}
	if emb != nil {
		c.termW = DefaultTermWeight(emb.Identity())
	}
	if opts.TermWeight != nil {
		c.termW = *opts.TermWeight
	}
	if c.opts.K <= 0 {
		c.opts.K = DefaultK
	}
	if c.opts.MinScore == 0 {
		c.opts.MinScore = DefaultMinScore
	}
	if c.opts.MaxEmbedBytes <= 0 {
		c.opts.MaxEmbedBytes = DefaultMaxEmbedBytes
		if emb != nil && emb.Backend() == "lexical" {
			c.opts.MaxEmbedBytes = DefaultLexicalMaxEmbedBytes
		}
	}
	switch w := opts.LexicalWeight; {
	case corpus == nil || emb == nil:
		c.err = engine.Errorf(engine.EINVALID, "classifier needs a corpus and an embedder")
	case !(w >= 0 && w <= 1):
		c.err = engine.Errorf(engine.EINVALID, "lexical weight %v: want a number in [0, 1]", w)
	case w > 0 && opts.Lexical == nil:
		c.err = engine.Errorf(engine.EINVALID, "hybrid scoring (lexical weight %v) needs a lexical embedder", w)
	case !(c.termW >= 0 && c.termW <= 1):
		c.err = engine.Errorf(engine.EINVALID, "term weight %v: want a number in [0, 1]", c.termW)
	case opts.CaptureFloor != nil && !(*opts.CaptureFloor >= -1 && *opts.CaptureFloor <= 1):
		c.err = engine.Errorf(engine.EINVALID, "capture floor %v: want a number in [-1, 1]", *opts.CaptureFloor)
	case opts.Thresholds != nil:
		c.err = opts.Thresholds.Validate()
	}
	if c.err == nil {
		c.err = c.polarity.Validate()
	}
	if opts.LexicalWeight == 0 {
		c.opts.Lexical = nil
	}
	return c
}

// Result is a classification. Candidates are the top-k rules scoring above
// the candidate floor, best first; a rule's score is its best over its
// affirming texts and its contrary texts. Score is the best candidate's
// score (0 when there is none, 1 for explicit). RuleID is the matched rule
// (auto_match, explicit), the top candidate (confirm), or the id of the
// candidate rule Record would propose (new_rule; Record adds -2…-9 when it
// is taken); it is empty for a new_rule Record proposes nothing for: a
// generic text, or a counterexample, which has no rule to count against.
// Polarity is what the correction says about RuleID (auto_match,
// confirm): engine.Reinforce, or engine.Counter when it contradicts the rule
// (see PolarityCheck); it is Reinforce for new_rule and explicit. Reason,
// when set, starts with "contradiction" (Polarity is Counter; "contradiction
// (unsure)" when an auto match was sent to confirm for it), "generic" (the
// text names nothing that was wrong: it is new_rule whatever its score) or
// "ambiguous" (an auto match too close to the runner-up was sent to
// confirm); see Guard.
type Result struct {
	Decision   string             `json:"decision"`
	RuleID     string             `json:"rule_id"`
	Score      float64            `json:"score"`
	Polarity   engine.Polarity    `json:"polarity"`
	Candidates []engine.Candidate `json:"candidates"`
	Embedder   string             `json:"embedder"`
	Model      string             `json:"model"`
	Thresholds Thresholds         `json:"thresholds"`
	Reason     string             `json:"reason,omitempty"`
	// Clause is the clause of a longer text that gave the top candidate its
	// score, when one beat the whole text (see Clauses).
	Clause string `json:"clause,omitempty"`
	// Gate is the correction gate's verdict (Capture only).
	Gate *GateResult `json:"gate,omitempty"`
	// DirectionUnsure says the learned stance model reads the text's
	// direction about RuleID (or its top candidate) the other way from
	// Polarity (Capture only): the suggestion should ask rather than
	// choose.
	DirectionUnsure bool `json:"direction_unsure,omitempty"`
}

// Thresholds returns the bands in force for the embedder's current model and
// where they come from: "options", "calibration:<path>" or "default".
// Errors: EINVALID/ENOTFOUND for a bad or missing calibration file.
func (c *Classifier) Thresholds() (Thresholds, string, error) {
	if c.err != nil {
		return Thresholds{}, "", c.err
	}
	id := c.emb.Identity()
	return c.thresholdsFor(id, id.ID())
}

// thresholdsFor is Thresholds for the model id whose ID() is key.
func (c *Classifier) thresholdsFor(id models.Identity, key string) (Thresholds, string, error) {
	c.thrMu.Lock()
	defer c.thrMu.Unlock()
	e, ok := c.thr[key]
	if !ok {
		e.t, e.source, e.err = resolveThresholds(c.opts, id)
		c.thr[key] = e
	}
	return e.t, e.source, e.err
}

// Classify classifies text, a correction made in context scope, without
// writing anything. Errors: EINVALID for an empty, whitespace-only or
// invalid-UTF-8 text, a text without a letter or digit, a bad scope, a
// malformed CORRECT[...] or a bad option or calibration file; ETOOLARGE for
// a text over 1 MiB; ENOTFOUND when CORRECT[...] names an unknown rule (a
// rule's id before a rename names the rule: Corpus.RuleID);
// EUNAVAILABLE (or others) from the embedder or the corpus.
func (c *Classifier) Classify(ctx context.Context, text string, scope engine.Scope) (Result, error) {
	if err := engine.ValidateCorrectionText("correction text", text); err != nil {
		return Result{}, err
	}
	s, err := engine.ParseScope(scope)
	if err != nil {
		return Result{}, err
	}
	cl, err := c.classify(ctx, text, s, "", false, false)
	if err != nil {
		return cl.Result, err
	}
	return cl.Result, c.propose(ctx, text, &cl, false)
}

// Decide is Classify for a correction about to be recorded, whose text and
// scope the caller has checked and normalised (engine.Correction.Normalize):
// they are not checked again. ruleID, when set, is the rule the caller names
// (decision explicit; a CORRECT[...] naming another rule is EINVALID);
// counter says the caller made it a counterexample (polarity −1), whatever
// its wording, so the polarity check is skipped. When a rule can be learned
// from it (Learnable), Proposal holds the candidate rule's text and vectors.
// Errors: Classify's but those of the text and scope.
func (c *Classifier) Decide(ctx context.Context, text string, scope engine.Scope, ruleID string, counter bool) (Classification, error) {
	cl, err := c.classify(ctx, text, scope, ruleID, counter, false)
	if err != nil {
		return cl, err
	}
	return cl, c.propose(ctx, text, &cl, true)
}

// Classification is a Result plus what recording it needs: the scope as
// normalised, the text as embedded and its vectors.
type Classification struct {
	Result
	scope  engine.Scope // normalised
	input  string       // the text as embedded
	vec    query        // its vector (empty for explicit)
	lexVec query        // its lexical vector (hybrid only)
	lexID  string       // the lexical model identity (hybrid only)
	// What the text says about its top candidate, for PolarityCheck, and
	// how near it is to it, for the guard's neighbour check.
	evidence evidence
	near     nearness
	sides    engine.Sides // the top candidate's
	stance   *Segment     // the part of the text the stance is read from
	cues     []float64    // the gate's cues of the text
	capture  bool         // a captured prompt: its candidates are above the capture floor
	// best are the two best scores of any rule (below the candidate floor
	// too), and clauseWon says a clause gave the top candidate its score:
	// what a joint gate reads.
	best      [2]float64
	clauseWon bool
	// Proposal is the text and vectors of the candidate rule to propose
	// (Decide and Capture set it when the classification is Learnable).
	Proposal *TextVectors
}

// classified is the classification being built.
type classified = Classification

// classify classifies a checked text in a normalised scope. ruleID, when
// set, is the rule the caller names (explicit); a CORRECT[...] naming
// another rule is then EINVALID.
// counter is the caller's own polarity −1: the correction is a
// counterexample, whatever its wording, so the polarity check is skipped;
// capture says the text is a captured prompt (see Options.CaptureFloor).
func (c *Classifier) classify(ctx context.Context, text string, scope engine.Scope, ruleID string, counter, capture bool) (classified, error) {
	var cl classified
	cl.capture = capture
	if c.err != nil {
		return cl, c.err
	}
	cl.scope = scope
	id := c.emb.Identity()
	cl.Embedder, cl.Model = c.emb.Backend(), id.ID()
	t, _, err := c.thresholdsFor(id, cl.Model)
	if err != nil {
		return cl, err
	}
	cl.Thresholds = t
	cl.Polarity = engine.Reinforce
	if counter {
		cl.Polarity = engine.Counter
	}
	named, _, ok, err := ParseExplicit(text)
	if err != nil {
		return cl, err
	}
	if ruleID != "" {
		if ok && named != ruleID {
			return cl, engine.Errorf(engine.EINVALID, "the text names rule %s with CORRECT[...] but the request names %s", named, ruleID)
		}
		named, ok = ruleID, true
	}
	if ok {
		current, found, err := c.corpus.RuleID(ctx, named)
		if err != nil {
			return cl, err
		}
		if !found {
			return cl, engine.Errorf(engine.ENOTFOUND, "rule %q not found", named)
		}
		cl.Decision, cl.RuleID, cl.Score, cl.Candidates = DecisionExplicit, current, 1, []engine.Candidate{}
		return cl, nil
	}
	r, snap, err := c.read(ctx, text, capture)
	if err != nil {
		return cl, err
	}
	c.decide(snap, &cl, &r, counter)
	return cl, nil
}

// decide fills cl from reading r against snapshot s: the candidates and
// score, the band, the guard, and the polarity (read from the clause that
// carries the top rule). counter is the caller's own polarity −1.
func (c *Classifier) decide(s *snapshot, cl *classified, r *Reading, counter bool) {
	c.score(s, cl, r)
	cl.cues = r.Cues
	t := cl.Thresholds
	cl.Decision = t.Band(cl.Score)
	if len(cl.Candidates) == 0 { // only possible with a confirm threshold at or below the floor
		cl.Decision = DecisionNewRule
	}
	cl.Decision, cl.Reason = c.guard.apply(cl.Decision, r.Words, cl.Candidates)
	if cl.Reason == "" && len(cl.Candidates) > 0 {
		cl.Decision, cl.Reason = c.guard.edge(cl.Decision, cl.Candidates[0].RuleID, cl.near)
	}
	sided := false
	stance := cl.stance // the stance is read from the clause about the rule
	if !counter && !c.polarity.Off && (cl.Decision == DecisionAutoMatch || cl.Decision == DecisionConfirm) {
		if st, ok := stance.Sides[cl.Candidates[0].RuleID]; ok {
			cl.Polarity, sided = st.Polarity, true
			if st.Polarity == engine.Counter {
				cl.Reason = joinReasons(fmt.Sprintf("%s: the text says the opposite of the rule about %q", ReasonContradiction, st.Term), cl.Reason)
			}
		}
	}
	if !counter && !sided && (cl.Decision == DecisionAutoMatch || cl.Decision == DecisionConfirm) {
		p := c.polarity.decide(stance.Cue, stance.Insists, cl.Candidates[0].RuleID, cl.evidence)
		cl.Polarity = p.pol
		if p.unsure && cl.Decision == DecisionAutoMatch {
			cl.Decision = DecisionConfirm
		}
		if p.reason != "" {
			cl.Reason = joinReasons(p.reason, cl.Reason)
		}
	}
	switch cl.Decision {
	case DecisionNewRule:
		if !counter {
			cl.Polarity = engine.Reinforce
		}
	default:
		cl.RuleID = cl.Candidates[0].RuleID
	}
}

// joinReasons joins the non-empty reasons with "; ".
func joinReasons(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}
