//go:build cgo && egl

package gpu

/*
#cgo pkg-config: egl
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <string.h>

// queryDevices fills devs with up to max EGL devices (EGL_EXT_device_
// enumeration, loaded at run time) and returns their count, or -1 when the
// entry point is missing or fails.
static EGLint queryDevices(EGLint max, EGLDeviceEXT *devs) {
	PFNEGLQUERYDEVICESEXTPROC q = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
	EGLint n = 0;
	if (q == NULL || !q(max, devs, &n)) {
		return -1;
	}
	return n;
}

// deviceSoftware reports whether an EGL device is a software renderer
// (EGL_MESA_device_software among its extensions), 0 where it cannot be
// told (no eglQueryDeviceStringEXT).
static int deviceSoftware(EGLDeviceEXT dev) {
	PFNEGLQUERYDEVICESTRINGEXTPROC q = (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
	if (q == NULL) {
		return 0;
	}
	const char *e = q(dev, EGL_EXTENSIONS);
	return e != NULL && strstr(e, "EGL_MESA_device_software") != NULL;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// glContext is an EGL display and a GL 4.3 core context current on the GL
// thread with no surface (EGL_KHR_surfaceless_context): no X server.
type glContext struct {
	dpy     C.EGLDisplay
	ctx     C.EGLContext
	display string // which display gave it: "device N", "surfaceless", "default"
}

// maxEGLDevices bounds the devices the device platform tries.
const maxEGLDevices = 16

// eglPlatforms are the displays newContext tries, in order; each is given
// the client extensions and returns a current context or why it has none.
var eglPlatforms = []struct {
	name string
	try  func(exts string) (*glContext, error)
}{
	{"device platform", deviceContext},
	{"surfaceless platform", surfacelessContext},
	{"default display", defaultContext},
}

// newContext runs on the GL thread and tries each of eglPlatforms; the
// first display giving a current 4.3 core context wins. The error lists
// every step that failed.
func newContext() (*glContext, error) {
	exts := clientExtensions()
	var fails []string
	for _, p := range eglPlatforms {
		c, err := p.try(exts)
		if err == nil {
			return c, nil
		}
		fails = append(fails, p.name+": "+err.Error())
	}
	return nil, errors.New("gpu: no EGL GL 4.3 core context (" + strings.Join(fails, "; ") + ")")
}

// deviceContext tries each EGL device in turn (EGL_EXT_platform_device: an
// NVIDIA GPU without X, or a DRM or software device under Mesa), every
// hardware device before any software one (hardwareFirst).
func deviceContext(exts string) (*glContext, error) {
	if !hasExt(exts, "EGL_EXT_platform_device") {
		return nil, errors.New("no EGL_EXT_platform_device")
	}
	devs := make([]C.EGLDeviceEXT, maxEGLDevices)
	n := int(C.queryDevices(maxEGLDevices, &devs[0]))
	switch {
	case n < 0:
		return nil, errors.New("eglQueryDevicesEXT: " + eglError())
	case n == 0:
		return nil, errors.New("no devices")
	}
	software := make([]bool, n)
	for i := range n {
		software[i] = C.deviceSoftware(devs[i]) != 0
	}
	var fails []string
	for _, i := range hardwareFirst(software) {
		c, err := contextOn(C.eglGetPlatformDisplay(C.EGL_PLATFORM_DEVICE_EXT, unsafe.Pointer(devs[i]), nil))
		if err == nil {
			c.display = fmt.Sprintf("device %d", i)
			return c, nil
		}
		fails = append(fails, fmt.Sprintf("device %d: %v", i, err))
	}
	return nil, errors.New(strings.Join(fails, ", "))
}

// surfacelessContext tries Mesa's surfaceless platform (llvmpipe, or a
// render node).
func surfacelessContext(exts string) (*glContext, error) {
	if !hasExt(exts, "EGL_MESA_platform_surfaceless") {
		return nil, errors.New("no EGL_MESA_platform_surfaceless")
	}
	c, err := contextOn(C.eglGetPlatformDisplay(C.EGL_PLATFORM_SURFACELESS_MESA, nil, nil))
	if err != nil {
		return nil, err
	}
	c.display = "surfaceless"
	return c, nil
}

// defaultContext tries EGL_DEFAULT_DISPLAY.
func defaultContext(string) (*glContext, error) {
	c, err := contextOn(C.eglGetDisplay(nil))
	if err != nil {
		return nil, err
	}
	c.display = "default"
	return c, nil
}

// identify names the context in the identity: EGL, and which display.
func (c *glContext) identify(id *Identity) {
	id.Context = "egl"
	id.EGLDisplay = c.display
}

// contextOn initialises dpy and makes a 4.3 core context current on it
// without a surface; on failure it terminates dpy and names the step.
func contextOn(dpy C.EGLDisplay) (*glContext, error) {
	if dpy == 0 { // EGL_NO_DISPLAY (cgo makes EGLDisplay a uintptr)
		return nil, errors.New("no display: " + eglError())
	}
	var major, minor C.EGLint
	if C.eglInitialize(dpy, &major, &minor) == C.EGL_FALSE {
		return nil, errors.New("eglInitialize: " + eglError())
	}
	fail := func(step string) (*glContext, error) {
		err := fmt.Errorf("%s: %s", step, eglError())
		C.eglTerminate(dpy)
		return nil, err
	}
	if !hasExt(eglString(dpy, C.EGL_EXTENSIONS), "EGL_KHR_surfaceless_context") {
		C.eglTerminate(dpy)
		return nil, fmt.Errorf("EGL %d.%d has no EGL_KHR_surfaceless_context", major, minor)
	}
	if C.eglBindAPI(C.EGL_OPENGL_API) == C.EGL_FALSE {
		return fail("eglBindAPI(EGL_OPENGL_API)")
	}
	// EGL_SURFACE_TYPE 0: any config, since no surface is ever made.
	cfgAttrs := []C.EGLint{
		C.EGL_RENDERABLE_TYPE, C.EGL_OPENGL_BIT,
		C.EGL_SURFACE_TYPE, 0,
		C.EGL_NONE,
	}
	var cfg C.EGLConfig
	var ncfg C.EGLint
	if C.eglChooseConfig(dpy, &cfgAttrs[0], &cfg, 1, &ncfg) == C.EGL_FALSE {
		return fail("eglChooseConfig")
	}
	if ncfg == 0 {
		C.eglTerminate(dpy)
		return nil, errors.New("eglChooseConfig: no config renders OpenGL")
	}
	ctxAttrs := []C.EGLint{
		C.EGL_CONTEXT_MAJOR_VERSION, 4,
		C.EGL_CONTEXT_MINOR_VERSION, 3,
		C.EGL_CONTEXT_OPENGL_PROFILE_MASK, C.EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
	}
	// A robust context with reset notification where the display offers it
	// (EGL_EXT_create_context_robustness), so that a GPU reset is reported
	// by glGetGraphicsResetStatus (checkReset) instead of hanging or
	// answering garbage; else a plain one.
	var ctx C.EGLContext
	if hasExt(eglString(dpy, C.EGL_EXTENSIONS), "EGL_EXT_create_context_robustness") {
		robust := append(slices.Clone(ctxAttrs),
			C.EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY_EXT, C.EGL_LOSE_CONTEXT_ON_RESET_EXT, C.EGL_NONE)
		ctx = C.eglCreateContext(dpy, cfg, nil, &robust[0])
	}
	if ctx == nil {
		ctxAttrs = append(ctxAttrs, C.EGL_NONE)
		ctx = C.eglCreateContext(dpy, cfg, nil, &ctxAttrs[0])
	}
	if ctx == nil {
		return fail("eglCreateContext(4.3 core)")
	}
	if C.eglMakeCurrent(dpy, nil, nil, ctx) == C.EGL_FALSE {
		C.eglDestroyContext(dpy, ctx)
		return fail("eglMakeCurrent(no surface)")
	}
	return &glContext{dpy: dpy, ctx: ctx}, nil
}

// current says why the context is no longer current on the GL thread, or
// no longer usable: its display terminated (EGL keeps a current context
// alive past eglTerminate, but its handles are invalid), or nil.
func (c *glContext) current() error {
	if C.eglGetCurrentContext() != c.ctx {
		return errors.New("the EGL context is not current")
	}
	var v C.EGLint
	if C.eglQueryContext(c.dpy, c.ctx, C.EGL_CONTEXT_CLIENT_TYPE, &v) == C.EGL_FALSE {
		return errors.New("the EGL display is gone: eglQueryContext: " + eglError())
	}
	return nil
}

// terminate ends the display under the context, as any other user of the
// process's EGL display may (eglGetPlatformDisplay returns one handle per
// display): the lost-context test uses it.
func (c *glContext) terminate() { C.eglTerminate(c.dpy) }

// destroy releases the context and the display, on the GL thread.
func (c *glContext) destroy() {
	C.eglMakeCurrent(c.dpy, nil, nil, nil)
	C.eglDestroyContext(c.dpy, c.ctx)
	C.eglTerminate(c.dpy)
}

// clientExtensions lists the EGL client extensions (EGL_EXT_client_
// extensions): the platforms this libEGL offers.
func clientExtensions() string { return eglString(0, C.EGL_EXTENSIONS) }

// eglString is eglQueryString, "" where it fails (a display without the
// query, or EGL_NO_DISPLAY without client extensions).
func eglString(dpy C.EGLDisplay, name C.EGLint) string {
	s := C.eglQueryString(dpy, name)
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// hasExt reports whether the space-separated list exts holds ext.
func hasExt(exts, ext string) bool {
	for _, e := range strings.Fields(exts) {
		if e == ext {
			return true
		}
	}
	return false
}

// eglErrors names the EGL 1.5 error codes.
var eglErrors = map[C.EGLint]string{
	C.EGL_SUCCESS: "EGL_SUCCESS", C.EGL_NOT_INITIALIZED: "EGL_NOT_INITIALIZED",
	C.EGL_BAD_ACCESS: "EGL_BAD_ACCESS", C.EGL_BAD_ALLOC: "EGL_BAD_ALLOC",
	C.EGL_BAD_ATTRIBUTE: "EGL_BAD_ATTRIBUTE", C.EGL_BAD_CONFIG: "EGL_BAD_CONFIG",
	C.EGL_BAD_CONTEXT: "EGL_BAD_CONTEXT", C.EGL_BAD_CURRENT_SURFACE: "EGL_BAD_CURRENT_SURFACE",
	C.EGL_BAD_DISPLAY: "EGL_BAD_DISPLAY", C.EGL_BAD_MATCH: "EGL_BAD_MATCH",
	C.EGL_BAD_NATIVE_PIXMAP: "EGL_BAD_NATIVE_PIXMAP", C.EGL_BAD_NATIVE_WINDOW: "EGL_BAD_NATIVE_WINDOW",
	C.EGL_BAD_PARAMETER: "EGL_BAD_PARAMETER", C.EGL_BAD_SURFACE: "EGL_BAD_SURFACE",
	C.EGL_CONTEXT_LOST: "EGL_CONTEXT_LOST",
}

// eglError names the calling thread's last EGL error.
func eglError() string {
	e := C.eglGetError()
	if name, ok := eglErrors[e]; ok {
		return fmt.Sprintf("%s (0x%x)", name, int(e))
	}
	return fmt.Sprintf("EGL error 0x%x", int(e))
}
