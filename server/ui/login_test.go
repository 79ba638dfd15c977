package ui

import "testing"

func TestSafeNext(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/rules?state=active", "/rules?state=active"},
		{"/rules/tool.x", "/rules/tool.x"},
		{"/", "/"},
		{"", "/"},
		{"rules", "/"},
		{"https://evil.example/", "/"},
		{"//evil.example/", "/"},
		{"/\\evil.example", "/"},
		{"/\t/evil.example", "/"},
		{"/ /evil.example", "/"},
		{"/\r\nSet-Cookie: x", "/"},
		{"javascript:alert(1)", "/"},
	} {
		if got := safeNext(c.in); got != c.want {
			t.Errorf("safeNext(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
