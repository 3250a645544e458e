//go:build cgo

package gpu

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-gl/gl/v4.3-core/gl"
)

// maxTensorElems is §3's cap on every tensor.
const maxTensorElems = 1 << 26

// Slots a kernel binds: up to two input tensors, one output tensor and one
// parameter array (every operator with more tensors is dispatched once per
// tensor, see concat and the subpos operators).
const tensorSlots = 3

// localSize is the work-group size of every one-thread-per-element kernel.
const localSize = 64

// Device is one GL 4.3 core context on its own OS thread. It is safe for
// concurrent use: every call is serialised on that thread.
type Device struct {
	th    *glThread
	ctx   *glContext
	ident Identity // the driver's strings and the context; Identity adds lim
	lim   Limits
	progs map[string]*glProgram // compiled variants, GL thread only
	reset resetCheck
	// mapStaging is whether staging buffers are persistent and mapped
	// (GL 4.4 or ARB_buffer_storage), GL thread only.
	mapStaging bool
	// software is Identity.Software, read once: the kernels that stage
	// tiles in shared memory take their register-only forms there.
	software bool
	// packs is whether a tensor between operators is stored packed at
	// its certified width (u8, i8, u16 or i16 in a uint word: 4 or 2×
	// fewer bytes through memory), its producer storing each element
	// with an atomic OR into a cleared word. Not on a software
	// rasteriser, where an atomic is a loop over the SIMD lanes and
	// memory is the CPU's. GL thread only.
	packs bool
	// texel is whether kernels read their inputs and parameters through
	// buffer textures (texelFetch) rather than storage blocks: where a
	// texture holds a whole binding and the units hold every input
	// binding. On llvmpipe a storage or shared read is a loop over the
	// SIMD lanes with a branch each, a texel fetch one gather, about
	// twice as fast a read. GL thread only.
	texel bool
	// epoch counts the storage barriers issued (from 1, so that a new
	// buffer, whose epochs are 0, waits on none), GL thread only.
	epoch uint64
}

var (
	openMu sync.Mutex
	opened *Device
)

// Open returns the process's GL device, making the context on first use
// (one context per process, so every caller shares it): GLFW's hidden
// window by default, EGL without a display in a -tags egl build. The error
// says why there is none: no display or EGL display, no GL 4.3 core
// context, or a limit too small for §3's 2^26-element tensors.
func Open() (*Device, error) {
	openMu.Lock()
	defer openMu.Unlock()
	if opened != nil {
		return opened, nil
	}
	d := &Device{progs: map[string]*glProgram{}, epoch: 1}
	th, err := startThread(d.initGL, func() error { return d.ctx.current() }, d.reset.check)
	if err != nil {
		return nil, err
	}
	d.th = th
	opened = d
	return d, nil
}

// initGL runs on the GL thread: a current 4.3 core context (newContext),
// then gl.Init, then the identity and limits.
func (d *Device) initGL() error {
	ctx, err := newContext()
	if err != nil {
		return err
	}
	if err := gl.Init(); err != nil {
		ctx.destroy()
		return fmt.Errorf("gpu: GL 4.3 entry points missing: %v (%s)", err, belowGL43)
	}
	d.ctx = ctx
	d.ident = Identity{
		Vendor:   gl.GoStr(gl.GetString(gl.VENDOR)),
		Renderer: gl.GoStr(gl.GetString(gl.RENDERER)),
		Version:  gl.GoStr(gl.GetString(gl.VERSION)),
		GLSL:     gl.GoStr(gl.GetString(gl.SHADING_LANGUAGE_VERSION)),
	}
	if why := below43(d.ident.Version); why != "" {
		ctx.destroy()
		return errors.New(why)
	}
	ctx.identify(&d.ident)
	d.software = d.ident.Software()
	d.packs = !d.software
	d.reset.initReset(d.ident.Version)
	d.mapStaging = AtLeast(d.ident.Version, 4, 4) || slices.Contains(glExtensions(), "GL_ARB_buffer_storage")
	d.ident.Robustness = d.reset.strategy
	if err := d.readLimits(); err != nil {
		ctx.destroy()
		return err
	}
	return nil
}

