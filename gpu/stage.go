//go:build cgo

package gpu

import (
	"time"
	"unsafe"

	"github.com/go-gl/gl/v4.3-core/gl"
)

// stageFlags are a persistent staging buffer's storage and mapping flags:
// mapped once for reading and writing, and coherent, so that neither side
// flushes (GL 4.4 / ARB_buffer_storage).
const stageFlags = gl.MAP_READ_BIT | gl.MAP_WRITE_BIT | gl.MAP_PERSISTENT_BIT | gl.MAP_COHERENT_BIT

// stages are a Program's staging buffers, one per graph input and one per
// graph output, each holding the tensor's elements packed at its wire
// width (wire.go). They are kept between decodes (a decode of no more
// words reuses them) and freed with the Program. GL thread only.
type stages struct {
	in, out []*buffer
	// fence follows the last decode's use of the input stages, which the
	// next decode's host writes wait on (a mapped buffer is written
	// outside GL's command order); 0 when none is pending.
	fence uintptr
}

// stage returns (*at) a staging buffer of at least words words, made anew
// when the one held is smaller.
func (d *Device) stage(at **buffer, words int) *buffer {
	if b := *at; b != nil && b.n >= words {
		return b
	}
	(*at).free()
	*at = d.allocStage(words)
	return *at
}

// allocStage allocates a staging buffer of n words, one storage buffer per
// 2^ChunkShift like every buffer: persistent and mapped where the driver
// has buffer storage, plain otherwise (then written with glBufferSubData
// and read with glGetBufferSubData).
func (d *Device) allocStage(n int) *buffer {
	if r := recording; r != nil {
		defer r.begin(phaseAlloc, "", 4*int64(n))()
	}
	b := &buffer{n: n}
	chunk := 1 << d.lim.ChunkShift
	for at := 0; at < max(n, 1); at += chunk {
		size := 4 * min(max(n, 1)-at, chunk)
		var id uint32
		gl.GenBuffers(1, &id)
		gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, id)
		if d.mapStaging {
			gl.BufferStorage(gl.SHADER_STORAGE_BUFFER, size, nil, stageFlags)
			b.mapped = append(b.mapped, gl.MapBufferRange(gl.SHADER_STORAGE_BUFFER, 0, size, stageFlags))
		} else {
			gl.BufferData(gl.SHADER_STORAGE_BUFFER, size, nil, gl.STREAM_COPY)
		}
		b.ids = append(b.ids, id)
		live.buffers.Add(1)
	}
	return b
}

// chunkBytes is the bytes of one storage buffer of a chunked buffer.
func (d *Device) chunkBytes() int { return 4 << d.lim.ChunkShift }

// put copies src (whole words, at most b.n of them) into the staging
// buffer b: into its mapping, or by glBufferSubData.
func (d *Device) put(b *buffer, src []byte) {
	if r := recording; r != nil {
		defer r.begin(phaseUpload, "", int64(len(src)))()
	}
	cb := d.chunkBytes()
	for j, id := range b.ids {
		part := src[min(j*cb, len(src)):min((j+1)*cb, len(src))]
		switch {
		case len(part) == 0:
		case b.mapped != nil:
			copy(unsafe.Slice((*byte)(b.mapped[j]), len(part)), part)
		default:
			gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, id)
			gl.BufferSubData(gl.SHADER_STORAGE_BUFFER, 0, len(part), unsafe.Pointer(&part[0]))
		}
	}
}

// get returns the first n bytes of the staging buffer b, once every
// command issued before has finished: its mapping itself, or a copy read
// by glGetBufferSubData. A mapping's bytes are valid until b is written
// again.
func (d *Device) get(b *buffer, n int) []byte {
	if r := recording; r != nil {
		defer r.begin(phaseReadback, "", int64(n))()
	}
	if b.mapped != nil && len(b.mapped) == 1 {
		return unsafe.Slice((*byte)(b.mapped[0]), n)
	}
	out := make([]byte, n)
	cb := d.chunkBytes()
	for j, id := range b.ids {
		part := out[min(j*cb, n):min((j+1)*cb, n)]
		switch {
		case len(part) == 0:
		case b.mapped != nil:
			copy(part, unsafe.Slice((*byte)(b.mapped[j]), len(part)))
		default:
			gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, id)
			gl.GetBufferSubData(gl.SHADER_STORAGE_BUFFER, 0, len(part), unsafe.Pointer(&part[0]))
		}
	}
	return out
}

