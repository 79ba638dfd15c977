package models

// As finds, in e or the embedders e wraps (through Cached, the server's
// micro-batcher and any other wrapper with an Unwrap() Embedder method), the
// first that is a T — the way errors.As walks wrapped errors — and reports
// whether there was one.
func As[T any](e Embedder) (T, bool) {
	for e != nil {
		if t, ok := e.(T); ok {
			return t, true
		}
		u, ok := e.(interface{ Unwrap() Embedder })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	var zero T
	return zero, false
}
