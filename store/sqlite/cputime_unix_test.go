//go:build unix

package sqlite

import (
	"syscall"
	"time"
)

// cpuNow returns the CPU time (user + system, all threads) the process has
// used. Benchmarks report it per operation next to ns/op: unlike wall time it
// does not grow when other processes compete for the machine.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
