//go:build !unix

package store

import "time"

// cpuNow is not measured on this platform.
func cpuNow() time.Duration { return 0 }
