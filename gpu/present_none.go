//go:build !cgo || egl

package gpu

import "errors"

// errNoWindow is what a build without GLFW answers for a window.
var errNoWindow = errors.New("gpu: no window in this build (it needs cgo and the GLFW build, not -tags egl)")

// Window is a visible window; this build has none.
type Window struct{}

// NewWindow reports that this build has no window.
func (*Device) NewWindow(string, int, int) (*Window, error) { return nil, errNoWindow }

// ShowRGB reports that this build has no window.
func (*Window) ShowRGB([]byte, int, int, int) error { return errNoWindow }

// ShowFrame reports that this build has no window.
func (*Window) ShowFrame(*Frame, int) error { return errNoWindow }

// SetTitle reports that this build has no window.
func (*Window) SetTitle(string) error { return errNoWindow }

// Events reports that this build has no window.
func (*Window) Events() ([]Key, bool, error) { return nil, false, errNoWindow }

// Close does nothing.
func (*Window) Close() error { return nil }
