package gpu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Limits are the device limits this package reads and relies on
// (docs/CONVENTIONS.md §6: query them, never assume them).
type Limits struct {
	MaxSSBOBytes    int64  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
	MaxSSBOBlocks   int32  // GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS
	MaxSSBOBindings int32  // GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS
	MaxGroupCount   [3]int // GL_MAX_COMPUTE_WORK_GROUP_COUNT
	MaxGroupSize    [3]int // GL_MAX_COMPUTE_WORK_GROUP_SIZE
	MaxInvocations  int32  // GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS
	MaxSharedBytes  int32  // GL_MAX_COMPUTE_SHARED_MEMORY_SIZE
	MaxTexelBuffer  int32  // GL_MAX_TEXTURE_BUFFER_SIZE, in texels
	MaxTextureUnits int32  // GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS
	ChunkShift      uint   // a tensor binding holds 2^ChunkShift elements
	ChunksPerTensor int    // bindings a 2^26-element tensor needs
}

// Identity is who the GL fabric is: the strings the driver reports, how the
// context was made, and the limits it runs under. Code reads the fields;
// Map spells them as a conformance report does.
type Identity struct {
	Vendor   string // GL_VENDOR
	Renderer string // GL_RENDERER, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
	Version  string // GL_VERSION, e.g. "4.5 (Core Profile) Mesa 23.2.1"
	GLSL     string // GL_SHADING_LANGUAGE_VERSION
	Context  string // "glfw" or "egl"
	// EGLDisplay is the EGL display the context is on ("device 0",
	// "surfaceless", "default"); "" under GLFW.
	EGLDisplay string
	// Robustness is the context's reset notification strategy:
	// "lose_context_on_reset" when a GPU reset is reported (and then
	// answered as ErrLost), "none" when the driver gave no robust context.
	Robustness string
	// Forms are the kernel forms the device takes, comma-separated:
	// "register" (a software rasteriser's register-tiled kernels) or
	// "shared" (shared-memory tiles), then "texel" where kernels read
	// through buffer textures, "packed" where tensors between operators
	// are stored at their certified width.
	Forms  string
	Limits Limits
}

// Map is the identity as a conformance report's fabric object: "fabric"
// gpu, the driver's strings, the context, and the limits in decimal.
func (id Identity) Map() map[string]string {
	m := map[string]string{
		"fabric":   "gpu",
		"vendor":   id.Vendor,
		"renderer": id.Renderer,
		"version":  id.Version,
		"glsl":     id.GLSL,
		"context":  id.Context,
	}
	if id.Robustness != "" {
		m["robustness"] = id.Robustness
	}
	if id.EGLDisplay != "" {
		m["egl_display"] = id.EGLDisplay
	}
	if id.Forms != "" {
		m["kernel_forms"] = id.Forms
	}
	l := id.Limits
	for k, v := range map[string]int64{
		"max_ssbo_bytes":    l.MaxSSBOBytes,
		"max_ssbo_blocks":   int64(l.MaxSSBOBlocks),
		"max_group_count_x": int64(l.MaxGroupCount[0]),
		"max_group_count_y": int64(l.MaxGroupCount[1]),
		"max_group_size_x":  int64(l.MaxGroupSize[0]),
		"max_invocations":   int64(l.MaxInvocations),
		"max_shared_bytes":  int64(l.MaxSharedBytes),
		"bindings_per_2p26": int64(l.ChunksPerTensor),
	} {
		m[k] = strconv.FormatInt(v, 10)
	}
	return m
}

// GLVersion reads the major and minor numbers that begin a GL_VERSION
// string ("4.6.0 NVIDIA 550.54.14", "4.5 (Core Profile) Mesa 23.2.1"); ok
// is false when it does not begin "<major>.<minor>".
func GLVersion(s string) (major, minor int, ok bool) {
	major, rest, ok := leadingInt(s)
	if !ok || !strings.HasPrefix(rest, ".") {
		return 0, 0, false
	}
	minor, _, ok = leadingInt(rest[1:])
	if !ok {
		return 0, 0, false
	}
	return major, minor, true
}

// leadingInt reads the decimal digits that begin s (at most 9, so the value
// fits int) and returns the rest; ok is false when s begins with none.
func leadingInt(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		n = 10*n + int(s[i]-'0')
		i++
	}
	return n, s[i:], i > 0
}

// AtLeast reports whether a GL_VERSION string names major.minor or later,
// comparing the numbers (so "4.10" is after "4.3"); an unreadable version is
// not.
func AtLeast(version string, major, minor int) bool {
	ma, mi, ok := GLVersion(version)
	return ok && (ma > major || ma == major && mi >= minor)
}

// RequireEnv names the variable that makes a missing GL context a failure
// of the tests instead of a skip (CI sets it to 1).
const RequireEnv = "WAIOPS_REQUIRE_GPU"

// Required reports whether the tests must have a GL context: RequireEnv is
// set to anything but "" or "0".
func Required() bool {
	v := os.Getenv(RequireEnv)
	return v != "" && v != "0"
}

// belowGL43 is what a refusal for a GL below 4.3 adds: the GL fabric needs
// compute shaders and storage buffers (GL 4.3); macOS offers GL 4.1.
const belowGL43 = "the GL fabric needs GL 4.3 compute shaders, which macOS (GL 4.1) and older drivers lack: decode on the CPU fabric (--fabric cpu, or auto, which falls back to it)"

// needsDisplayEnv reports whether GLFW on goos reaches its windowing
// system through a display named in the environment (DISPLAY or
// WAYLAND_DISPLAY): every system but Windows and macOS.
func needsDisplayEnv(goos string) bool { return goos != "windows" && goos != "darwin" }

// below43 says why a context reporting GL version v cannot run the GL
// fabric, or "" when it can (4.3 or later).
func below43(v string) string {
	major, minor, ok := GLVersion(v)
	if ok && (major > 4 || major == 4 && minor >= 3) {
		return ""
	}
	return fmt.Sprintf("gpu: GL %q is below 4.3: %s", v, belowGL43)
}

// softwareRenderers are GL renderers that rasterise on the CPU. The CPU
// reference outruns them: docs/bench measured the int_synth decode at 58
// frames/s on the CPU against 20 on llvmpipe (conv_transpose 3.48 G against
// 0.54 G MAC/s), so plan's auto does not route to them (--fabric gpu still
// does: that is how CI proves the shaders), and conv does not stage tiles
// in their shared memory, whose every read is a loop over the SIMD lanes.
var softwareRenderers = []string{"llvmpipe", "softpipe", "swrast", "lavapipe", "software"}

// Software reports whether the renderer is a software rasteriser.
func (id Identity) Software() bool {
	r := strings.ToLower(id.Renderer)
	for _, s := range softwareRenderers {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// hardwareFirst orders devices so that those not marked software come
// first, each group in its own order: an EGL context on a machine with a
// GPU and Mesa's software device (EGL_MESA_device_software) takes the GPU.
func hardwareFirst(software []bool) []int {
	var hw, sw []int
	for i, s := range software {
		if s {
			sw = append(sw, i)
		} else {
			hw = append(hw, i)
		}
	}
	return append(hw, sw...)
}
