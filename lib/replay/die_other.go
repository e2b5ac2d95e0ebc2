//go:build !unix

package replay

import "os"

// die ends the process after an interrupt.
func die(os.Signal) { os.Exit(130) }

// nonBlock: no O_NONBLOCK here; the file's type is checked after opening.
const nonBlock = 0
