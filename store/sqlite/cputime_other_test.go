//go:build !unix

package sqlite

import "time"

// cpuNow is not measured on this platform.
func cpuNow() time.Duration { return 0 }
