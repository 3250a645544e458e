//go:build cgo && !egl

package gpu

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// glContext is GLFW's hidden window whose GL 4.3 core context is current
// on the GL thread (GLX under X).
type glContext struct{ win *glfw.Window }

// newContext runs on the GL thread: a hidden window with a 4.3 core
// context, made current. It needs a display (Xvfb will do).
func newContext() (c *glContext, err error) {
	// Only an X11 or Wayland desktop needs a display named in the
	// environment; Windows (WGL) and macOS (NSGL) have none to name.
	if needsDisplayEnv(runtime.GOOS) && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, errors.New("gpu: no display (DISPLAY is not set: start an X server such as Xvfb, or build with -tags egl for a context without one)")
	}
	defer func() {
		// go-gl/glfw logs a platform error (an X display it cannot open)
		// from Init and panics at the next call: report it as no display.
		if r := recover(); r != nil {
			err = fmt.Errorf("gpu: no display (GLFW on DISPLAY=%q: %v)", os.Getenv("DISPLAY"), r)
		}
	}()
	if err := glfw.Init(); err != nil {
		return nil, fmt.Errorf("gpu: no display: %v", err)
	}
	glfw.WindowHint(glfw.Visible, glfw.False)
	glfw.WindowHint(glfw.ContextVersionMajor, 4)
	glfw.WindowHint(glfw.ContextVersionMinor, 3)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	// A robust context with reset notification (GLX/WGL
	// create_context_robustness; GLFW ignores the hint where the extension
	// is missing), so that a GPU reset is reported by
	// glGetGraphicsResetStatus (checkReset); a driver that refuses the
	// hint gets a plain context.
	glfw.WindowHint(glfw.ContextRobustness, glfw.LoseContextOnReset)
	win, err := glfw.CreateWindow(16, 16, "waiops", nil, nil)
	if err != nil {
		glfw.WindowHint(glfw.ContextRobustness, glfw.NoRobustness)
		win, err = glfw.CreateWindow(16, 16, "waiops", nil, nil)
	}
	if err != nil {
		glfw.Terminate()
		return nil, fmt.Errorf("gpu: no GL 4.3 core context: %v (%s)", err, belowGL43)
	}
	win.MakeContextCurrent()
	return &glContext{win: win}, nil
}

// identify names the context in the identity.
func (c *glContext) identify(id *Identity) { id.Context = "glfw" }

// current says why the window's context is no longer current on the GL
// thread (the window was destroyed), or nil.
func (c *glContext) current() error {
	if glfw.GetCurrentContext() != c.win {
		return errors.New("the GLFW window's context is not current (the window was destroyed)")
	}
	return nil
}

// destroy releases the window and GLFW, on the GL thread.
func (c *glContext) destroy() {
	c.win.Destroy()
	glfw.Terminate()
}
