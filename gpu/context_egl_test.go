//go:build cgo && egl

package gpu

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/gl/v4.3-core/gl"
)

// helperEnv selects what TestEGLHelper does in a child process: "open"
// (newContext) or the index of one of eglPlatforms. A child has its own
// EGL displays, so a platform tried there never terminates the display
// the package's Device uses.
const helperEnv = "WAIOPS_EGL_HELPER"

// helperMark starts the one line a child reports on.
const helperMark = "egl-helper: "

// TestEGLHelper is the child: it makes the context asked for on a locked
// thread and prints "ok <GL_VERSION>" or "fail <error>".
func TestEGLHelper(t *testing.T) {
	what := os.Getenv(helperEnv)
	if what == "" {
		t.Skip("runs only as a child of TestEGLPlatforms and TestEGLErrorNamesSteps")
	}
	runtime.LockOSThread()
	var c *glContext
	var err error
	if what == "open" {
		c, err = newContext()
	} else {
		i, _ := strconv.Atoi(what)
		c, err = eglPlatforms[i].try(clientExtensions())
	}
	if err != nil {
		fmt.Printf("%sfail %v\n", helperMark, err)
		return
	}
	defer c.destroy()
	if err := gl.Init(); err != nil {
		fmt.Printf("%sfail gl.Init: %v\n", helperMark, err)
		return
	}
	fmt.Printf("%sok %s\n", helperMark, gl.GoStr(gl.GetString(gl.VERSION)))
}

// child runs TestEGLHelper with helperEnv=what (and env added) and returns
// its report line.
func child(t *testing.T, what string, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestEGLHelper$", "-test.count=1", "-test.v")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+what), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s: %v\n%s", what, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if r, ok := strings.CutPrefix(line, helperMark); ok {
			return r
		}
	}
	t.Fatalf("child %s reported nothing:\n%s", what, out)
	return ""
}

// Each platform, tried alone, gives a 4.3 core context or says why not;
// Mesa's surfaceless platform (llvmpipe) must give one under
// WAIOPS_REQUIRE_GPU (Required), and so must the display Open chose.
func TestEGLPlatforms(t *testing.T) {
	d := openDevice(t)
	chosen := d.Identity().EGLDisplay
	exts := clientExtensions()
	for i, p := range eglPlatforms {
		r := child(t, strconv.Itoa(i))
		t.Logf("%s: %s", p.name, r)
		ok := strings.HasPrefix(r, "ok ")
		if ok && !AtLeast(r[3:], 4, 3) {
			t.Errorf("%s: GL_VERSION %q is under 4.3", p.name, r[3:])
		}
		mustWork := strings.HasPrefix(p.name, strings.Fields(chosen)[0]) ||
			p.name == "surfaceless platform" && hasExt(exts, "EGL_MESA_platform_surfaceless") && Required()
		if mustWork && !ok {
			t.Errorf("%s gives no context (Open chose %q): %s", p.name, chosen, r)
		}
	}
}

// With no EGL vendor (glvnd reads __EGL_VENDOR_LIBRARY_FILENAMES) every
// step fails, and the error names each in order.
func TestEGLErrorNamesSteps(t *testing.T) {
	r := child(t, "open", "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/vendor.json")
	if strings.HasPrefix(r, "ok ") {
		t.Skipf("libEGL ignores __EGL_VENDOR_LIBRARY_FILENAMES (not glvnd): %s", r)
	}
	t.Log(r)
	at := 0
	for _, step := range []string{"fail gpu: no EGL GL 4.3 core context (", "device platform: ", "; surfaceless platform: ", "; default display: "} {
		i := strings.Index(r[at:], step)
		if i < 0 {
			t.Fatalf("error %q lacks %q after byte %d", r, step, at)
		}
		at += i + len(step)
	}
}
