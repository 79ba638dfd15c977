package redact

import (
	"bytes"
	"errors"
	"io"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAML returns a YAML document (a rule registry, say) with every secret in
// it replaced by its placeholder, and how many secrets it replaced. The
// secrets are found in the whole text, so a value keeps the context that
// makes it one (password: VALUE); they are replaced in the parsed scalars
// and comments, and the document is encoded again (comments, key order,
// anchors and scalar styles kept, indentation two spaces), so that a
// placeholder never changes what the document says: [REDACTED:password]
// as a value is quoted, not read as a list.
//
// A document without a secret is returned as it is, byte for byte. Text
// that does not parse as YAML, or whose secrets the encoded document would
// still hold, is redacted as text (see Text).
func YAML(data []byte) ([]byte, int) {
	s := string(data)
	spans := findSpans(s)
	docs, err := decodeAll(data)
	if err != nil {
		if len(spans) == 0 {
			return data, 0
		}
		out, n := apply(s, spans)
		return []byte(out), n
	}
	secrets := secretsOf(s, spans)
	n := 0
	for _, d := range docs {
		n += redactNode(d, secrets)
	}
	if n == 0 {
		return data, 0
	}
	out, err := encodeAll(docs)
	if err != nil || holdsAny(out, secrets) {
		text, n := apply(s, spans)
		return []byte(text), n
	}
	return out, n
}

// secret is a secret's text and its placeholder.
type secret struct{ text, placeholder string }

// secretsOf returns the distinct secrets the spans of s cover, longest
// first, so that a secret holding another is replaced whole. A secret
// shorter than everywhere (a URL's "pw") is left to the scalar's own
// redaction, which sees the URL around it.
func secretsOf(s string, spans []span) []secret {
	seen := map[string]bool{}
	var out []secret
	for _, sp := range spans {
		if t := s[sp.start:sp.end]; len(t) >= everywhere && !seen[t] {
			seen[t] = true
			out = append(out, secret{t, Placeholder(sp.kind)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].text) > len(out[j].text) })
	return out
}

// redactNode replaces the secrets in the scalars and comments of n and its
// children, then redacts each of them as a text of its own, and returns how
// many secrets it replaced.
func redactNode(n *yaml.Node, secrets []secret) int {
	count := 0
	for _, f := range []*string{&n.HeadComment, &n.LineComment, &n.FootComment, &n.Value} {
		if f == &n.Value && n.Kind != yaml.ScalarNode || *f == "" {
			continue
		}
		for _, sec := range secrets {
			if k := strings.Count(*f, sec.text); k > 0 {
				*f = strings.ReplaceAll(*f, sec.text, sec.placeholder)
				count += k
			}
		}
		var k int
		*f, k = Text(*f)
		count += k
	}
	if n.Kind == yaml.ScalarNode && count > 0 {
		n.Tag = "" // a redacted value is a string, whatever it was tagged
	}
	for _, c := range n.Content {
		count += redactNode(c, secrets)
	}
	return count
}

// decodeAll parses every document of data.
func decodeAll(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var d yaml.Node
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, &d)
	}
}

// encodeAll encodes docs as one stream, indented by two spaces.
func encodeAll(docs []*yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// holdsAny reports whether data holds one of secrets.
func holdsAny(data []byte, secrets []secret) bool {
	for _, s := range secrets {
		if bytes.Contains(data, []byte(s.text)) {
			return true
		}
	}
	return false
}
