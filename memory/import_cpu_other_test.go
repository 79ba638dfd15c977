//go:build !unix

package memory

import "time"

// importCPU is not measured on this platform.
func importCPU() time.Duration { return 0 }
