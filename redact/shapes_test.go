package redact

import (
	"encoding/base64"
	"strings"

	"github.com/lexsona/lexsona/redact/redacttest"
)

// The secrets below are synthetic: random bodies from a fixed-seed generator,
// joined to their prefix at run time, so no scanner flags this file and no
// real key is ever written down.

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	b32    = upper + "234567"
	b64    = alnum + "+/"
)

// rnd is the corpus's generator (redacttest.Rnd): high in entropy, the
// same on every run.
var rnd = redacttest.Rnd

// join assembles a token from its parts.
func join(parts ...string) string { return strings.Join(parts, "") }

// pemBlock is a PEM block of the given label with a random body.
func pemBlock(label string, seed uint64) string {
	body := rnd(seed, 64*6, b64)
	var lines []string
	for i := 0; i < len(body); i += 64 {
		lines = append(lines, body[i:i+64])
	}
	dashes := strings.Repeat("-", 5)
	return dashes + "BEGIN " + label + dashes + "\n" + strings.Join(lines, "\n") + "\n" + dashes + "END " + label + dashes
}

// jwt is a signed-looking JSON Web Token.
func jwt(seed uint64) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc([]byte(`{"sub":"`+rnd(seed, 12, digits)+`","name":"Jane Roe","iat":1516239022}`)) + "." +
		rnd(seed+1, 43, alnum+"_-")
}

// secretCase is a text holding exactly one secret, and the secret.
type secretCase struct {
	name, text, secret string
}

func secretCases() []secretCase {
	k := func(name, format, secret string) secretCase {
		return secretCase{name, strings.ReplaceAll(format, "%s", secret), secret}
	}
	private := join("PRIV", "ATE KEY")
	sa := pemBlock(private, 40)
	saJSON := strings.ReplaceAll(sa, "\n", `\n`)
	openaiMarker := join("T3Blbk", "FJ")
	return []secretCase{
		k("aws access key id", "set AWS_ACCESS_KEY_ID to %s before deploying", join("AK", "IA", rnd(1, 16, b32))),
		k("aws temporary key id", "the session used %s", join("AS", "IA", rnd(2, 16, b32))),
		k("aws secret access key", "aws_secret_access_key = %s", rnd(3, 40, b64)),
		k("gcp api key", "maps key: %s", join("AI", "za", rnd(4, 35, alnum+"_-"))),
		k("gcp service-account json", `{"type": "service_account", "private_key_id": "x", "private_key": "%s\n"}`, saJSON),
		k("azure ad client secret", "AZURE_CLIENT_SECRET=%s", join(rnd(5, 3, alnum), "8Q~", rnd(6, 34, alnum+"_~."))),
		k("azure storage account key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=%s;", rnd(7, 86, b64)+"=="),
		k("github classic pat", "git clone with %s please", join("gh", "p_", rnd(8, 36, alnum))),
		k("github oauth token", "token %s", join("gh", "o_", rnd(9, 36, alnum))),
		k("github fine-grained pat", "use %s for the api", join("github", "_pat_", rnd(10, 82, alnum+"_"))),
		k("github app token", "installation token %s", join("gh", "s_", rnd(11, 36, alnum))),
		k("github refresh token", "refresh with %s", join("gh", "r_", rnd(12, 36, alnum))),
		k("gitlab pat", "export GL=%s", join("gl", "pat-", rnd(13, 20, alnum+"_-"))),
		k("openai project key", "OPENAI_API_KEY=%s", join("sk-", "proj-", rnd(14, 74, alnum+"_-"), openaiMarker, rnd(15, 74, alnum+"_-"))),
		k("openai legacy key", "client = OpenAI(%s)", join("sk-", rnd(16, 20, alnum), openaiMarker, rnd(17, 20, alnum))),
		k("anthropic api key", "ANTHROPIC_API_KEY=%s", join("sk-", "ant-api03-", rnd(18, 93, alnum+"_-"), "AA")),
		k("anthropic admin key", "admin: %s", join("sk-", "ant-admin01-", rnd(19, 93, alnum+"_-"), "AA")),
		k("slack bot token", "bot %s", join("xo", "xb-", rnd(20, 12, digits), "-", rnd(21, 12, digits), "-", rnd(22, 24, alnum))),
		k("slack user token", "user %s", join("xo", "xp-", rnd(23, 12, digits), "-", rnd(24, 12, digits), "-", rnd(25, 12, digits), "-", rnd(26, 32, "0123456789abcdef"))),
		k("slack app token", "app %s", join("xa", "pp-1-A", rnd(27, 10, upper+digits), "-", rnd(28, 13, digits), "-", rnd(29, 64, "0123456789abcdef"))),
		k("slack webhook", "post to %s", join("https://hooks.", "slack.com/services/T", rnd(30, 10, upper+digits), "/B", rnd(31, 10, upper+digits), "/", rnd(32, 24, alnum))),
		k("stripe live secret", "stripe.api_key = %s", join("sk", "_live_", rnd(33, 24, alnum))),
		k("stripe restricted key", "restricted: %s", join("rk", "_live_", rnd(34, 24, alnum))),
		k("stripe test secret", "use %s in CI", join("sk", "_test_", rnd(35, 24, alnum))),
		k("jwt", "Authorization: Bearer %s", jwt(36)),
		k("rsa private key", "key file:\n%s\n", pemBlock("RSA "+private, 37)),
		k("openssh private key", "%s", pemBlock("OPENSSH "+private, 38)),
		k("ec private key", "here:\n%s", pemBlock("EC "+private, 39)),
		k("pkcs8 private key", "%s\n", sa),
		k("pgp private key block", "%s", pemBlock("PGP "+private+" BLOCK", 41)),
		k("password assignment", `db_password = "%s"`, rnd(42, 24, alnum)),
		k("api_key yaml", "api_key: %s", rnd(43, 32, alnum)),
		k("client secret json", `{"client_secret": "%s"}`, rnd(44, 32, alnum+"_-")),
		k("token export", "export AUTH_TOKEN=%s", rnd(45, 40, alnum)),
		k("npm token", "//npm/:_authToken=%s", join("np", "m_", rnd(46, 36, alnum))),
		k("hugging face token", "HF_TOKEN=%s", join("h", "f_", rnd(47, 34, lower))),
	}
}

