package redact

import (
	"testing"

	"github.com/lexsona/lexsona/redact/redacttest"
)

// moreExactCases are the shapes of cli.go, web.go and the key, token and
// German rules of extra.go, each with its exact output: the secret goes,
// the command, header, name and sentence stay.
func moreExactCases() []exactCase {
	pw := func(seed uint64) string { return rnd(seed, 6, alnum) + "!" + rnd(seed+1, 7, alnum) + "7" }
	tok := func(seed uint64) string { return "K" + rnd(seed, 38, alnum) + "9" }
	return []exactCase{
		// command-line flags
		exact("mysql glued", "mysql -u root -p%s shop", "password", pw(800)),
		exact("mysql spaced", "mysql -h db -u root -p %s", "password", pw(802)),
		exact("mysql --password=", "mysqldump --password=%s shop > dump.sql", "password", pw(804)),
		exact("mariadb quoted", `mariadb -p'%s' -e 'select 1'`, "password", pw(806)),
		exact("sshpass quoted", "sshpass -p '%s' ssh deploy@host", "password", pw(808)),
		exact("sshpass glued", "sshpass -p%s scp f host:", "password", pw(810)),
		exact("docker login -p", "docker login -u deploy -p %s registry.example.com", "password", pw(812)),
		exact("podman login --password=", "podman login --password=%s quay.io", "password", pw(814)),
		exact("docker login after a pipe", "make build | docker login --username ci --password %s", "password", tok(816)),
		exact("mongosh", "mongosh -u admin -p %s --authenticationDatabase admin", "password", pw(818)),
		exact("redis-cli", "redis-cli -h cache -a %s ping", "password", pw(820)),
		exact("curl -u", "curl -sS -u deploy:%s https://api.example.com", "password", pw(822)),
		exact("az login", "az login --service-principal -u app -p %s --tenant t", "password", pw(824)),
		// webhooks, Docker tokens, cookies
		exact("discord webhook", "https://discord.com/api/webhooks/1234567890123456789/%s", "discord-webhook-url", rnd(830, 68, alnum+"_-")),
		exact("slack webhook, short path", "curl https://hooks.slack.com/services/%s|sh", "slack-webhook-url", "T0/B1/"+rnd(831, 24, alnum)),
		exact("docker pat", "echo %s | docker login -u x --password-stdin", "docker-pat", join("dckr", "_pat_")+rnd(832, 27, alnum+"_-")),
		exact("cookie header", "Cookie: sessionid=%s; theme=dark; csrftoken=%s", "cookie", tok(833), tok(834)),
		exact("set-cookie", "Set-Cookie: session=%s; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly", "cookie", tok(835)),
		exact("curl -b", "curl -b 'sid=%s' https://app.example.com", "cookie", tok(836)),
		exact("curl -H cookie", `curl -H "Cookie: connect.sid=%s" https://app.example.com`, "cookie", tok(837)),
		exact("document.cookie", `document.cookie = "auth=%s; path=/"`, "cookie", tok(838)),
		// keys and tokens assigned or said
		exact("key assignment", "STRIPE_KEY=%s", "generic-api-key", tok(840)),
		exact("token export after a call", "f(DEPLOY_TOKEN=%s)", "generic-api-key", tok(841)),
		exact("api key flag", "deploy --api-key %s --region eu", "generic-api-key", tok(842)),
		exact("access token query", "/v1/export?access_token=%s&format=csv", "generic-api-key", tok(843)),
		exact("letters-only token", "SLACK_TOKEN=%s", "generic-api-key", rnd(844, 32, upper+lower)),
		exact("my github token is", "my github token is %s", "generic-api-key", tok(845)),
		exact("escaped json", `{\"api_key\": \"%s\"}`, "generic-api-key", tok(846)),
		// German and short password prose
		exact("das passwort ist", "das Passwort ist %s", "password", pw(850)),
		exact("passwort lautet", "Das Passwort für die Datenbank lautet: %s", "password", pw(852)),
		exact("kennwort", "Kennwort: %s", "password", pw(854)),
		exact("mein token lautet", "mein API-Token lautet %s", "generic-api-key", tok(856)),
		exact("pw colon", "pw: %s", "password", pw(858)),
		exact("password is now", "the password is now %s.", "password", pw(860)),
		// a secret before a pipe, a parenthesis, a comma, a redirection
		exact("anthropic key in a call", "f(ANTHROPIC_API_KEY=%s)", "anthropic-api-key", redacttest.Shapes()[8].Secret),
		exact("jwt piped", "echo %s|jq -R 'split(\".\")'", "jwt", jwt(870)),
		exact("npm token redirected", "echo %s>~/.npmrc", "npm-access-token", join("np", "m_")+rnd(871, 36, alnum)),
		exact("stripe key in sed", "sed -i 's|KEY|%s|' .env", "stripe-access-token", join("sk", "_live_")+rnd(872, 24, alnum)),
	}
}

func TestTextMoreExactShapes(t *testing.T) {
	for _, tc := range moreExactCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, n := Text(tc.in)
			if got != tc.want || n != tc.n {
				t.Fatalf("Text(%q)\n = %q, %d\nwant %q, %d", tc.in, got, n, tc.want, tc.n)
			}
			if again, m := Text(got); m != 0 || again != got {
				t.Fatalf("redacted again: %q, %d", again, m)
			}
		})
	}
}
