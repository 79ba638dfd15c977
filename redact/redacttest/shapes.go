package redacttest

import (
	"encoding/base64"
	"strings"
)

// Shapes returns the corpus: tokens with their own prefix (found alone),
// private keys, passwords and tokens in URLs, headers, cookies, command-line
// flags, assignments and prose. Each call returns the same shapes.
func Shapes() []Shape { return ShapesFor(0) }

// ShapesFor returns the shapes of Shapes with other secrets: each variant
// its own, so that a test sending one variant per channel can tell which
// channel stored a secret.
func ShapesFor(variant uint64) []Shape {
	g := gen{variant * 100003}
	tok := func(name, format, secret string) Shape {
		return Shape{Name: name, Format: format, Secret: secret, Alone: true}
	}
	ctx := func(name, format, secret string) Shape { return Shape{Name: name, Format: format, Secret: secret} }
	private := join("PRIV", "ATE KEY")
	pkcs8 := g.pemBlock(private, 540)
	return []Shape{
		// tokens with their own prefix
		tok("aws access key id", "export AWS_ACCESS_KEY_ID=%s", join("AK", "IA", g.rnd(501, 16, upper+"234567"))),
		tok("gcp api key in a query", "curl 'https://maps.googleapis.com/maps/api/geocode/json?key=%s&address=x'", join("AI", "za", g.rnd(502, 35, alnum+"_-"))),
		tok("github classic pat in a url", "git remote set-url origin https://%s@github.com/acme/app.git", join("gh", "p_", g.rnd(503, 36, alnum))),
		tok("github fine-grained pat", "GH_TOKEN=%s gh pr list", join("github", "_pat_", g.rnd(504, 82, alnum+"_"))),
		tok("github oauth token", "gh auth login --with-token <<< %s", join("gh", "o_", g.rnd(505, 36, alnum))),
		tok("github app token", "installation token: %s", join("gh", "s_", g.rnd(506, 36, alnum))),
		tok("gitlab pat", "glab auth login --token %s", join("gl", "pat-", g.rnd(507, 20, alnum+"_-"))),
		tok("openai project key", `client = OpenAI(api_key="%s")`, join("sk-", "proj-", g.rnd(508, 74, alnum+"_-"), join("T3Blbk", "FJ"), g.rnd(509, 74, alnum+"_-"))),
		tok("anthropic api key in a call", "f(ANTHROPIC_API_KEY=%s)", join("sk-", "ant-api03-", g.rnd(510, 93, alnum+"_-"), "AA")),
		tok("anthropic admin key", "x-api-key: %s", join("sk-", "ant-admin01-", g.rnd(511, 93, alnum+"_-"), "AA")),
		tok("slack bot token", "SLACK_BOT_TOKEN=%s", join("xo", "xb-", g.rnd(512, 12, digits), "-", g.rnd(513, 12, digits), "-", g.rnd(514, 24, alnum))),
		tok("stripe live secret", "stripe.api_key = %s", join("sk", "_live_", g.rnd(515, 24, alnum))),
		tok("stripe restricted key", "STRIPE_RK=%s", join("rk", "_live_", g.rnd(516, 24, alnum))),
		tok("npm token", "//registry.npmjs.org/:_authToken=%s", join("np", "m_", g.rnd(517, 36, alnum))),
		tok("pypi token", "twine upload -u __token__ -p %s dist/*", join("py", "pi-AgEIcHlwaS5vcmc", g.rnd(518, 64, alnum+"_-"))),
		tok("hugging face token", "huggingface-cli login --token %s", join("h", "f_", g.rnd(519, 34, lower))),
		tok("jwt", "the session token was %s", g.jwt(520)),
		tok("vault token", "vault login %s", join("hv", "s.", g.rnd(522, 95, alnum+"_-"))),
		tok("docker pat", "echo %s | docker login -u deploy --password-stdin", join("dckr", "_pat_", g.rnd(523, 27, alnum+"_-"))),
		tok("sendgrid key", "sg = SendGridAPIClient(%s)", join("S", "G.", g.rnd(524, 22, alnum+"_-"), ".", g.rnd(525, 43, alnum+"_-"))),
		tok("digitalocean token", "doctl auth init -t %s", join("do", "p_v1_", g.rnd(526, 64, hex))),
		tok("shopify token", "X-Shopify-Access-Token: %s", join("sh", "pat_", g.rnd(527, 32, hex))),
		tok("linear key", "LINEAR_API_KEY=%s", join("lin", "_api_", g.rnd(528, 40, alnum))),
		tok("databricks token", "databricks configure --token <<< %s", join("da", "pi", g.rnd(529, 32, hex))),
		tok("grafana service account token", "grafana token %s", join("gl", "sa_", g.rnd(530, 32, alnum), "_", g.rnd(531, 8, hex))),
		tok("age secret key", "echo %s > key.txt", join("AGE-SECRET", "-KEY-1", g.rnd(532, 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"))),
		tok("pulumi token", "PULUMI_ACCESS_TOKEN=%s", join("pu", "l-", g.rnd(533, 40, hex))),
		tok("postman key", "postman login --with-api-key %s", join("PM", "AK-", g.rnd(534, 24, hex), "-", g.rnd(535, 34, hex))),
		tok("azure ad client secret", "az login --service-principal -u app -p %s --tenant t", join(g.rnd(536, 3, alnum), "8Q~", g.rnd(537, 34, alnum+"_~."))),
		tok("openai key in sed", "sed -i 's|PLACEHOLDER|%s|' .env", join("sk-", "proj-", g.rnd(538, 74, alnum+"_-"), join("T3Blbk", "FJ"), g.rnd(539, 74, alnum+"_-"))),
		// private keys
		tok("rsa private key", "key file:\n%s\n", g.pemBlock("RSA "+private, 541)),
		tok("openssh private key", "%s", g.pemBlock("OPENSSH "+private, 542)),
		tok("gcp service-account json", `{"type": "service_account", "private_key": "%s\n"}`, strings.ReplaceAll(pkcs8, "\n", `\n`)),
		// passwords and tokens in URLs and DSNs
		ctx("postgres url", "psql postgresql://app:%s@db.internal:5432/app%t", g.password(550)),
		ctx("mongodb+srv url", `mongosh "mongodb+srv://admin:%s@cluster0.ab1cd.mongodb.net/test%t"`, g.password(552)),
		ctx("redis url", "REDIS_URL=redis://:%s@cache:6379/0%t", g.password(554)),
		ctx("go mysql dsn", `dsn := "app:%s@tcp(127.0.0.1:3306)/shop%t"`, g.password(556)),
		ctx("token in a git url", "git clone https://oauth2:%s@gitlab.example.com/team/app.git%t", g.opaque(558, 32)),
		ctx("slack webhook url", "curl -X POST -d @msg.json https://hooks.slack.com/services/%s", join("T", g.rnd(560, 10, upper+digits), "/B", g.rnd(561, 10, upper+digits), "/", g.rnd(562, 24, alnum))),
		ctx("discord webhook url", "post alerts to https://discord.com/api/webhooks/1234567890123456789/%s", g.rnd(563, 68, alnum+"_-")),
		ctx("access token in a query", "GET /v1/export?access_token=%s&format=csv", g.opaque(564, 40)),
		// command-line flags
		ctx("mysql -pPASS", "mysql -u root -p%s shop", g.password(570)),
		ctx("mysql -p PASS", "mysql -h db -u root -p %s", g.password(572)),
		ctx("sshpass -p", "sshpass -p '%s' ssh deploy@host", g.password(574)),
		ctx("docker login -p", "docker login -u deploy -p %s registry.example.com", g.password(576)),
		ctx("docker login --password", "docker login registry.example.com --username deploy --password %s", g.opaque(578, 36)),
		ctx("mongosh -p", "mongosh -u admin -p %s", g.password(580)),
		ctx("redis-cli -a", "redis-cli -h cache -a %s ping", g.password(582)),
		ctx("curl -u", "curl -u deploy:%s https://api.example.com/upload", g.password(584)),
		ctx("api key flag", "deploy --api-key %s --region eu", g.opaque(586, 32)),
		// headers and cookies
		ctx("bearer header", "Authorization: Bearer %s", g.opaque(590, 40)),
		ctx("basic header", "Authorization: Basic %s", base64.StdEncoding.EncodeToString([]byte("deploy:"+g.password(592)))),
		ctx("api key header in json", `{"headers": {"X-Api-Key": "%s"}}`, g.opaque(594, 32)),
		ctx("cookie header", "Cookie: sessionid=%s; theme=dark", g.opaque(596, 32)),
		ctx("set-cookie header", "Set-Cookie: session=%s; Path=/; HttpOnly", g.opaque(598, 40)),
		ctx("curl cookie", "curl -b 'sessionid=%s' https://app.example.com/api", g.opaque(600, 32)),
		// assignments
		ctx("key assignment", "STRIPE_KEY=%s", g.opaque(610, 32)),
		ctx("token export", "export DEPLOY_TOKEN=%s", g.opaque(612, 40)),
		ctx("secret assignment", "CLIENT_SECRET=%s", g.opaque(614, 32)),
		ctx("password assignment", "DB_PASSWORD=%s", g.password(616)),
		ctx("pgpassword", "PGPASSWORD=%s psql -h db app", g.password(618)),
		ctx("yaml password", `password: "%s"`, g.password(620)),
		ctx("json api key", `{"api_key": "%s"}`, g.opaque(622, 32)),
		ctx("escaped json password", `"output": "{\"db_password\": \"%s\"}"`, g.password(630)),
		ctx("aws secret access key", "aws_secret_access_key = %s", g.rnd(624, 1, alnum)+g.rnd(625, 39, b64)),
		ctx("azure storage account key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=%s;", g.rnd(626, 86, b64)+"=="),
		ctx("lexsona api key", "LEXSONA_API_KEYS=write:%s", g.opaque(628, 24)),
		// prose, English and German
		ctx("password in prose", "the staging password is %s", g.password(640)),
		ctx("password set to", "set the admin password to %s and rotate it weekly", g.password(642)),
		ctx("passphrase in prose", "the passphrase is %s", g.password(644)),
		ctx("my github token is", "my github token is %s", g.opaque(646, 40)),
		ctx("pw colon", "pw: %s", g.password(648)),
		ctx("das passwort ist", "das Passwort ist %s", g.password(650)),
		ctx("passwort lautet", "Das Passwort für die Datenbank lautet: %s", g.password(652)),
		ctx("kennwort", "Kennwort: %s", g.password(654)),
		ctx("mein token lautet", "mein API-Token lautet %s", g.opaque(656, 40)),
	}
}
