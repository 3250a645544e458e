//go:build cgo && !egl

package gpu

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/go-gl/gl/v4.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// Window is a visible GLFW window that shows frames at whole-number
// scales, nearest neighbour. Its GL context shares objects with the
// device's (a buffer the fabric wrote is visible to it), and everything it
// does runs on the device's GL thread, where GLFW was initialised: the
// window's context is made current for each call and the device's made
// current again before the call returns. Only the framebuffer, which GL
// does not share, is the window's own.
type Window struct {
	d      *Device
	win    *glfw.Window
	tex    uint32 // an RGBA8 texture of the frame's size (shared)
	fbo    uint32 // the read framebuffer the texture is attached to (the window's)
	tw, th int    // the texture's size
	keys   []Key  // pressed since the last Events, on the GL thread
}

// NewWindow opens a visible window of width×height pixels titled title.
// It needs the GLFW build (an X display); a -tags egl build has no window.
func (d *Device) NewWindow(title string, width, height int) (*Window, error) {
	if width < 1 || height < 1 {
		return nil, fmt.Errorf("gpu: a window of %d×%d", width, height)
	}
	w := &Window{d: d}
	err := d.th.call(func() error {
		glfw.WindowHint(glfw.Visible, glfw.True)
		glfw.WindowHint(glfw.Resizable, glfw.False)
		win, err := glfw.CreateWindow(width, height, title, nil, d.ctx.win)
		glfw.WindowHint(glfw.Visible, glfw.False) // the hints are global: restore the device's
		if err != nil {
			return fmt.Errorf("gpu: no window: %v", err)
		}
		w.win = win
		win.SetKeyCallback(func(_ *glfw.Window, k glfw.Key, _ int, a glfw.Action, _ glfw.ModifierKey) {
			if a == glfw.Press || a == glfw.Repeat {
				w.keys = append(w.keys, keyOf(k))
			}
		})
		return w.in(func() error {
			glfw.SwapInterval(0) // present as fast as frames come, not at the display's rate
			gl.GenFramebuffers(1, &w.fbo)
			gl.GenTextures(1, &w.tex)
			return glError("making the window's framebuffer")
		})
	})
	if err != nil {
		if w.win != nil {
			d.th.call(func() error { w.win.Destroy(); return nil })
		}
		return nil, err
	}
	return w, nil
}

// keyOf maps GLFW's keys to Key.
func keyOf(k glfw.Key) Key {
	switch k {
	case glfw.KeySpace:
		return KeySpace
	case glfw.KeyRight:
		return KeyRight
	case glfw.KeyLeft:
		return KeyLeft
	case glfw.KeyS:
		return KeyS
	case glfw.KeyQ:
		return KeyQ
	case glfw.KeyEscape:
		return KeyEscape
	}
	return KeyOther
}

// in runs f, on the GL thread, with the window's context current, then
// makes the device's current again.
func (w *Window) in(f func() error) error {
	if w.win == nil {
		return errors.New("gpu: the window is closed")
	}
	w.win.MakeContextCurrent()
	defer w.d.ctx.win.MakeContextCurrent()
	return f()
}

// ShowRGB shows a frame of fw×fh row-major RGB8 bytes, each pixel a
// scale×scale square from the window's top-left corner. The bytes pass
// through host memory to the texture (the host path).
func (w *Window) ShowRGB(rgb []byte, fw, fh, scale int) error {
	if fw < 1 || fh < 1 || len(rgb) != 3*fw*fh || scale < 1 {
		return fmt.Errorf("gpu: %d bytes for a %d×%d RGB8 frame at scale %d", len(rgb), fw, fh, scale)
	}
	return w.d.th.call(func() error {
		return w.in(func() error {
			w.texture(fw, fh)
			gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1) // rows of 3·fw bytes
			gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(fw), int32(fh), gl.RGB, gl.UNSIGNED_BYTE, unsafe.Pointer(&rgb[0]))
			gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
			return w.blit(scale)
		})
	})
}

// ShowFrame shows a frame the GL fabric left on the device
// (Program.DecodeFrame) without a trip through host memory: its buffer is
// the pixel-unpack buffer of the texture upload, then the same blit as
// ShowRGB.
func (w *Window) ShowFrame(f *Frame, scale int) error {
	if scale < 1 {
		return fmt.Errorf("gpu: scale %d", scale)
	}
	return w.d.th.call(func() error {
		if f.buf == nil || len(f.buf.ids) != 1 {
			return errors.New("gpu: the frame is closed")
		}
		return w.in(func() error {
			gl.WaitSync(f.sync, 0, gl.TIMEOUT_IGNORED) // the layout, from the device's context
			w.texture(f.W, f.H)
			gl.BindBuffer(gl.PIXEL_UNPACK_BUFFER, f.buf.ids[0])
			gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(f.W), int32(f.H), gl.RGBA, gl.UNSIGNED_BYTE, gl.PtrOffset(0))
			gl.BindBuffer(gl.PIXEL_UNPACK_BUFFER, 0)
			return w.blit(scale)
		})
	})
}

// texture makes the texture fw×fh, reallocating it only when the size
// changes. It runs in the window's context.
func (w *Window) texture(fw, fh int) {
	gl.BindTexture(gl.TEXTURE_2D, w.tex)
	if w.tw == fw && w.th == fh {
		return
	}
	if w.tw != 0 { // immutable storage: a new size needs a new texture
		gl.DeleteTextures(1, &w.tex)
		gl.GenTextures(1, &w.tex)
		gl.BindTexture(gl.TEXTURE_2D, w.tex)
	}
	gl.TexStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, int32(fw), int32(fh))
	w.tw, w.th = fw, fh
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, w.fbo)
	gl.FramebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, w.tex, 0)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, 0)
}

// blit copies the texture to the window's back buffer scaled by whole
// factors with GL_NEAREST (each pixel a scale×scale square; no filtering,
// no shader) and presents it. Texture row 0 is the frame's top row, so
// the copy runs from the top of the window down. It runs in the window's
// context.
func (w *Window) blit(scale int) error {
	_, fbh := w.win.GetFramebufferSize()
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, 0)
	gl.ClearColor(0, 0, 0, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, w.fbo)
	top := int32(fbh)
	gl.BlitFramebuffer(0, 0, int32(w.tw), int32(w.th),
		0, top, int32(w.tw*scale), top-int32(w.th*scale), gl.COLOR_BUFFER_BIT, gl.NEAREST)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, 0)
	w.win.SwapBuffers()
	return glError("presenting a frame")
}

// SetTitle sets the window's title.
func (w *Window) SetTitle(title string) error {
	return w.d.th.call(func() error {
		if w.win == nil {
			return errors.New("gpu: the window is closed")
		}
		w.win.SetTitle(title)
		return nil
	})
}

// Events processes the window's pending events and returns the keys
// pressed since the last call, and whether the window was asked to close.
func (w *Window) Events() (keys []Key, closing bool, err error) {
	err = w.d.th.call(func() error {
		if w.win == nil {
			return errors.New("gpu: the window is closed")
		}
		glfw.PollEvents()
		keys, w.keys = w.keys, nil
		closing = w.win.ShouldClose()
		return nil
	})
	return keys, closing, err
}

// Close destroys the window and what it made. A second Close does nothing.
func (w *Window) Close() error {
	return w.d.th.call(func() error {
		if w.win == nil {
			return nil
		}
		err := w.in(func() error {
			gl.DeleteFramebuffers(1, &w.fbo)
			gl.DeleteTextures(1, &w.tex)
			return glError("closing the window")
		})
		w.win.Destroy()
		w.win = nil
		return err
	})
}
