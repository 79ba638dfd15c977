package eval

import (
	"github.com/lexsona/lexsona/classifier"
	"github.com/lexsona/lexsona/engine"
)

// resultPolarity is the polarity a classification would record on its rule:
// engine.Counter when the classifier found that the text contradicts the
// rule, else engine.Reinforce (also for 0, the default polarity).
func resultPolarity(res classifier.Result) engine.Polarity {
	if res.Polarity == engine.Counter {
		return engine.Counter
	}
	return engine.Reinforce
}
