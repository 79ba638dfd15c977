package redact

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/lexsona/lexsona/redact/redacttest"
)

// exactCase is a text, the text Text must return, and how many secrets it
// must count.
type exactCase struct {
	name, in, want string
	n              int
}

// exact builds an exactCase from a format whose %s are filled in order by
// secrets in the input and by the placeholder of kind in the output. As in
// shapes_test.go, the secrets are assembled at run time.
func exact(name, format, kind string, secrets ...string) exactCase {
	in, want := format, format
	for _, s := range secrets {
		in = strings.Replace(in, "%s", s, 1)
		want = strings.Replace(want, "%s", Placeholder(kind), 1)
	}
	return exactCase{name, in, want, len(secrets)}
}

// exactCases are the shapes of extra.go beyond the gitleaks rule set, each
// with the exact output: only the secret goes, its surroundings (scheme,
// user, host, header name, key kind, the sentence) stay.
func exactCases() []exactCase {
	pw := func(seed uint64) string { return rnd(seed, 6, alnum) + "!" + rnd(seed+1, 7, alnum) + "7" }
	tok := func(seed uint64) string { return rnd(seed, 40, alnum) + "9" }
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + pw(300)))
	return []exactCase{
		// passwords in connection URLs and DSNs
		exact("postgres url", "postgres://u:%s@host/db", "password", "pw"),
		exact("postgresql url with port and query", "postgresql://app:%s@db.internal:5432/app?sslmode=require", "password", pw(200)),
		exact("mysql url", "mysql://user:%s@localhost:3306/shop", "password", "pass"),
		exact("mongodb+srv url", "mongodb+srv://admin:%s@cluster0.ab1cd.mongodb.net/test?retryWrites=true", "password", pw(202)),
		exact("redis url without user", "redis://:%s@cache:6379/0", "password", pw(204)),
		exact("amqp url", "amqp://guest:%s@rabbit:5672/vhost", "password", pw(206)),
		exact("https url", "clone https://user:%s@example.com/private/repo.git", "password", pw(208)),
		exact("ftp url", "ftp://bob:%s@files.example.com/pub", "password", pw(210)),
		exact("url password holding @ and !", "postgres://app:%s@db/app", "password", "p@ss!w0rd"),
		exact("url in a quoted env assignment", `DATABASE_URL="postgres://app:%s@db:5432/app" go test ./...`, "password", pw(212)),
		exact("jdbc url", "jdbc:postgresql://app:%s@db/app", "password", pw(214)),
		exact("sqlalchemy url", "postgresql+psycopg2://app:%s@db/app", "password", pw(216)),
		exact("go mysql dsn", "dsn := \"app:%s@tcp(127.0.0.1:3306)/shop?parseTime=true\"", "password", pw(218)),
		exact("short url password kept elsewhere", "use postgres://u:%s@host/db; the pw column stays", "password", "pw"),
		// Authorization headers
		exact("raw bearer header", "Authorization: Bearer %s", "bearer-token", tok(220)),
		exact("lower-case bearer header", "authorization: bearer %s", "bearer-token", tok(221)),
		exact("raw basic header", "Authorization: Basic %s", "basic-auth", basic),
		exact("curl bearer header", `curl -H "Authorization: Bearer %s" https://api.example.com/v1`, "curl-auth-header", tok(222)),
		exact("json authorization field", `{"headers": {"Authorization": "Bearer %s"}}`, "bearer-token", tok(223)),
		exact("authorization= bearer", "authorization=Bearer %s", "bearer-token", tok(224)),
		exact("go header set", `req.Header.Set("Authorization", "Bearer %s")`, "bearer-token", tok(225)),
		exact("token scheme", "Authorization: token %s", "bearer-token", rnd(226, 40, "0123456789abcdef")),
		exact("bearer header ending a sentence", "send Authorization: Bearer %s.", "bearer-token", tok(227)),
		// LexSona API keys
		exact("lexsona keys env", "LEXSONA_API_KEYS=read:%s,write:%s", "lexsona-api-key", "r-"+rnd(230, 20, alnum), "w-"+rnd(231, 20, alnum)),
		exact("lexsona tenant key", "alice:write:%s", "lexsona-api-key", "alice-"+rnd(232, 20, alnum)),
		exact("lexsona key quoted", `export LEXSONA_API_KEYS="write:%s"`, "lexsona-api-key", rnd(233, 24, alnum)),
		exact("lexsona README key", "keys file line write:%s", "lexsona-api-key", "op-0123456789abcdef"),
		// passwords in prose and assignments
		exact("prose is", "the staging password is %s", "password", "Xk9!pQz7"),
		exact("yaml-like colon", "password: %s", "password", "hunter2Xk9"),
		exact("quoted assignment", `password="%s"`, "password", "hunter2Xk9!pQz7Lm"),
		exact("env upper case", "PASSWORD=%s", "password", pw(240)),
		exact("pwd", "pwd=%s", "password", pw(241)),
		exact("passwd then value", "passwd %s", "password", pw(242)),
		exact("secret colon", "secret: %s", "password", pw(243)),
		exact("pgpassword export", "export PGPASSWORD=%s", "password", pw(244)),
		exact("flag", "run it with --db-password=%s", "password", pw(245)),
		exact("json field", `{"user": "app", "password": "%s"}`, "password", pw(246)),
		exact("prose for qualifier and full stop", "the password for prod is %s.", "password", pw(247)),
		exact("set to", "set the admin password to %s and rotate it weekly", "password", pw(248)),
		exact("single-quoted yaml", "mysql_root_password: '%s'", "password", pw(249)),
		exact("keyword argument", `connect(user="app", password="%s")`, "password", pw(250)),
		exact("short name", "DB_PASS=%s", "password", pw(251)),
		exact("query parameter", "?user=app&password=%s&sslmode=disable", "password", pw(252)),
		exact("passphrase", "the passphrase is %s", "password", pw(253)),
		exact("repeated password", "password: %s (and later type %s again)", "password", "Xk9!pQz7", "Xk9!pQz7"),
		exact("hunter2", "my password is %s", "password", "hunter2"),
		exact("password ending in !", "password: %s", "password", "Xk9!pQz7!"),
		exact("three-word qualifier", "the password for the prod db is %s", "password", pw(254)),
		exact("markdown code", "`password`: `%s`", "password", pw(255)),
		exact("odbc connection string", "Server=db;Uid=app;Pwd=%s;", "password", pw(256)),
		exact("secret in prose", "the secret is %s", "password", pw(257)),
		exact("go mysql unix dsn", "dsn: 'app:%s@unix(/tmp/mysql.sock)/shop'", "password", pw(258)),
		exact("proxy authorization", "Proxy-Authorization: Basic %s", "basic-auth", basic),
	}
}

