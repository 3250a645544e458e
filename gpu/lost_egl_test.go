//go:build cgo && egl

package gpu

// loseContext terminates the context's EGL display, on the GL thread: the
// context stays current (EGL defers its release), so only the check before
// each call keeps GL from running on it.
func loseContext(c *glContext) { c.terminate() }
