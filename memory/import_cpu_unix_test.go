//go:build unix

package memory

import (
	"syscall"
	"time"
)

// importCPU returns the CPU time (user + system, all threads) the process
// has used: unlike wall time it does not grow when other processes
// compete for the machine.
func importCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
