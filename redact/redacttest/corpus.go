// Package redacttest holds the corpus of secret shapes that the redact
// package's tests and the end-to-end tests run through every channel: each
// shape a text as people paste one (a command, a header, a config line, a
// sentence in English or German) holding one synthetic secret. The secrets
// are random bodies from a fixed-seed generator joined to their prefix at
// run time, so no scanner flags this package and no real key is written
// down.
package redacttest

import (
	"encoding/base64"
	"strings"
)

// Shape is one way a secret appears in a text.
type Shape struct {
	// Name says what the shape is.
	Name string
	// Format is the text: %s is the secret, %t (optional, right after %s
	// when absent) where a trailing character is tried (after a URL's host
	// for a password in a URL).
	Format string
	// Secret is the secret itself: what must not be stored.
	Secret string
	// Alone is set when the secret is found without its context (a token
	// with its own prefix): it is also tried after each of Leaders.
	Alone bool
}

// Text is the shape's text with nothing after the secret.
func (s Shape) Text() string { return s.With("") }

// With is the shape's text with trailer right after the secret (or where
// Format's %t says).
func (s Shape) With(trailer string) string {
	f := s.Format
	if !strings.Contains(f, "%t") {
		f = strings.Replace(f, "%s", "%s%t", 1)
	}
	return strings.Replace(strings.Replace(f, "%s", s.Secret, 1), "%t", trailer, 1)
}

// Trailers are the characters a secret is tried followed by: the end of
// the text, white space, the shell's and code's punctuation, quotes and a
// sentence's.
var Trailers = []string{"", " ", "\n", "|", ")", ",", ">", "&", ";", `"`, "'", "`", "]", "}", ".", ":", "!", "?", "<", "*", `\`, "\t"}

// Leaders are what a secret found alone is tried preceded by: a call, a
// pipe, quotes, an assignment, a redirection, a list, a sed command's
// delimiter, a command substitution.
var Leaders = []string{"", " ", "\n", "(", "|", "'", `"`, "=", ">", ",", "`", "[", "{", ":", "s|x|", "$(echo ", "<", "/"}

// Wrappers are what a whole shape is tried inside: a call, a quoted
// argument piped on, a JSON string, brackets.
var Wrappers = [][2]string{{"f(", ")"}, {"echo '", "'|base64"}, {`{"cmd": "`, `"}`}, {"[", "]"}, {"sed -i 's|x|", "|' .env"}}

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	hex    = "0123456789abcdef"
	alnum  = upper + lower + digits
	b64    = alnum + "+/"
)

// Rnd returns n characters of alphabet chosen by a linear congruential
// generator seeded with seed: high in entropy, the same on every run.
func Rnd(seed uint64, n int, alphabet string) string {
	var b strings.Builder
	x := seed*6364136223846793005 + 1442695040888963407
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
		b.WriteByte(alphabet[(x>>33)%uint64(len(alphabet))])
	}
	return b.String()
}

// join assembles a token from its parts.
func join(parts ...string) string { return strings.Join(parts, "") }

// gen generates the random parts of one variant of the shapes: its seeds
// are offset by off.
type gen struct{ off uint64 }

func (g gen) rnd(seed uint64, n int, alphabet string) string { return Rnd(seed+g.off, n, alphabet) }

// password is a password as people pick them: letters, a symbol, a digit.
func (g gen) password(seed uint64) string {
	return g.rnd(seed, 6, alnum) + "!" + g.rnd(seed+1, 7, alnum) + "7"
}

// opaque is an opaque token without a known prefix.
func (g gen) opaque(seed uint64, n int) string {
	return g.rnd(seed, 1, upper) + g.rnd(seed+1, n-2, alnum) + "9"
}

// pemBlock is a PEM block of the given label with a random body.
func (g gen) pemBlock(label string, seed uint64) string {
	body := g.rnd(seed, 64*6, b64)
	var lines []string
	for i := 0; i < len(body); i += 64 {
		lines = append(lines, body[i:i+64])
	}
	dashes := strings.Repeat("-", 5)
	return dashes + "BEGIN " + label + dashes + "\n" + strings.Join(lines, "\n") + "\n" + dashes + "END " + label + dashes
}

// jwt is a signed-looking JSON Web Token.
func (g gen) jwt(seed uint64) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc([]byte(`{"sub":"`+g.rnd(seed, 12, digits)+`","name":"Jane Roe","iat":1516239022}`)) + "." +
		g.rnd(seed+1, 43, alnum+"_-")
}
