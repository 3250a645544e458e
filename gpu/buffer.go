//go:build cgo

package gpu

import (
	"fmt"
	"unsafe"

	"github.com/go-gl/gl/v4.3-core/gl"
)

// buffer is an int32 array on the device, split across as many storage
// buffers as it needs, each of at most 2^ChunkShift elements (§6, §9.4: a
// tensor may be split across several storage bindings).
type buffer struct {
	ids []uint32
	n   int
	// tex holds a buffer texture (R32I) over each storage buffer, made
	// the first time a kernel reads the buffer through texels
	// (Device.texel), deleted with it.
	tex []uint32
	// mapped holds each storage buffer's persistent mapping, for a
	// staging buffer made with buffer storage (stage.go); nil otherwise.
	mapped []unsafe.Pointer
	// wire is the width of the graph input an input staging buffer holds,
	// which its readers unpack (shader.go's writeSlot), or of the graph
	// output an output staging buffer's producer packs into it
	// (writePackedStore); zero otherwise.
	wire wire
	// clamp is the policy of the tensor the buffer holds (§3): when set,
	// every store into it clamps to [lo, hi] (the producer's store applies
	// the policy, so no pass of its own runs it).
	clamp  bool
	lo, hi int
	// wrote and read are the barrier epochs (Device.epoch) of the last
	// dispatch that wrote the buffer and that read it.
	wrote, read uint64
}

// newBuffer allocates n elements (at least one, so that an empty parameter
// array still binds). It runs on the GL thread.
func (d *Device) newBuffer(n int) *buffer { return d.alloc(n, nil) }

// upload allocates a buffer holding data.
func (d *Device) upload(data []int32) *buffer { return d.alloc(len(data), data) }

// alloc allocates n elements, one storage buffer per 2^ChunkShift, each
// filled from its part of data when data is not nil.
func (d *Device) alloc(n int, data []int32) *buffer {
	if r := recording; r != nil {
		defer r.begin(allocPhase(data), "", 4*int64(n))()
	}
	b := &buffer{n: n}
	chunk := 1 << d.lim.ChunkShift
	for at := 0; at < max(n, 1); at += chunk {
		size := min(max(n, 1)-at, chunk)
		ptr := unsafe.Pointer(nil)
		if data != nil && n > 0 {
			ptr = unsafe.Pointer(&data[at])
		}
		var id uint32
		gl.GenBuffers(1, &id)
		gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, id)
		gl.BufferData(gl.SHADER_STORAGE_BUFFER, 4*size, ptr, gl.DYNAMIC_COPY)
		b.ids = append(b.ids, id)
		live.buffers.Add(1)
	}
	return b
}

// bytes is the device memory the buffer takes.
func (b *buffer) bytes() int64 { return 4 * int64(max(b.n, 1)) }

// download reads a buffer back, after the barrier that makes every shader
// write visible to it (docs/CONVENTIONS.md §6).
func (d *Device) download(b *buffer) []int32 {
	if r := recording; r != nil {
		r.wait()
		defer r.begin(phaseReadback, "", 4*int64(b.n))()
	}
	gl.MemoryBarrier(gl.BUFFER_UPDATE_BARRIER_BIT)
	out := make([]int32, b.n)
	chunk := 1 << d.lim.ChunkShift
	for j, id := range b.ids {
		part := out[j*chunk : min((j+1)*chunk, b.n)]
		gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, id)
		gl.GetBufferSubData(gl.SHADER_STORAGE_BUFFER, 0, 4*len(part), unsafe.Pointer(&part[0]))
	}
	return out
}

// free releases the buffer's storage.
func (b *buffer) free() {
	if b != nil && len(b.ids) > 0 {
		if len(b.tex) > 0 {
			gl.DeleteTextures(int32(len(b.tex)), &b.tex[0])
		}
		gl.DeleteBuffers(int32(len(b.ids)), &b.ids[0])
		b.forget()
	}
}

// forget drops the buffer without GL, once the context that held its
// storage is lost.
func (b *buffer) forget() {
	if b != nil {
		live.buffers.Add(-int64(len(b.ids)))
		b.ids, b.mapped, b.tex = nil, nil, nil
	}
}

// texels returns the buffer's textures, making them on first use: one
// R32I buffer texture over each storage buffer, so that a kernel reads its
// elements with texelFetch (Device.texel). It runs on the GL thread.
func (b *buffer) texels() []uint32 {
	if len(b.tex) == len(b.ids) {
		return b.tex
	}
	b.tex = make([]uint32, len(b.ids))
	gl.GenTextures(int32(len(b.tex)), &b.tex[0])
	for j, id := range b.ids {
		gl.BindTexture(gl.TEXTURE_BUFFER, b.tex[j])
		gl.TexBuffer(gl.TEXTURE_BUFFER, gl.R32I, id)
	}
	return b.tex
}