// copyWords copies the first n words of src into dst on the device (an
// i32 tensor crossing: no shader), chunk by chunk; the two buffers' chunks
// line up. GL orders it with the dispatches around it; a shader's writes
// to src are made visible to it by a buffer-update barrier before.
func copyWords(dst, src *buffer, n, chunk int) {
	for j := 0; j*chunk < n; j++ {
		gl.BindBuffer(gl.COPY_READ_BUFFER, src.ids[j])
		gl.BindBuffer(gl.COPY_WRITE_BUFFER, dst.ids[j])
		gl.CopyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, 0, 0, 4*min(n-j*chunk, chunk))
	}
}

// pack fills the staging buffer s with the tensor buffer t's n elements
// at width w (wire.comp; a copy at i32).
func (d *Device) pack(s, t *buffer, n int, w wire) error {
	if n == 0 {
		return nil
	}
	if w.bytes == 4 {
		gl.MemoryBarrier(gl.BUFFER_UPDATE_BARRIER_BIT)
		copyWords(s, t, n, 1<<d.lim.ChunkShift)
		return nil
	}
	words := w.len(n) / 4
	k := kernel{shader: "wire", defs: []string{wireBits(w)}, in: []*buffer{t}, out: s, uni: map[string]int{"N": n}, groups: (words + localSize - 1) / localSize}
	return d.dispatch(k)
}

// clearStage zeroes the first words words of staging buffer s, before a
// producer ORs a graph output's fields into them (writePackedStore). GL
// orders the clear before the dispatches after it.
func (d *Device) clearStage(s *buffer, words int) {
	chunk := 1 << d.lim.ChunkShift
	for j := 0; j*chunk < words; j++ {
		gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, s.ids[j])
		gl.ClearBufferSubData(gl.SHADER_STORAGE_BUFFER, gl.R32UI, 0, 4*min(words-j*chunk, chunk), gl.RED_INTEGER, gl.UNSIGNED_INT, nil)
	}
}

// clearPacked zeroes the first words words of a pooled buffer taken for a
// packed tensor, before its producer ORs the tensor's fields into them. A
// buffer that a dispatch since the last barrier read or wrote waits
// behind one first, so that the clear cannot overtake that access.
func (d *Device) clearPacked(b *buffer, words int) {
	if b.read == d.epoch || b.wrote == d.epoch {
		gl.MemoryBarrier(gl.SHADER_STORAGE_BARRIER_BIT | gl.TEXTURE_FETCH_BARRIER_BIT | gl.BUFFER_UPDATE_BARRIER_BIT)
		d.epoch++
	}
	d.clearStage(b, words)
}

// wireBits is wire.comp's B for width w.
func wireBits(w wire) string {
	if w.bytes == 1 {
		return "B 8"
	}
	return "B 16"
}

// settle waits until every command issued so far has finished, with the
// shaders' writes visible to the host through a mapping or a read: a
// barrier, then a fence waited on (a DecodeSplit counts it as its wait).
func (d *Device) settle() {
	gl.MemoryBarrier(gl.CLIENT_MAPPED_BUFFER_BARRIER_BIT | gl.BUFFER_UPDATE_BARRIER_BIT)
	t0 := time.Now()
	waitFence(gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0))
	if r := recording; r != nil {
		r.waitNS += time.Since(t0).Nanoseconds()
	}
}

// waitFence waits on a fence sync and deletes it (0 does nothing). The
// first wait flushes the commands before it, so the wait ends.
func waitFence(f uintptr) {
	if f == 0 {
		return
	}
	for flags := uint32(gl.SYNC_FLUSH_COMMANDS_BIT); ; flags = 0 {
		if r := gl.ClientWaitSync(f, flags, uint64(time.Second)); r != gl.TIMEOUT_EXPIRED {
			break
		}
	}
	gl.DeleteSync(f)
}

// bytes is the device memory the stages hold.
func (s *stages) bytes() int64 {
	var n int64
	for _, l := range [][]*buffer{s.in, s.out} {
		for _, b := range l {
			if b != nil {
				n += b.bytes()
			}
		}
	}
	return n
}

// release passes every staging buffer to drop and lets the fence go
// (deleted while the context lives, forgotten once it is lost).
func (s *stages) release(drop func(*buffer), held bool) {
	for _, l := range [][]*buffer{s.in, s.out} {
		for _, b := range l {
			drop(b)
		}
	}
	if s.fence != 0 && held {
		gl.DeleteSync(s.fence)
	}
	*s = stages{}
}
