package eval

import (
	"math"

	"github.com/lexsona/lexsona/classifier"
)

// Report is the result of an eval run, as `lexsona eval --json` prints it.
// Overall, ByCategory, Bands and Sweep are the classifier as configured (its
// guard on, as the service runs); GuardOff holds the same with the guard
// disabled (prediction = the top rule when its score ≥ t). Results has
// every item.
type Report struct {
	Embedder         string                `json:"embedder"`
	Model            string                `json:"model"`
	Registry         string                `json:"registry"`
	Dataset          string                `json:"dataset"`
	Counts           map[string]int        `json:"counts"` // items per kind
	Thresholds       classifier.Thresholds `json:"thresholds"`
	ThresholdsSource string                `json:"thresholds_source"` // options, calibration:<path> or default
	Guard            classifier.Guard      `json:"guard"`
	// Scoring is how the classifier scores a rule (ScoringDense, or the
	// hybrid's mix); everything but PaperComparison, the paper's ablation
	// and the splits' paper columns is measured with it.
	Scoring string `json:"scoring"`

	Overall     Metrics               `json:"overall"` // at Thresholds.Auto
	ByCategory  map[string]Metrics    `json:"by_category"`
	Bands       map[string]BandCounts `json:"bands"`
	Sweep       []SweepPoint          `json:"sweep"`
	Calibration CalibrationReport     `json:"calibration"`
	Ranking     Ranking               `json:"ranking"`

	// CrossValidation is the Folds-fold cross-validation of the thresholds,
	// next to a Calibration made on the dev/test split (nil when Calibration
	// is the cross-validation itself).
	CrossValidation *CalibrationReport `json:"cross_validation,omitempty"`
	// Targets are the quality targets on the held-out items of Calibration.
	Targets Targets `json:"targets"`

	GuardOff View `json:"guard_off"`
	// PaperComparison is the table at the paper's 0.85 and 0.75 whatever
	// Thresholds are, for comparison with Paper, scored with the paper's
	// method (ScoringDense) whatever Scoring is.
	PaperComparison PaperComparison `json:"paper_comparison"`
	Ablation        []Ablation      `json:"ablation"`
	// Splits are the headline numbers on the dev and the test split alone.
	Splits      []SplitView    `json:"splits,omitempty"`
	Polarity    PolarityReport `json:"polarity"`     // at Thresholds, guard on
	WorstErrors ErrorLists     `json:"worst_errors"` // at Thresholds.Auto, guard on
	Paper       PaperTable     `json:"paper"`
	Results     []Scored       `json:"results"`
	LowOverlap  OverlapStats   `json:"low_overlap"`
	// Head compares the product's score with small trained scoring heads
	// by cross-validation inside the dev split (nil without templates).
	Head *HeadCheck `json:"head,omitempty"`
	// Warm is the classifier after some use (other labelled items fed to
	// it as learned exemplars); nil when Config.Cold. Everything above is
	// the cold classifier: the registry's texts alone.
	Warm *WarmReport `json:"warm,omitempty"`
}

// View is the headline numbers under one guard setting.
type View struct {
	Guard      classifier.Guard      `json:"guard"`
	Overall    Metrics               `json:"overall"`
	ByCategory map[string]Metrics    `json:"by_category"`
	Bands      map[string]BandCounts `json:"bands"`
	Sweep      []SweepPoint          `json:"sweep"`
}

// Ablation is the overall metrics at another threshold, guard on and off,
// with the scoring named by Scoring.
type Ablation struct {
	Label     string  `json:"label"`
	Scoring   string  `json:"scoring"`
	Threshold float64 `json:"threshold"`
	Overall   Metrics `json:"overall"`
	GuardOff  Metrics `json:"guard_off"`
}

// ErrorLists are the worst false positives and false negatives.
type ErrorLists struct {
	FalsePositives []ErrorCase `json:"false_positives"`
	FalseNegatives []ErrorCase `json:"false_negatives"`
}

