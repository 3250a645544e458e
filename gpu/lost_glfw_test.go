//go:build cgo && !egl

package gpu

// loseContext destroys the context's window, on the GL thread.
func loseContext(c *glContext) { c.win.Destroy() }
