package redact

import (
	"regexp"
	"slices"
	"sync"
)

// extraRule is a secret shape the gitleaks default rules miss, checked
// beside them. The secret is the regexp's first non-empty group, or the
// whole match when it has none; only that part is replaced, so a URL keeps
// its scheme, user and host and a header its name. A rule runs only near
// its keywords (lower case; see scan.go), and keeps a finding only when
// valid, if set, accepts the secret (see values.go).
//
// With from set, the regexp is anchored (^) and runs once where from says a
// match holding the keyword at k must begin; without, it runs unanchored on
// the keyword's window. With value set, the regexp matches a name and what
// joins it to its value, and valueAt reads the value (the secret) from
// there: a loop over bytes, where a regexp would cost far more on a long
// value. A rule with scan instead of a regexp finds its secrets itself from
// the keyword at k (see web.go and cli.go), and says up to where the
// keywords that follow need no scan of their own.
type extraRule struct {
	id       string
	keywords []string
	from     func(s string, k int) (int, bool)
	re       *regexp.Regexp
	value    bool // re ends where the secret begins: valueAt reads it
	scan     func(s string, k int) ([]span, int)
	valid    func(string) bool
}

// Shared pieces of the patterns below.
const (
	// passwordNames are the names of a password or secret setting: any
	// prefix (DB_, PG, mysql-root-) for the long words, a separated one for
	// the short words (pwd, DB_PWD, DB_PASS; "pass" alone is a verb), and an
	// optional _key suffix.
	passwordNames = `(?:[a-z0-9_.-]*(?:password|passwd|passphrase|passwort|kennwort|secret)|(?:[a-z0-9]+[_.-])*pwd|(?:[a-z0-9]+[_.-])+pass)(?:[_.-]?key)?`
	// keyNames are the names of a key or token setting: NAME_KEY,
	// DEPLOY_TOKEN, --api-key, access_token, apiKey, authToken.
	keyNames = `(?:--?)?(?:(?:[a-z0-9]+[_.-])+(?:key|tokens?|auth|credentials?|apikey)|(?:[a-z0-9]+[_.-])*(?:apikey|apitoken|authtoken|accesstoken|accesskey|secretkey|privatekey|refreshtoken|sessiontoken|bearertoken))`
	// keyFlags are the flags that take a key or token as their next
	// argument: --api-key VALUE, --token VALUE, --auth-token VALUE.
	keyFlags = `--(?:[a-z0-9]+-)*(?:key|token|secret|credentials?|apikey)[ \t]+`
	// assigned is what joins a name to its value in code, configuration,
	// JSON (escaped too), a flag or a query string.
	assigned = `[\\"'\x60\]]*[ \t]*(?:=|:=|:|=>|\?=)[ \t]*`
	// qualifier narrows a name in prose: "for prod", "for the prod db",
	// "für die Datenbank".
	qualifier = `(?:[ \t]+(?:for|of|on|in|at|für|fuer|von|vom|zum|zur|der|des|auf|im|bei)(?:[ \t]+[\w.-]+){1,3})?`
	// linkingVerb joins a name to its value in English or German prose:
	// "is", "was now", "to" (set … to), "ist", "lautet:", "heißt".
	linkingVerb = `(?:is|was|be|are|to|equals|ist|lautet|war|sei|heißt|heisst|wäre)(?:[ \t]+(?:now|still|jetzt|nun|noch))?(?:[ \t]*:)?`
	// saidToBe is what follows a password in prose up to its value: a
	// qualifier, then a linking verb, ":" or "=", or nothing ("passwd
	// VALUE").
	saidToBe = qualifier + `(?:[ \t]*[:=][ \t]*|[ \t]+` + linkingVerb + `[ \t]+|[ \t]+)`
	// saidToBeStrictly is saidToBe without the bare form: "token VALUE" is
	// too common a phrase.
	saidToBeStrictly = qualifier + `[ \t]+` + linkingVerb + `[ \t]+`
)

// extraRules are every rule of this package beside gitleaks': those below,
// the command-line flags of cli.go and the web shapes of web.go.
// They are built at the first scan: their patterns compile then, not when
// a process that never redacts starts.
var extraRules = sync.OnceValue(func() []extraRule { return slices.Concat(assignmentRules(), cliRules(), webRules()) })

