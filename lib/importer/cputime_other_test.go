//go:build !unix

package importer

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
