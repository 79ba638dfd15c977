package redact

import (
	"strings"
	"testing"
)

// ordinaryTexts are prompts, commands and code people send that hold no
// secret, many of them close to a shape of the corpus (a -p flag that is a
// port, a cookie that is a preference, a password spoken of, a key that is
// a column): Text must return each unchanged.
func ordinaryTexts() []string {
	hex := "0123456789abcdef"
	uuid := strings.Join([]string{rnd(700, 8, hex), rnd(701, 4, hex), "4" + rnd(702, 3, hex), "8" + rnd(703, 3, hex), rnd(704, 12, hex)}, "-")
	return []string{
		// the brief's own
		"use pnpm not npm",
		"git push -f is forbidden",
		"sed -i 's/a/b/' f",
		"the password field should be hidden",
		"revert " + rnd(705, 40, hex) + " and cherry-pick " + rnd(706, 7, hex),
		"the job " + uuid + " failed twice",
		"pin the image to sha256:" + rnd(707, 64, hex),
		// flags of other commands, or without a value
		"docker run -p 8080:80 nginx",
		"docker run --rm -p 5432:5432 -e POSTGRES_PASSWORD=$PGPASS postgres:16",
		"mkdir -p build/out && cp -p a b",
		"ssh -p 2222 deploy@host",
		"git checkout -b feature/login",
		"mysql -u root -p",
		"mysql -u root -p shop < dump.sql",
		"mysql -h db -P 3306 -u app -p",
		`echo "$TOKEN" | docker login ghcr.io -u me --password-stdin`,
		`docker login -u me -p "$DOCKER_TOKEN" ghcr.io`,
		`sshpass -p "$SSHPASS" ssh deploy@host`,
		"sshpass -f ~/.pw ssh deploy@host",
		`mysql -p"$MYSQL_PWD" shop`,
		"redis-cli -a $REDIS_PASSWORD ping",
		"redis-cli -h cache ping",
		"curl -u $USER:$PASS https://api.example.com",
		"curl -u deploy https://api.example.com",
		"curl -b cookies.txt -c cookies.txt https://app.example.com",
		"mongosh -u admin -p --authenticationDatabase admin",
		"pytest -p no:cacheprovider -q",
		"az login --use-device-code",
		"kubectl port-forward svc/db 5432:5432",
		// cookies that are preferences, or spoken of
		"the session cookie must be HttpOnly and Secure",
		"Cookie: theme=dark; lang=en",
		"Set-Cookie: theme=dark; Path=/; Max-Age=3600; SameSite=Lax",
		`document.cookie = "theme=dark"`,
		"clear the cookie jar before each test",
		"cookie_policy=strict",
		// passwords, tokens and keys spoken of, in English and German
		"das Passwort ist falsch",
		"Das Passwort muss mindestens 12 Zeichen lang sein",
		"Passwort vergessen? Dann den Reset-Link nutzen",
		"Kennwort ändern geht unter Einstellungen",
		"the token is invalid",
		"my github token is expired",
		"my github token is in the keychain",
		"the api key is stored in vault",
		"der API-Key ist abgelaufen",
		"pw reset flow is broken",
		"pw: see 1Password",
		"the key is to write tests first",
		"the secret is out",
		"Schlüssel: siehe Tresor",
		// assignments of references, names and settings
		"API_KEY=$API_KEY",
		"SORT_KEY=created_at",
		"PRIMARY_KEY=id",
		"export NODE_ENV=production",
		"CACHE_KEY=users",
		"token_type: bearer",
		"key: value",
		"auth: required",
		"GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
		"OPENAI_API_KEY=<your key>",
		"deploy --api-key $KEY --region eu",
		"--token-file ~/.config/token",
		"echo $ANTHROPIC_API_KEY|wc -c",
		"f(ANTHROPIC_API_KEY)",
		`key := os.Getenv("STRIPE_KEY")`,
		"access_token=$(gh auth token)",
		"expires_in: 3600",
		"monkey=patch",
		"the keyboard shortcut is ctrl+k",
		// code and commands
		"sed -i 's|/usr/local|/opt|g' Makefile",
		"git log --format=%H | head -5",
		"npm install --save-dev @types/node",
		"curl -H 'Accept: application/json' 'https://api.example.com/v1/rules?limit=10&offset=20'",
		"https://example.com/search?q=token&page=2",
		`if err != nil { return fmt.Errorf("read token: %w", err) }`,
		"const tokenTTL = 15 * time.Minute",
		"Token string `json:\"token\"`",
		"for key, value := range m { fmt.Println(key, value) }",
		"map[string]string{\"key\": \"value\"}",
		// webhooks and chat spoken of
		"post to the #alerts channel in discord",
		"https://discord.com/channels/1234567890/9876543210",
		"configure https://hooks.slack.com/services/ in the settings page",
	}
}

// TestTextKeepsOrdinaryTexts checks that no ordinary text is changed.
func TestTextKeepsOrdinaryTexts(t *testing.T) {
	texts := ordinaryTexts()
	changed := 0
	for _, text := range texts {
		if got, n := Text(text); n != 0 || got != text {
			changed++
			t.Errorf("Text(%q) = %q, %d; want it unchanged", text, got, n)
		}
	}
	t.Logf("%d ordinary texts, %d changed", len(texts), changed)
}
