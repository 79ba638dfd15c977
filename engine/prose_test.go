package engine

import (
	"strings"
	"testing"
)

func TestProse(t *testing.T) {
	trace := "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\nValueError: bad value\n"
	goPanic := "panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:7 +0x1d\n"
	log := strings.Repeat("2026-11-02 10:00:01 INFO request served in 3ms\n", 200)
	tests := []struct {
		name       string
		text       string
		want       string
		wantPasted bool
	}{
		{"plain correction", "stop using sed to edit files, use the edit tool", "stop using sed to edit files, use the edit tool", false},
		{"question after a traceback", trace + "why does this fail?", "why does this fail?", true},
		{"go panic only", goPanic, "", true},
		{"huge log and a request", log + "please fix the slow endpoint", "please fix the slow endpoint", true},
		{"fenced code kept out", "use pnpm here\n```\nnpm install\nnpm run build\n```\nthanks", "use pnpm here\nthanks", true},
		{"code lines", "func main() {\n\tfmt.Println(x);\n}\nrename x to count", "rename x to count", true},
		{"shell transcript", "$ npm install\nnpm ERR! code ERESOLVE\nuse pnpm, not npm", "use pnpm, not npm", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Prose(tt.text)
			if p.Text != tt.want {
				t.Errorf("Prose = %q, want %q", p.Text, tt.want)
			}
			if p.MostlyPasted() != tt.wantPasted {
				t.Errorf("MostlyPasted = %v (%d of %d lines), want %v", p.MostlyPasted(), p.PastedLines, p.Lines, tt.wantPasted)
			}
		})
	}
}

// TestProseBounded: a prose paste longer than MaxProseBytes is cut there.
func TestProseBounded(t *testing.T) {
	long := strings.Repeat("please keep the answers short and to the point ", 2000)
	p := Prose(long + "\n" + long)
	if len(p.Text) > MaxProseBytes || !p.Cut {
		t.Errorf("kept %d bytes (cut %v), want at most %d", len(p.Text), p.Cut, MaxProseBytes)
	}
}
