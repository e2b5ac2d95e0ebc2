//go:build !unix

package htmlview

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
