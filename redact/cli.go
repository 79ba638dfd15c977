package redact

import (
	"regexp"
	"strings"
)

// cliRules find passwords given on a command line, which no gitleaks rule
// covers: the value of a password flag of the commands that take one there
// (docker login -p, sshpass -p, mysql -pPASS, mongosh -p, redis-cli -a),
// the password of curl -u user:PASS and the cookies of curl -b. A rule
// starts at its command's name and reads its flags up to the end of the
// command (a line break, |, ; or &), so the same flag of another command
// (docker run -p 8080:80, mkdir -p, git checkout -b) is left alone.
func cliRules() []extraRule {
	return []extraRule{
		// Registry and cloud logins, and sshpass: -p VALUE, -pVALUE,
		// --password VALUE, --password=VALUE, whatever the value.
		{id: "password", keywords: loginCommands, from: atWord, valid: flagValue,
			scan: flags(loginCommand, flag{names: []string{"-p", "--password"}, glued: true, spaced: true, equals: true})},
		// MySQL and MariaDB clients: -pVALUE and --password=VALUE are the
		// password; -p VALUE is one only when it reads as generated, since
		// "mysql -p shop" prompts for the password of database shop.
		{id: "password", keywords: []string{"mysql", "mariadb"}, from: atWord, valid: flagValue,
			scan: flags(mysqlCommand, flag{names: []string{"-p"}, glued: true}, flag{names: []string{"--password"}, equals: true})},
		{id: "password", keywords: []string{"mysql", "mariadb"}, from: atWord, valid: generatedFlagValue,
			scan: flags(mysqlCommand, flag{names: []string{"-p", "--password"}, spaced: true})},
		// MongoDB tools: -p VALUE, --password VALUE or =VALUE.
		{id: "password", keywords: []string{"mongo"}, from: atWord, valid: flagValue,
			scan: flags(mongoCommand, flag{names: []string{"-p", "--password"}, spaced: true, equals: true})},
		// redis-cli -a VALUE, --pass VALUE.
		{id: "password", keywords: []string{"redis-cli"}, from: atWord, valid: flagValue,
			scan: flags(redisCommand, flag{names: []string{"-a", "--pass"}, spaced: true, equals: true})},
		// curl -u user:PASS, --user user:PASS (the password only).
		{id: "password", keywords: []string{"curl"}, from: atWord, valid: urlPassword,
			scan: flags(curlCommand, flag{names: []string{"-u", "--user"}, glued: true, spaced: true, equals: true, afterColon: true})},
		// curl -b 'name=value; …' (see cookieSpans).
		{id: "cookie", keywords: []string{"curl"}, from: atWord, scan: curlCookieSpans},
	}
}

// The commands of cliRules, matched at their keyword: the name, and for a
// registry or cloud client its login subcommand.
var (
	loginCommands = []string{"sshpass", "docker", "podman", "nerdctl", "buildah", "skopeo", "oras", "crane", "regctl", "helm", "az", "cf", "oc"}
	loginCommand  = regexp.MustCompile(`(?i)^(?:sshpass|(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|regctl|helm|az|cf|oc)\b[^\n|;&]*?\blogin)\b`)
	mysqlCommand  = regexp.MustCompile(`(?i)^(?:mysql\w*|mariadb[\w-]*)\b`)
	mongoCommand  = regexp.MustCompile(`(?i)^mongo(?:sh|dump|restore|export|import|stat|top|files)?\b`)
	redisCommand  = regexp.MustCompile(`(?i)^redis-cli\b`)
	curlCommand   = regexp.MustCompile(`(?i)^curl\b`)
)

// flag is a flag that takes a password, and how its value may follow it:
// glued (-pVALUE), after white space (-p VALUE) or after "=".
type flag struct {
	names                 []string
	glued, spaced, equals bool
	afterColon            bool // the value is user:PASSWORD: only PASSWORD
}

// flags returns the scan of a command rule: where command matches at k,
// the values of the command's flags, up to the command's end, which it
// returns as where later keywords are to be read again (they are this
// command's arguments).
func flags(command *regexp.Regexp, fs ...flag) func(s string, k int) ([]span, int) {
	return func(s string, k int) ([]span, int) {
		end := commandEnd(s, k)
		m := command.FindStringIndex(s[k:end])
		if m == nil {
			return nil, k
		}
		var out []span
		for _, f := range fs {
			for _, name := range f.names {
				for off := k + m[1]; ; {
					i := strings.Index(s[off:end], name)
					if i < 0 {
						break
					}
					at := off + i
					off = at + len(name)
					if !isSpace(s[at-1]) {
						continue // inside another word or flag
					}
					if sp, ok := f.value(s, off); ok {
						out = append(out, sp)
					}
				}
			}
		}
		return out, end
	}
}

// value reads the value of f that follows its name at i.
func (f flag) value(s string, i int) (span, bool) {
	if i >= len(s) {
		return span{}, false
	}
	switch c := s[i]; {
	case c == '=' && f.equals:
		i++
	case (c == ' ' || c == '\t') && f.spaced:
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	case c != '=' && c != ' ' && c != '\t' && f.glued:
	default:
		return span{}, false
	}
	start, end, ok := valueAt(s, i, i+maxWindow)
	if ok && f.afterColon {
		c := strings.IndexByte(s[start:end], ':')
		start, ok = start+c+1, c >= 0 && start+c+1 < end
	}
	return span{start: start, end: end}, ok
}

// curlCookieSpans returns the cookies of the -b flags of the curl command at
// k (see cookieSpans), and the command's end.
func curlCookieSpans(s string, k int) ([]span, int) {
	end := commandEnd(s, k)
	if curlCommand.FindStringIndex(s[k:end]) == nil {
		return nil, k
	}
	var out []span
	for off := k; ; {
		i := strings.Index(s[off:end], "-b")
		if i < 0 {
			return out, end
		}
		at := off + i
		off = at + 2
		if isSpace(s[at-1]) && (off == len(s) || strings.IndexByte(" \t\"'`", s[off]) >= 0) {
			spans, _ := cookieSpans(s, at)
			out = append(out, spans...)
		}
	}
}

// commandEnd is where the command at k ends: a line break, |, ; or &, or
// maxWindow bytes on.
func commandEnd(s string, k int) int {
	end := min(len(s), k+maxWindow)
	if i := strings.IndexAny(s[k:end], "\n|;&"); i >= 0 {
		return k + i
	}
	return end
}

// flagValue is the check of a value given to a password flag: anything but
// a reference or another flag (docker login --password-stdin).
func flagValue(v string) bool { return !reference(v) && v[0] != '-' }

// generatedFlagValue is flagValue for a value that may also be an
// argument: it must read as generated (see passwordValue).
func generatedFlagValue(v string) bool { return flagValue(v) && passwordValue(v) }
