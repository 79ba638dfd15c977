package redact

import "regexp"

// extraRule is a secret shape the gitleaks default rules miss, checked
// beside them. The secret is the regexp's first non-empty group, or the
// whole match when it has none; only that part is replaced, so a URL keeps
// its scheme, user and host and a header its name. A rule runs only near
// its keywords (lower case; see scan.go), and keeps a finding only when
// valid, if set, accepts the secret (see values.go).
//
// With from set, the regexp is anchored (^) and runs once where from says a
// match holding the keyword at k must begin; without, it runs unanchored on
// the keyword's window.
type extraRule struct {
	id       string
	keywords []string
	from     func(s string, k int) (int, bool)
	re       *regexp.Regexp
	valid    func(string) bool
}

// Shared pieces of the patterns below.
const (
	// passwordNames are the names of a password or secret setting: any
	// prefix (DB_, PG, mysql-root-) for the long words, a separated one for
	// the short words (pwd, DB_PWD, DB_PASS; "pass" alone is a verb), and an
	// optional _key suffix.
	passwordNames = `(?:[a-z0-9_.-]*(?:password|passwd|passphrase|secret)|(?:[a-z0-9]+[_.-])*pwd|(?:[a-z0-9]+[_.-])+pass)(?:[_.-]?key)?`
	// quotedOrBare is a value in double, single or back quotes, or a bare
	// one of two bytes or more up to white space, a quote, or , ; & (the
	// next argument, field or query parameter), not beginning with = or :
	// (an assignment's) and without the sentence's closing punctuation but
	// for "!", which passwords often end with (the checks of values.go
	// judge the value without it).
	quotedOrBare = "(?:\"([^\"\\n]+)\"|'([^'\\n]+)'|`([^`\\n]+)`|([^\\s\"'`,;&=:][^\\s\"'`,;&]*[^\\s\"'`,;&.?:)\\]}]))"
	// saidToBe is what follows a password in prose up to its value: "for
	// prod" or "for the prod db", then "is", "was", "to" or nothing
	// ("passwd VALUE").
	saidToBe = `(?:[ \t]+(?:for|of|on|in)(?:[ \t]+[\w.-]+){1,3})?[ \t]+(?:(?:is|was|be|are|to|equals|=|:)[ \t]+)?` + quotedOrBare
)

// extraRules cover what the gitleaks rule set leaves out:
//   - Azure storage account keys (AccountKey=… in a connection string), which
//     have no gitleaks rule, and whose base64 may begin with "/" or hold "+",
//     which the generic assignment rule does not accept;
//   - OpenAI keys followed by a character outside gitleaks' short list of
//     terminators (a closing parenthesis or bracket, a comma), and project,
//     service-account and admin keys without the T3BlbkFJ marker;
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
//     --db-password=…, pwd=…) or said in prose ("the staging password is
//     …", "passwd …", "password for prod is …"), whichever the value's
//     strength: gitleaks' generic rule wants 10+ characters of high entropy.
//     A secret in prose ("the secret is …") needs a stronger value, since
//     "the secret was base64" describes one.
var extraRules = []extraRule{
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
	{id: "password", keywords: []string{"pass", "pwd", "secret"}, from: backOver(nameChars), valid: passwordValue,
		re: regexp.MustCompile(`(?i)^` + passwordNames + `["'\x60\]]*[ \t]*(?:=|:=|:|=>|\?=)[ \t]*` + quotedOrBare)},
	{id: "password", keywords: []string{"pass", "pwd"}, from: atWord, valid: passwordValue,
		re: regexp.MustCompile(`(?i)^(?:password|passwd|passphrase|pwd)s?` + saidToBe)},
	{id: "password", keywords: []string{"secret"}, from: atWord, valid: strongValue,
		re: regexp.MustCompile(`(?i)^secrets?` + saidToBe)},
}
