package gpu

import (
	"errors"
	"sync/atomic"
)

// ErrClosed is what a Program's Decode returns after its Close.
var ErrClosed = errors.New("gpu: the program is closed (load the graph again)")

// Live counts what the GL fabric holds on the device at one moment, over
// the whole process, so that a long-running decoder can show it stays
// bounded.
type Live struct {
	Programs int64 // Programs loaded and not yet closed
	Buffers  int64 // GL buffer objects (parameters and tensors) not yet deleted
}

var live struct{ programs, buffers atomic.Int64 }

// LiveObjects returns the counts now.
func LiveObjects() Live {
	return Live{Programs: live.programs.Load(), Buffers: live.buffers.Load()}
}