// assignmentRules cover what the gitleaks rule set leaves out:
//   - Azure storage account keys (AccountKey=… in a connection string), which
//     have no gitleaks rule, and whose base64 may begin with "/" or hold "+",
//     which the generic assignment rule does not accept;
//   - OpenAI project, service-account and admin keys without the T3BlbkFJ
//     marker gitleaks' rule wants;
//   - the password of a URL's user information (postgres://u:PW@host,
//     redis://:PW@host), after detect-secrets' BasicAuthDetector, widened to
//     an empty user, to symbols in the password and to an "@" inside it (the
//     host follows the last one, as net/url reads it), and of a Go MySQL DSN
//     (u:PW@tcp(host:3306)/db);
//   - the credentials of an Authorization header (Bearer, Token or Basic) as
//     a raw header, a curl -H argument, a JSON or dict field, or a call such
//     as Header.Set("Authorization", "Bearer …");
//   - LexSona's own API key entries (read:KEY, write:KEY, TENANT:write:KEY,
//     as in LEXSONA_API_KEYS and the keys file, KEY 16+ printable bytes);
//   - passwords and secrets assigned (PASSWORD=…, "password": "…",
//     --db-password=…, pwd=…) or said in prose, in English or German ("the
//     staging password is …", "passwd …", "pw: …", "das Passwort ist …",
//     "Kennwort für prod lautet: …"), whichever the value's strength:
//     gitleaks' generic rule wants 10+ characters of high entropy;
//   - keys and tokens assigned (DEPLOY_TOKEN=…, STRIPE_KEY=…, --api-key …,
//     ?access_token=…) or said in prose ("my github token is …", "der
//     API-Key lautet …"), with a value that reads as generated (gitleaks'
//     generic rule skips one of letters only, and one after a name it
//     does not know). A secret or key in prose ("the secret is …") needs a
//     stronger value, since "the secret was base64" describes one.
func assignmentRules() []extraRule {
	return []extraRule{
		{id: "azure-storage-account-key", keywords: []string{"accountkey"}, from: atWord,
			re: regexp.MustCompile(`(?i)^AccountKey[ \t]*=[ \t]*([A-Za-z0-9+/]{86}==)`)},
		{id: "openai-api-key", keywords: []string{"sk-"}, from: atWord,
			re: regexp.MustCompile(`^(sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}))`)},
		{id: "password", keywords: []string{"://"}, valid: urlPassword,
			re: regexp.MustCompile("(?i)[a-z][a-z0-9+.-]*://[^\\s:/?#\\[\\]@\"'`<>]*:([^\\s/?#\\[\\]\"'`<>]+)@")},
		{id: "password", keywords: []string{"@tcp(", "@unix("}, valid: urlPassword,
			re: regexp.MustCompile("(?i)(?:^|[\\s\"'`=])[a-z0-9_.-]+:([^\\s/@\"'`]+)@(?:tcp|unix)\\(")},
		{id: "bearer-token", keywords: []string{"authorization"}, from: atWord, valid: bearerValue,
			re: regexp.MustCompile(`(?i)^authorization["'\x60\]]*[ \t]*(?:[:=,]|=>)[ \t]*["'\x60]?(?:bearer|token)[ \t]+([a-z0-9\-._~+/]*[a-z0-9\-_~+/]=*)`)},
		{id: "basic-auth", keywords: []string{"authorization"}, from: atWord, valid: basicValue,
			re: regexp.MustCompile(`(?i)^authorization["'\x60\]]*[ \t]*(?:[:=,]|=>)[ \t]*["'\x60]?basic[ \t]+([a-z0-9+/]{6,}={0,2})`)},
		{id: "lexsona-api-key", keywords: []string{"read:", "write:"}, valid: apiKeyValue,
			re: regexp.MustCompile(`(?i)(?:^|[^\w:.-])(?:[a-z0-9_]{1,64}:)?(?:read|write):([a-z0-9][a-z0-9_\-.~+/=!@#$%^&*]*[a-z0-9_\-~+/=@#$%^&*])`)},
		{id: "password", keywords: []string{"pass", "pwd", "secret", "kennwort"}, from: backOver(nameChars), valid: passwordValue,
			re: regexp.MustCompile(`(?i)^` + passwordNames + assigned), value: true},
		{id: "password", keywords: []string{"pass", "pwd", "pw", "kennwort"}, from: atWord, valid: passwordValue,
			re: regexp.MustCompile(`(?i)^(?:password|passwd|passphrase|passcode|passwort|kennwort|pwd|pw)s?` + saidToBe), value: true},
		{id: "password", keywords: []string{"secret"}, from: atWord, valid: strongValue,
			re: regexp.MustCompile(`(?i)^secrets?` + saidToBe), value: true},
		{id: genericKind, keywords: []string{"key", "token", "auth", "credential"}, from: backOver(nameChars), valid: keyValue,
			re: regexp.MustCompile(`(?i)^(?:` + keyNames + assigned + `|` + keyFlags + `)`), value: true},
		{id: genericKind, keywords: []string{"key", "token", "auth", "credential"}, from: atWord, valid: strongValue,
			re: regexp.MustCompile(`(?i)^(?:key|tokens?|auth|credentials?)` + assigned), value: true},
		{id: genericKind, keywords: []string{"token", "key", "credential", "schlüssel", "zugangsdaten"}, from: atWord, valid: strongValue,
			re: regexp.MustCompile(`(?i)^(?:tokens?|keys?|credentials?|schlüssel|zugangsdaten)` + saidToBeStrictly), value: true},
	}
}
