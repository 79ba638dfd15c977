package engine

// ParseGivenPolarity is ParsePolarity for a polarity a request states
// outright, where the default is asked for by leaving the polarity out:
// there 0 names no polarity. Errors: EINVALID for anything but 1 and −1.
func ParseGivenPolarity(p int) (Polarity, error) {
	if p == 0 {
		return 0, Errorf(EINVALID, "polarity 0: want 1 (reinforcement) or -1 (counterexample)")
	}
	return ParsePolarity(p)
}
