package cli

import (
	"math"

	"golang.org/x/sys/unix"
)

// inheritNothing marks every descriptor from 3 up close-on-exec, so that a detached process
// gets none but the streams startDetached gives it. Go opens its own files close-on-exec; what
// is left are descriptors this process inherited (a shell's, a host's pipe), and a background
// drain holding a host's pipe open would keep that host waiting on a hook that has ended.
// One close_range(2) call (Linux 5.11); an older kernel leaves them as they are.
func inheritNothing() { unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) }
