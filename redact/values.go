package redact

import (
	"encoding/base64"
	"math"
	"regexp"
	"strings"
	"unicode"
)

// The checks below decide whether the value a rule of extra.go found in a
// secret's place is a secret, or something that only sits where one could:
// a reference to one (an environment variable, a template field, a call), a
// placeholder, an ordinary word or number. They keep a correction such as
// "read the password from os.environ["DB_PASSWORD"]" intact.

// codeRef matches a value that is code reading the secret from elsewhere: a
// call or an index (getenv(…), os.environ[…], ENV[…]).
var codeRef = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*[(\[]`)

// yamlTag matches a YAML tag standing for the value (!vault, !secret).
var yamlTag = regexp.MustCompile(`^![A-Za-z]+$`)

// dottedPath matches a dotted or namespaced identifier path
// (process.env.DB_PASSWORD, settings.db.password, cloudflare:apiToken).
var dottedPath = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:[.:][A-Za-z_][A-Za-z0-9_]*)+$`)

// reference reports whether v stands for a secret rather than being one:
// empty, a shell or template reference ($VAR, ${VAR}, {{ .Var }}, %s,
// %(name)s), a bracketed placeholder (<password>, [password]), the rest of
// a concatenation ("KEY="+key), a value holding one of Text's placeholders
// (which keeps Text idempotent however a match cuts one), a mask (****,
// xxxx), a YAML tag (!vault), or code that reads it (a call, an index, a
// dotted or namespaced identifier path without a digit).
func reference(v string) bool {
	if v == "" || strings.ContainsAny(v[:1], "$%{<[*+") || strings.Contains(v, "REDACTED:") {
		return true
	}
	if strings.Count(v, v[:1]) == len(v) && len(v) > 1 {
		return true // one character repeated: a mask
	}
	if codeRef.MatchString(v) || yamlTag.MatchString(v) {
		return true
	}
	return dottedPath.MatchString(v) && !strings.ContainsAny(v, "0123456789")
}

// looksGenerated reports whether v reads like a generated secret rather
// than a word, an identifier, a number, a path or a phrase: at least min
// bytes, not a reference, not a path or URL, without white space, and
// holding a letter together with a digit or a symbol other than _ . -
// (which identifiers and slugs use). A secret made of letters alone, or of
// digits alone, is not recognised here; such values in assignments are left
// to gitleaks' entropy-based generic rule.
func looksGenerated(v string, min int) bool {
	if len(v) < min || reference(v) || strings.ContainsAny(v[:1], "/~.") || strings.Contains(v, "://") {
		return false
	}
	var letter, digitOrSymbol bool
	for _, r := range v {
		switch {
		case unicode.IsLetter(r):
			letter = true // in any script: "ändern" is a word
		case r >= '0' && r <= '9':
			digitOrSymbol = true
		case r == ' ' || r == '\t':
			return false // a phrase, not a secret
		case r == '_' || r == '.' || r == '-':
		default:
			digitOrSymbol = true
		}
	}
	return letter && digitOrSymbol
}

// passwordValue is the check of a value assigned to, or said of, a password
// or secret: six bytes at least, generated-looking, not counting a final
// "!" ("the password is wrong!" is a sentence).
func passwordValue(v string) bool { return looksGenerated(strings.TrimRight(v, "!"), 6) }

// strongValue is the check of a value said of a secret in prose: as
// passwordValue, but eight bytes at least with three of lower case, upper
// case, digits and symbols ("base64" and "sha256" are words there).
func strongValue(v string) bool {
	v = strings.TrimRight(v, "!")
	if !looksGenerated(v, 8) {
		return false
	}
	var lower, upper, digit, symbol int
	for _, r := range v {
		switch {
		case unicode.IsLower(r):
			lower = 1
		case unicode.IsUpper(r):
			upper = 1
		case r >= '0' && r <= '9':
			digit = 1
		default:
			symbol = 1
		}
	}
	return lower+upper+digit+symbol >= 3
}

// bearerValue is the check of the token of an Authorization header.
func bearerValue(v string) bool { return looksGenerated(v, 8) }

// apiKeyValue is the check of the KEY of a LexSona key entry (read:KEY,
// write:KEY, TENANT:write:KEY): LexSona accepts keys of 16 bytes or more.
func apiKeyValue(v string) bool { return looksGenerated(v, 16) }

// basicValue is the check of the credentials of an Authorization: Basic
// header: base64 of "user:password", or failing that a generated-looking
// value.
func basicValue(v string) bool {
	if b, err := base64.StdEncoding.DecodeString(v); err == nil {
		if i := strings.IndexByte(string(b), ':'); i >= 0 && i < len(b)-1 {
			return true
		}
	}
	return looksGenerated(v, 8)
}

// urlPassword is the check of the password of a URL's user information:
// anything but a reference, so postgres://app:pw@db keeps its user and host
// and loses "pw", while postgres://app:${PGPASSWORD}@db is left as it is.
func urlPassword(v string) bool { return !reference(v) }

// keyValue is the check of a value assigned to a key or token setting
// (DEPLOY_TOKEN=…, --api-key …): generated-looking and eight bytes at least,
// or sixteen bytes at least of a single kind (letters only, say) whose
// entropy is that of a random string rather than a word or a phrase.
func keyValue(v string) bool {
	if looksGenerated(v, 8) {
		return true
	}
	return len(v) >= 16 && !reference(v) && !strings.ContainsAny(v, " \t/.:") && entropy(v) >= 3.7
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v string) float64 {
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(v))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// sessionCookie matches the name of a cookie that holds a session or a
// credential whatever its value looks like.
var sessionCookie = regexp.MustCompile(`sess|sid|token|auth|jwt|csrf|xsrf|remember|login|key|secret|credential`)

// cookieValue is the check of the value of the cookie name: six bytes at
// least and not a reference for a session or credential cookie, else a
// generated-looking value of twelve bytes at least (an analytics id; a
// theme or language stays).
func cookieValue(name, v string) bool {
	if len(v) < 6 || reference(v) {
		return false
	}
	return sessionCookie.MatchString(name) || looksGenerated(v, 12)
}
