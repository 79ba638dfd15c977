package testenv

import (
	"fmt"
	"runtime"
	"testing"
)

// recorder is a testing.TB that records how the test would end; like the
// real ones, its Skipf and Fatalf end the goroutine.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestMissing(t *testing.T) {
	const env = "LEXSONA_TESTENV_REQUIRE_SOMETHING"
	for _, tc := range []struct {
		value, skipped, failed string
	}{
		{"", "thing is gone (" + env + "=1 makes this a failure)", ""},
		{"0", "thing is gone (" + env + "=1 makes this a failure)", ""},
		{"1", "", env + "=1 but thing is gone"},
	} {
		t.Setenv(env, tc.value)
		r := &recorder{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Missing(r, env, "%s is gone", "thing")
		}()
		<-done
		if r.skipped != tc.skipped || r.failed != tc.failed {
			t.Errorf("%s=%q: skipped %q, failed %q; want %q, %q", env, tc.value, r.skipped, r.failed, tc.skipped, tc.failed)
		}
		if got := Required(env); got != (tc.value == "1") {
			t.Errorf("Required with %q = %v", tc.value, got)
		}
	}
}