// lookAlikes are texts that must come out of Text unchanged: hashes, ids,
// encodings of ordinary words, environment references and placeholders.
func lookAlikes() []string {
	hex := "0123456789abcdef"
	dashes := strings.Repeat("-", 5)
	return []string{
		"stop using sed to edit files, use the replace tool",
		"pnpm, not npm",
		"revert commit " + rnd(100, 40, hex) + " please",
		"cherry-pick " + rnd(101, 7, hex),
		"the request id was " + strings.Join([]string{rnd(102, 8, hex), rnd(103, 4, hex), "4" + rnd(104, 3, hex), "a" + rnd(105, 3, hex), rnd(106, 12, hex)}, "-"),
		"sha256 digest " + rnd(107, 64, hex),
		"image ghcr.io/acme/app@sha256:" + rnd(108, 64, hex),
		"decode " + base64.StdEncoding.EncodeToString([]byte("stop using sed to edit files")),
		"password: ${DB_PASSWORD}",
		"password := os.Getenv(\"DB_PASSWORD\")",
		"api_key = process.env.API_KEY",
		`api_key = "YOUR_API_KEY"`,
		"token: <your-token-here>",
		`secret = "xxxxxxxxxxxxxxxxxxxx"`,
		"password: ********",
		`password=""`,
		"the token field is required on every request",
		"GitHub tokens start with ghp_ and GitLab ones with glpat-",
		"AWS documents " + join("AKIAIOSFODNN7", "EXAMPLE") + " as its sample key",
		"use a risk-based task-list for the sk- prefix",
		"see https://github.com/lexsona/lexsona/pull/42",
		"the binary lives in /usr/local/bin/token-helper",
		"release v1.2.3-rc.1+build.5 on 2025-11-22T10:00:00Z",
		"color #aabbcc and address fe80::1ff:fe23:4567:890a",
		"call getToken(userID) then refreshSecret(ctx)",
		"key: production",
		"secret_name: my-app-secret",
		"token_type: bearer",
		"Authorization: Bearer $TOKEN",
		"github.com/labstack/echo/v4 v4.13.3 h1:" + base64.StdEncoding.EncodeToString([]byte("ordinary words only")),
		dashes + "BEGIN PUBLIC KEY" + dashes + "\n" + rnd(109, 64, b64) + "\n" + dashes + "END PUBLIC KEY" + dashes,
		"class=\"btn-primary-token-xl\"",
		"secretKeyRef: {name: db-creds, key: password}",
		"a JWT has three parts: header.payload.signature",
		// passwords, headers, URLs and LexSona keys spoken of, not given
		"the password field is required",
		"password reset flow",
		"use a strong password",
		"don't hardcode the password, read it from env",
		"the password is wrong!",
		"the password is in 1Password",
		"passwords must be 12 characters long",
		"password is required",
		`password=os.environ["DB_PASSWORD"]`,
		"password: process.env.DB_PASSWORD",
		"password := cfg.Password",
		"password=<your password>",
		"password: !vault |",
		"password_min_length: 12",
		"PASSWORD_RESET_TTL=3600",
		"run pwd to see where you are",
		"the secret manager rotates keys nightly",
		"Bearer tokens expire after an hour",
		"Authorization: Bearer <token>",
		"missing API key: send Authorization: Bearer KEY",
		"Authorization: Basic $CREDS",
		`WWW-Authenticate: Basic realm="lexsona"`,
		"postgres://localhost:5432/db",
		"postgres://app:${PGPASSWORD}@db/app",
		`fmt.Sprintf("postgres://%s:%s@%s/%s", user, pass, host, db)`,
		"postgres://user:<password>@host/db",
		"https://github.com/user/repo",
		"see https://medium.com/@alice/why-tests-2024 and https://www.npmjs.com/package/@scope/pkg-2",
		"https://example.com:8080/users/@alice",
		"git@github.com:lexsona/lexsona.git",
		"ssh://git@github.com:22/lexsona/lexsona.git",
		"mailto:alice@example.com",
		"write: the tests first",
		"write:the-tests-first-before-the-code",
		"grant write:packages and read:org",
		"read:KEY, write:KEY or TENANT:write:KEY",
		"read:/var/log/app2/messages.log",
		"the secret was base64; decode it first",
		"secret: use the vault, not env files",
		"pass: go1.22 required",
		"password hashing: use argon2id, not md5",
		"password = getpass.getpass()",
		"password is ${{ secrets.DB_PASSWORD }}",
		"secret_key_base: <%= ENV['SECRET_KEY_BASE'] %>",
		`-H "Authorization: Bearer $(gh auth token)"`,
		"https://user@example.com:8443/x2",
		"postgres://${USER}:${PASS}@db/app",
	}
}
