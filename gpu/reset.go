//go:build cgo

package gpu

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/go-gl/gl/v4.3-core/gl"
)

// resetCheck is how the GL thread learns, after each submission, that the
// device was reset under the context (the context asks for reset
// notification where the driver offers it: context_glfw.go,
// context_egl.go). Its fields are set by initReset on the GL thread.
type resetCheck struct {
	// status is glGetGraphicsResetStatus (GL 4.5, or KHR_robustness or
	// ARB_robustness before it), nil where the driver has none.
	status func() uint32
	// strategy names GL_RESET_NOTIFICATION_STRATEGY: "lose_context_on_reset"
	// when a reset is reported, "none" when the context is not robust.
	strategy string
	// forced is a reset status that SimulateReset stands in for the
	// driver's answer (0 when none).
	forced atomic.Uint32
}

// glExtensions lists the context's extensions, on the GL thread.
func glExtensions() []string {
	var exts []string
	var n int32
	gl.GetIntegerv(gl.NUM_EXTENSIONS, &n)
	for i := range n {
		exts = append(exts, gl.GoStr(gl.GetStringi(gl.EXTENSIONS, uint32(i))))
	}
	return exts
}

// initReset picks the reset-status entry point the context has and reads
// its notification strategy, on the GL thread after gl.Init.
func (r *resetCheck) initReset(version string) {
	exts := glExtensions()
	switch {
	case AtLeast(version, 4, 5):
		r.status = gl.GetGraphicsResetStatus
	case slices.Contains(exts, "GL_KHR_robustness"):
		r.status = gl.GetGraphicsResetStatusKHR
	case slices.Contains(exts, "GL_ARB_robustness"):
		r.status = gl.GetGraphicsResetStatusARB
	}
	r.strategy = "none"
	if r.status != nil {
		var s int32
		gl.GetIntegerv(gl.RESET_NOTIFICATION_STRATEGY, &s)
		if uint32(s) == gl.LOSE_CONTEXT_ON_RESET {
			r.strategy = "lose_context_on_reset"
		}
	}
	gl.GetError() // a driver without the strategy query flags it: not a loss
}

// resetNames spells the reset statuses of glGetGraphicsResetStatus.
var resetNames = map[uint32]string{
	gl.GUILTY_CONTEXT_RESET:   "GL_GUILTY_CONTEXT_RESET (this context caused it)",
	gl.INNOCENT_CONTEXT_RESET: "GL_INNOCENT_CONTEXT_RESET",
	gl.UNKNOWN_CONTEXT_RESET:  "GL_UNKNOWN_CONTEXT_RESET",
}

// check runs on the GL thread after each submission: a reset the driver
// (or SimulateReset) reports, or a GL_CONTEXT_LOST error, is the context's
// loss; the caller wraps it in ErrLost.
func (r *resetCheck) check() error {
	st := r.forced.Load()
	if st == 0 && r.status != nil {
		st = r.status()
	}
	if st != gl.NO_ERROR {
		name := resetNames[st]
		if name == "" {
			name = fmt.Sprintf("reset status 0x%x", st)
		}
		return errors.New("the device was reset: " + name)
	}
	if e := gl.GetError(); e == gl.CONTEXT_LOST {
		return errors.New("GL_CONTEXT_LOST")
	}
	return nil
}

// SimulateReset makes the device report a GPU reset (as
// GL_GUILTY_CONTEXT_RESET) after its next submission, exactly as the
// driver's reset notification would: from then on every call returns
// ErrLost. It is for testing what a caller does when its GPU goes away;
// like a real loss it lasts for the life of the process.
func (d *Device) SimulateReset() { d.reset.forced.Store(gl.GUILTY_CONTEXT_RESET) }
