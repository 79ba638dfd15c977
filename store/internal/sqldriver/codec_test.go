package sqldriver

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lexsona/lexsona/engine"
)

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "2026-03-04T05:06:07.000000008Z", want: time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)},
		{in: "2026-03-04T05:06:07Z", want: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)},
		{in: "2026-03-04T07:06:07.5+02:00", want: time.Date(2026, 3, 4, 5, 6, 7, 5e8, time.UTC)},
		{in: "2026-13-04T05:06:07.000000000Z", bad: true}, // the layout's length, a month out of range
		{in: "2026-03-04T05:06:07.00000000xZ", bad: true},
		{in: "", bad: true},
	} {
		got, err := ParseTime(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("ParseTime(%q) error %v, want error %v", tc.in, err, tc.bad)
			continue
		}
		if !tc.bad && (!got.Equal(tc.want) || got.Location() != time.UTC) {
			t.Errorf("ParseTime(%q) = %v, want %v in UTC", tc.in, got, tc.want)
		}
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 60, time.FixedZone("x", 3600))
	if got, err := ParseTime(FormatTime(at)); err != nil || !got.Equal(at) {
		t.Errorf("ParseTime(FormatTime(%v)) = %v, %v", at, got, err)
	}
	if s := FormatTime(at); s != "2026-01-02T02:04:05.000000060Z" {
		t.Errorf("FormatTime = %q", s)
	}
}

func TestJSONTags(t *testing.T) {
	for _, tags := range [][]string{nil, {"go"}, {"go", "ci"}, {`a"b`, "c,d", "e f", `g\h`}} {
		var codec JSONTags
		arg := codec.Arg(tags)
		if len(tags) == 0 {
			if arg != nil {
				t.Errorf("Arg(%q) = %v, want nil (NULL)", tags, arg)
			}
			continue
		}
		var got []string
		if err := codec.Dest(&got).(interface{ Scan(any) error }).Scan(arg); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tags, got); d != "" {
			t.Errorf("tags %q back (-want +got):\n%s", tags, d)
		}
	}
	for _, s := range []string{"", "[]"} {
		if got, err := ParseJSONTags(s); got != nil || err != nil {
			t.Errorf("ParseJSONTags(%q) = %q, %v; want nil, nil", s, got, err)
		}
	}
	if _, err := ParseJSONTags(`["x"`); err == nil {
		t.Error("ParseJSONTags accepted a broken array")
	}
}

func TestVectorRoundTrip(t *testing.T) {
	v := []float32{0, 1, -2.5, 3.25e-7}
	b := EncodeVector(v)
	if len(b) != 16 {
		t.Fatalf("%d bytes, want 16", len(b))
	}
	got := make([]float32, len(b)/4)
	DecodeVector(got, b)
	if d := cmp.Diff(v, got); d != "" {
		t.Errorf("vector back (-want +got):\n%s", d)
	}
}

func TestSlab(t *testing.T) {
	a, b := []float32{1, 2}, []float32{3, 4, 5}
	s := NewSlab(len(a)) // room for a only: b gets an array of its own
	ga, gb := s.Decode(EncodeVector(a)), s.Decode(EncodeVector(b))
	if d := cmp.Diff([][]float32{a, b}, [][]float32{ga, gb}); d != "" {
		t.Errorf("vectors back (-want +got):\n%s", d)
	}
	if cap(ga) != len(a) {
		t.Errorf("cap %d, want %d: an append must not write into the next vector", cap(ga), len(a))
	}
}

func TestScopeAndCandidates(t *testing.T) {
	s := engine.Scope{Project: "lexsona", ContextTags: []string{"go"}}
	got, err := ParseScope(ScopeJSON(s))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s, got); d != "" {
		t.Errorf("scope back (-want +got):\n%s", d)
	}
	if ScopeJSON(engine.Scope{}) != "{}" {
		t.Errorf("empty scope stored as %q", ScopeJSON(engine.Scope{}))
	}
	if CandidatesJSON(nil) != nil {
		t.Error("no candidates not stored as NULL")
	}
	c := []engine.Candidate{{RuleID: "r1", Score: 0.5}}
	back, err := ParseCandidates(CandidatesJSON(c).(string))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(c, back); d != "" {
		t.Errorf("candidates back (-want +got):\n%s", d)
	}
	if _, err := ParseScope("{"); err == nil {
		t.Error("ParseScope accepted broken JSON")
	}
}
