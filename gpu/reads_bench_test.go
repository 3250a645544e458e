//go:build cgo

package gpu

import (
	"testing"

	"github.com/go-gl/gl/v4.3-core/gl"
)

// BenchmarkReads times one read a loop step through each way a kernel can
// read memory, each thread summing 256 reads of a 2^20-int buffer: a
// storage block, a buffer texture (texelFetch), a uniform block and shared
// memory, and the loop with no read ("none"). On llvmpipe a storage or
// shared read is a loop over the SIMD lanes with a branch each and a texel
// fetch one gather, which is why the software forms read through texels
// (Device.texel) and keep tiles in registers. The figure is ns a read a
// thread ("ns/read").
func BenchmarkReads(b *testing.B) {
	d := openDevice(b)
	const n, iter, threads = 1 << 20, 256, 1 << 16
	head := `#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer A { int d[]; } a;
layout(std430, binding = 1) buffer O { int d[]; } o;
layout(binding = 0) uniform isamplerBuffer ta;
layout(std140, binding = 0) uniform U { ivec4 u[1024]; };
shared int sh[4096];
`
	tail := `
void main() {
	uint g = gl_GlobalInvocationID.x;
	for (uint k = gl_LocalInvocationIndex; k < 4096u; k += 64u) {
		sh[k] = int(k);
	}
	barrier();
	int acc = 0;
	uint base = (g * 7u) & 0xFFFFu;
	for (int it = 0; it < 256; it++) {
		acc += ld(base + uint(it)) * (it + 3);
	}
	o.d[g] = acc;
}
`
	for _, c := range []struct{ name, ld string }{
		{"storage", "int ld(uint i) { return a.d[i]; }"},
		{"texel", "int ld(uint i) { return texelFetch(ta, int(i)).x; }"},
		{"uniform", "int ld(uint i) { return u[(i >> 2) & 1023u][i & 3u]; }"},
		{"shared", "int ld(uint i) { return sh[i & 4095u]; }"},
		{"none", "int ld(uint i) { return int(i); }"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var bufs [3]uint32
			var tex, prog uint32
			err := d.th.call(func() error {
				var err error
				if prog, err = compile("reads_"+c.name, head+c.ld+tail); err != nil {
					return err
				}
				gl.GenBuffers(3, &bufs[0])
				gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, bufs[0])
				gl.BufferData(gl.SHADER_STORAGE_BUFFER, 4*n, nil, gl.DYNAMIC_COPY)
				gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, bufs[1])
				gl.BufferData(gl.SHADER_STORAGE_BUFFER, 4*threads, nil, gl.DYNAMIC_COPY)
				gl.BindBuffer(gl.UNIFORM_BUFFER, bufs[2])
				gl.BufferData(gl.UNIFORM_BUFFER, 16*1024, nil, gl.DYNAMIC_DRAW)
				gl.GenTextures(1, &tex)
				gl.ActiveTexture(gl.TEXTURE0)
				gl.BindTexture(gl.TEXTURE_BUFFER, tex)
				gl.TexBuffer(gl.TEXTURE_BUFFER, gl.R32I, bufs[0])
				gl.BindBufferBase(gl.SHADER_STORAGE_BUFFER, 0, bufs[0])
				gl.BindBufferBase(gl.SHADER_STORAGE_BUFFER, 1, bufs[1])
				gl.BindBufferBase(gl.UNIFORM_BUFFER, 0, bufs[2])
				gl.UseProgram(prog)
				gl.DispatchCompute(threads/64, 1, 1)
				gl.Finish()
				return glError("setting the read benchmark up")
			})
			if err != nil {
				b.Fatal(err)
			}
			defer d.th.call(func() error {
				gl.DeleteTextures(1, &tex)
				gl.DeleteBuffers(3, &bufs[0])
				gl.DeleteProgram(prog)
				return nil
			})
			for b.Loop() {
				_ = d.th.call(func() error {
					gl.UseProgram(prog)
					gl.DispatchCompute(threads/64, 1, 1)
					gl.Finish()
					return nil
				})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(threads*iter), "ns/read")
		})
	}
}
