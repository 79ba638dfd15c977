package models

// Candidate is one place a model folder or the ONNX Runtime library was
// looked for, and what was found there: what `lexsona doctor` reports and
// what the embedder's choice is explained with.
type Candidate struct {
	// Source says where the path comes from: "option" (a flag or the
	// variable the front end read), "LEXSONA_ORT_LIB", "checkout" (a
	// .cache/ folder of a LexSona checkout), "executable" (beside the
	// binary), "installed" (the data folder `make install` copies into),
	// "hf_cache" (the Hugging Face cache), "system" (the system loader).
	Source string `json:"source"`
	// Path is what was looked at; "" for an option that was not given.
	Path string `json:"path"`
	// Taken is true for the one candidate used.
	Taken bool `json:"taken"`
	// Why says what was found: why it was taken, or why not.
	Why string `json:"why"`
}