// kernel is one dispatch: a shader variant, its storage operands and its
// uniforms, over groups work groups.
type kernel struct {
	shader string
	defs   []string
	in     []*buffer // slots in0, in1
	out    *buffer   // slot out
	prm    *buffer   // slot prm, or nil
	uni    map[string]int
	groups int
}

// hazard reports whether k must wait behind a storage barrier: it reads a
// buffer written since the last barrier, or writes one read or written
// since then by another tensor's dispatch (a pooled buffer taken again).
// Dispatches of one operator into one output write disjoint elements (the
// phases of a conv_transpose, the parts of a concat), so they need none
// between them.
func (d *Device) hazard(k kernel) bool {
	for _, b := range k.in {
		if b.wrote == d.epoch {
			return true
		}
	}
	return k.prm != nil && k.prm.wrote == d.epoch || k.out.read == d.epoch
}

// dispatch runs k on the GL thread after a storage barrier where it reads
// what an earlier dispatch wrote (docs/CONVENTIONS.md §6: a barrier goes between
// dependent dispatches only).
func (d *Device) dispatch(k kernel) error {
	if r := recording; r != nil {
		defer r.begin(phaseDispatch, k.shader, 0)()
	}
	var slots []slot
	var bufs []*buffer
	for i, b := range k.in {
		slots = append(slots, slot{name: fmt.Sprintf("in%d", i), chunks: len(b.ids), wire: b.wire, texel: d.texel})
		bufs = append(bufs, b)
	}
	slots = append(slots, slot{name: "out", chunks: len(k.out.ids), wire: k.out.wire})
	bufs = append(bufs, k.out)
	if k.prm != nil {
		slots = append(slots, slot{name: "prm", chunks: len(k.prm.ids), texel: d.texel})
		bufs = append(bufs, k.prm)
	}
	defs := k.defs
	if k.out.clamp {
		defs = append(defs[:len(defs):len(defs)], "CLAMP_OUT")
	}
	p, err := d.program(k.shader, defs, slots)
	if err != nil {
		return err
	}
	gx := min(k.groups, d.lim.MaxGroupCount[0])
	gy := (k.groups + gx - 1) / gx
	if gy > d.lim.MaxGroupCount[1] {
		return fmt.Errorf("gpu: %s: %d work groups pass the device's grid", k.shader, k.groups)
	}
	if d.hazard(k) {
		// Texel reads see storage writes after the texture-fetch bit.
		gl.MemoryBarrier(gl.SHADER_STORAGE_BARRIER_BIT | gl.TEXTURE_FETCH_BARRIER_BIT)
		d.epoch++
	}
	gl.UseProgram(p.id)
	binding, unit := uint32(0), uint32(0)
	for i, b := range bufs {
		if slots[i].texel {
			// Made on the unit about to be bound, so no earlier
			// binding of this dispatch is displaced.
			gl.ActiveTexture(gl.TEXTURE0 + unit)
			for _, tex := range b.texels() {
				gl.ActiveTexture(gl.TEXTURE0 + unit)
				gl.BindTexture(gl.TEXTURE_BUFFER, tex)
				unit++
			}
			continue
		}
		for _, id := range b.ids {
			gl.BindBufferBase(gl.SHADER_STORAGE_BUFFER, binding, id)
			binding++
		}
	}
	for name, v := range k.uni {
		if loc := p.uniform(name); loc >= 0 {
			gl.Uniform1i(loc, int32(v))
		}
	}
	if k.out.clamp {
		gl.Uniform1i(p.uniform("OUT_LO"), int32(k.out.lo))
		gl.Uniform1i(p.uniform("OUT_HI"), int32(k.out.hi))
	}
	gl.DispatchCompute(uint32(gx), uint32(gy), 1)
	for _, b := range k.in {
		b.read = d.epoch
	}
	if k.prm != nil {
		k.prm.read = d.epoch
	}
	k.out.wrote = d.epoch
	return nil
}

// elementwise runs a one-thread-per-element kernel over n elements; the
// shader reads n as the uniform N.
func (d *Device) elementwise(k kernel, n int) error {
	if k.uni == nil {
		k.uni = map[string]int{}
	}
	k.uni["N"] = n
	k.groups = (n + localSize - 1) / localSize
	return d.dispatch(k)
}

// glError reports the first GL error raised since the last check: a
// buffer the driver could not allocate (GL_OUT_OF_MEMORY) leaves nothing to
// compute with, and must not pass for a result.
func glError(during string) error {
	if e := gl.GetError(); e != gl.NO_ERROR {
		for gl.GetError() != gl.NO_ERROR {
		}
		return fmt.Errorf("gpu: GL error 0x%04x during %s", e, during)
	}
	return nil
}