// PaperRow is one row of the paper's claimed table.
type PaperRow struct {
	Category  string  `json:"category"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// PaperTable is what Appendix B of the LexSona paper claims (its data was
// never published), for side-by-side display.
type PaperTable struct {
	Source            string     `json:"source"`
	Threshold         float64    `json:"threshold"`
	Counts            [3]int     `json:"counts"` // match, new, ambiguous
	Rows              []PaperRow `json:"rows"`   // per category, then "overall"
	AblationThreshold float64    `json:"ablation_threshold"`
	AblationPrecision float64    `json:"ablation_precision"`
	AblationRecall    float64    `json:"ablation_recall"`
}

// Paper is the paper's Appendix B.
var Paper = PaperTable{
	Source:    "LexSona paper, Appendix B (section 6.1.2); 200 manually labelled corrections, all-MiniLM-L6-v2",
	Threshold: 0.85, Counts: [3]int{120, 50, 30},
	Rows: []PaperRow{
		{"tool_preference", 0.91, 0.83, 0.87},
		{"communication_style", 0.82, 0.78, 0.80},
		{"security_policy", 0.95, 0.88, 0.91},
		{"code_style", 0.79, 0.72, 0.75},
		{"overall", 0.87, 0.80, 0.83},
	},
	AblationThreshold: 0.75, AblationPrecision: 0.79, AblationRecall: 0.88,
}

// worstN is how many false positives and negatives a report lists.
const worstN = 10

// meta is what build needs besides the scored items.
type meta struct {
	embedder, model, registry, dataset string
	thresholds                         classifier.Thresholds
	source                             string
	guard                              classifier.Guard
	targetAuto, targetConfirm          float64
	crossValidate                      bool
	templates                          map[string]string
	// scoring names the product's scoring; dense is the items scored with
	// the paper's method (the same slice as scored when scoring is dense).
	scoring string
	dense   []Scored
}

// ScoringDense is Report.Scoring for the paper's method: the cosine of the
// correction's embedding with a rule's texts' (for a sentence embedder the
// dense cosine), nothing mixed in.
const ScoringDense = "embedding cosine"

// build computes every section of the report from the scored items.
func build(m meta, scored []Scored, cats map[string]string) Report {
	r := Report{
		Embedder: m.embedder, Model: m.model, Registry: m.registry, Dataset: m.dataset,
		Counts: map[string]int{}, Thresholds: m.thresholds, ThresholdsSource: m.source, Guard: m.guard,
		Scoring: m.scoring, Paper: Paper, Results: scored,
	}
	dense := m.dense
	if dense == nil {
		dense = scored
	}
	if r.Scoring == "" {
		r.Scoring = ScoringDense
	}
	for _, k := range Kinds {
		r.Counts[k] = 0
	}
	for _, s := range scored {
		r.Counts[s.Kind]++
	}
	auto := m.thresholds.Auto
	r.Overall, r.ByCategory = Score(scored, cats, auto, true)
	r.Bands = Bands(scored, false)
	r.Sweep = Sweep(scored, true, SweepFrom, SweepTo)
	r.GuardOff = View{Guard: classifier.Guard{}, Bands: Bands(scored, true), Sweep: Sweep(scored, false, SweepFrom, SweepTo)}
	r.GuardOff.Overall, r.GuardOff.ByCategory = Score(scored, cats, auto, false)
	for _, a := range []struct {
		label   string
		t       float64
		items   []Scored
		scoring string
	}{
		{"the paper's ablation threshold, the paper's method", Paper.AblationThreshold, dense, ScoringDense},
		{"auto - 0.10 (the paper's step, on the product's scale)", math.Round((auto-0.10)*100) / 100, scored, r.Scoring},
	} {
		on, _ := Score(a.items, nil, a.t, true)
		off, _ := Score(a.items, nil, a.t, false)
		r.Ablation = append(r.Ablation, Ablation{Label: a.label, Scoring: a.scoring, Threshold: a.t, Overall: on, GuardOff: off})
	}
	r.Ranking = Rank(scored)
	r.WorstErrors.FalsePositives, r.WorstErrors.FalseNegatives = WorstErrors(scored, auto, true, worstN)
	r.PaperComparison = PaperComparison{Scoring: ScoringDense,
		AtThreshold: paperPoint(dense, cats, Paper.Threshold), AtAblation: paperPoint(dense, cats, Paper.AblationThreshold)}
	r.Splits = splitViews(scored, dense, m.thresholds)
	r.Polarity = polarityReport(scored, m.thresholds, r.Splits)
	co := CalibrateOptions{TargetAuto: m.targetAuto, TargetConfirm: m.targetConfirm, Guard: true, CrossValidate: m.crossValidate}
	r.Calibration = Calibrate(scored, co)
	if r.Calibration.Method == splitMethod {
		co.CrossValidate = true
		cv := Calibrate(scored, co)
		r.CrossValidation = &cv
	}
	r.Targets = MeasureTargets(r.Calibration)
	if m.templates != nil {
		r.LowOverlap = Overlap(scored, m.templates, auto)
		var d []Scored
		if r.Scoring != ScoringDense {
			d = m.dense
		}
		r.Head = checkHead(scored, d, m.templates, r.Calibration.TargetAuto)
	}
	return r
}