func TestTextExactShapes(t *testing.T) {
	cases := exactCases()
	if len(cases) < 40 {
		t.Fatalf("only %d exact shapes", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, n := Text(tc.in)
			if got != tc.want || n != tc.n {
				t.Fatalf("Text(%q)\n = %q, %d\nwant %q, %d", tc.in, got, n, tc.want, tc.n)
			}
		})
	}
}

// TestTextIdempotent redacts every table's text twice: the second pass
// finds nothing and changes nothing.
func TestTextIdempotent(t *testing.T) {
	var texts []string
	for _, tc := range secretCases() {
		texts = append(texts, tc.text)
	}
	for _, tc := range exactCases() {
		texts = append(texts, tc.in)
	}
	texts = append(texts, lookAlikes()...)
	for _, text := range texts {
		once, _ := Text(text)
		if twice, n := Text(once); n != 0 || twice != once {
			t.Errorf("Text(%q) = %q, then %q, %d", text, once, twice, n)
		}
	}
}

// FuzzText checks on any text that Text is idempotent, that its count is
// zero exactly when the text is unchanged, and that every change is a
// placeholder.
func FuzzText(f *testing.F) {
	for _, tc := range exactCases() {
		f.Add(tc.in)
	}
	for _, text := range lookAlikes() {
		f.Add(text)
	}
	for _, sh := range redacttest.Shapes() {
		f.Add(sh.With("|"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		once, n := Text(s)
		if (n == 0) != (once == s) {
			t.Fatalf("Text(%q) = %q, %d", s, once, n)
		}
		if n > 0 && strings.Count(once, "[REDACTED:") < n {
			t.Fatalf("Text(%q) = %q, %d: fewer placeholders than secrets", s, once, n)
		}
		if twice, m := Text(once); m != 0 || twice != once {
			t.Fatalf("Text(%q) = %q, then %q, %d", s, once, twice, m)
		}
	})
}
