package gpu

import (
	"errors"
	"sync/atomic"
)

// ErrClosed is what a Program's Decode returns after its Close. It is the
// one closed condition of every fabric: fabric.ErrClosed is this value.
var ErrClosed = errors.New("closed (load the graph again)")

// ErrLost is what every call on a Device returns once its GL context is
// gone (its window destroyed, its EGL display terminated): the error
// wraps it with what was seen. Nothing the context held survives; the
// process's Open keeps returning the lost Device.
var ErrLost = errors.New("gpu: the GL context is lost")

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