// readLimits queries the limits and refuses a device too small for §3's
// tensors split across at most the bindings one kernel may use.
func (d *Device) readLimits() error {
	var l Limits
	gl.GetInteger64v(gl.MAX_SHADER_STORAGE_BLOCK_SIZE, &l.MaxSSBOBytes)
	gl.GetIntegerv(gl.MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &l.MaxSSBOBlocks)
	gl.GetIntegerv(gl.MAX_SHADER_STORAGE_BUFFER_BINDINGS, &l.MaxSSBOBindings)
	gl.GetIntegerv(gl.MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &l.MaxInvocations)
	gl.GetIntegerv(gl.MAX_COMPUTE_SHARED_MEMORY_SIZE, &l.MaxSharedBytes)
	gl.GetIntegerv(gl.MAX_TEXTURE_BUFFER_SIZE, &l.MaxTexelBuffer)
	gl.GetIntegerv(gl.MAX_COMPUTE_TEXTURE_IMAGE_UNITS, &l.MaxTextureUnits)
	for i := range 3 {
		var c, s int32
		gl.GetIntegeri_v(gl.MAX_COMPUTE_WORK_GROUP_COUNT, uint32(i), &c)
		gl.GetIntegeri_v(gl.MAX_COMPUTE_WORK_GROUP_SIZE, uint32(i), &s)
		l.MaxGroupCount[i], l.MaxGroupSize[i] = int(c), int(s)
	}
	// A binding holds a power of two of int32 elements, so that an element's
	// binding is its index shifted right (§9.4: tile a tensor across bindings).
	for l.ChunkShift = 26; l.ChunkShift > 0 && int64(4)<<l.ChunkShift > l.MaxSSBOBytes; l.ChunkShift-- {
	}
	l.ChunksPerTensor = maxTensorElems >> l.ChunkShift
	d.lim = l
	d.texel = l.texels()
	need := int32(tensorSlots*l.ChunksPerTensor + 1)
	switch {
	case l.ChunkShift < 20:
		return fmt.Errorf("gpu: GL_MAX_SHADER_STORAGE_BLOCK_SIZE %d is too small (want ≥ 4 MiB)", l.MaxSSBOBytes)
	case l.MaxSSBOBlocks < need || l.MaxSSBOBindings < need:
		return fmt.Errorf("gpu: %d storage blocks per compute shader, %d bindings; want %d", l.MaxSSBOBlocks, l.MaxSSBOBindings, need)
	case l.MaxGroupSize[0] < convMaxThreads || l.MaxInvocations < convMaxThreads:
		return fmt.Errorf("gpu: work-group size %d (%d invocations) is under %d", l.MaxGroupSize[0], l.MaxInvocations, convMaxThreads)
	case l.MaxGroupCount[0] < 1024 || l.MaxGroupCount[1] < 1024:
		return fmt.Errorf("gpu: work-group counts %v are too small", l.MaxGroupCount)
	case l.MaxSharedBytes < convSharedBudget:
		return fmt.Errorf("gpu: %d bytes of shared memory, want %d", l.MaxSharedBytes, convSharedBudget)
	}
	return nil
}

// texels reports whether a buffer texture holds a whole binding and the
// texture units hold every input binding of a kernel, so that kernels can
// read through texels (Device.texel).
func (l Limits) texels() bool {
	return int64(l.MaxTexelBuffer) >= 1<<l.ChunkShift && l.MaxTextureUnits >= int32(tensorSlots*l.ChunksPerTensor)
}

// Identity names the GL implementation and the limits it runs under.
func (d *Device) Identity() Identity {
	id := d.ident
	id.Limits = d.lim
	_ = d.th.call(func() error {
		id.Forms = forms(d.software, d.texel, d.packs)
		return nil
	})
	return id
}

// forms is Identity.Forms.
func forms(software, texel, packs bool) string {
	f := []string{"shared"}
	if software {
		f[0] = "register"
	}
	if texel {
		f = append(f, "texel")
	}
	if packs {
		f = append(f, "packed")
	}
	return strings.Join(f, ",")
}

// Limits returns the limits read at Open.
func (d *Device) Limits() Limits { return d.lim }
