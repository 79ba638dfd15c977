package engine

import "slices"

// retraction replays the retraction of event id with Retract: the
// history that holds it, an earlier correction not retracted yet, gives
// back its evidence; its last correction becomes that of the newest
// correction that stays, by id (its first_seen when none does); the
// rule's statement made at that event's time is withdrawn.
func (p *Replay) retraction(ev Event, id int64) error {
	for _, t := range p.threads {
		i := slices.IndexFunc(t.marks, func(m replayMark) bool { return m.id == id })
		if i < 0 {
			continue
		}
		m := t.marks[i]
		var last replayMark
		for j, k := range t.marks {
			if j != i && k.id > last.id {
				last = k
			}
		}
		if t.stable.id > last.id {
			last = t.stable
		}
		target := Event{EventID: id, RuleID: t.RuleID, EventType: m.pol.EventType(), Polarity: m.pol, At: m.at}
		ret, err := Retract(t.Rule, target, last.at, ev.At)
		if err == nil && (ret.Rule.Alpha != ev.Alpha || ret.Rule.Beta != ev.Beta) {
			err = Errorf(EINVALID, "from alpha %g and beta %g it gives alpha %g and beta %g; it records alpha %g and beta %g",
				t.Alpha, t.Beta, ret.Rule.Alpha, ret.Rule.Beta, ev.Alpha, ev.Beta)
		}
		if err != nil {
			return Errorf(EINVALID, "it retracts event %d, %s: %s", id, m.pol.EventType(), ErrorMessage(err))
		}
		t.Rule = ret.Rule
		t.marks = slices.Delete(t.marks, i, i+1)
		if s := p.rule.Stated; s != nil && s.At.Equal(m.at) {
			p.stated = false
		}
		return nil
	}
	return Errorf(EINVALID, "it retracts event %d, which is no earlier correction of this rule's history that is not retracted already", id)
}

// merge replays the merge of a candidate into the rule (MergeRule): the
// candidate's history, one that started with a later creation, adds its
// reinforcements and counterexamples to α and β and the counts, its last
// correction when later (and it has evidence), its first_seen when
// earlier. Which history is merged into which is found by the counts,
// one created as a candidate taken first.
func (p *Replay) merge(ev Event) error {
	for _, pass := range []func(*replayThread) bool{
		func(t *replayThread) bool { return t.candidate },
		func(*replayThread) bool { return true },
	} {
		for _, into := range p.threads {
			for j, from := range p.threads {
				if from == into || !pass(from) || into.Alpha+float64(from.Reinforcements) != ev.Alpha || into.Beta+float64(from.CounterExamples) != ev.Beta {
					continue
				}
				mergeThread(into, from)
				p.threads = slices.Delete(p.threads, j, j+1)
				return nil
			}
		}
	}
	t := p.threads[0]
	return Errorf(EINVALID, "it merges a candidate, adding its reinforcements and counterexamples to alpha %g and beta %g; no history of a candidate created in this rule's history adds up to its alpha %g and beta %g",
		t.Alpha, t.Beta, ev.Alpha, ev.Beta)
}

// mergeThread adds from's evidence to into, as MergeRule adds a
// candidate's to a rule.
func mergeThread(into, from *replayThread) {
	into.MergeEvidence(from.Rule)
	into.marks = append(into.marks, from.marks...)
	if from.stable.id > into.stable.id {
		into.stable = from.stable
	}
}
