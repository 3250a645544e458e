//go:build cgo

package gpu

import (
	"fmt"
	"strings"

	"github.com/go-gl/gl/v4.3-core/gl"
	"github.com/waiops/waiops/shaders"
)

// glProgram is one compiled shader variant and its uniform locations.
type glProgram struct {
	id  uint32
	uni map[string]int32
}

// slot is a storage operand of a kernel: its name in the shader (which
// reads it with <name>_ld and writes it with <name>_st), the number of
// bindings it spans, and, for a graph input read from its staging buffer
// or a graph output stored straight into one, its wire width (wire.go;
// the zero wire for one int per element). A texel slot is read through
// buffer textures (texelFetch) rather than storage blocks (Device.texel).
type slot struct {
	name   string
	chunks int
	wire   wire
	texel  bool
}

// program returns the variant of shader name under defs and slots,
// compiling and linking it on first use (docs/CONVENTIONS.md §1: one compile per
// variant). It runs on the GL thread. A compile or link failure returns the
// info log with the numbered source, never a panic.
func (d *Device) program(name string, defs []string, slots []slot) (*glProgram, error) {
	key := name + "|" + strings.Join(defs, ";") + fmt.Sprint(slots)
	if p := d.progs[key]; p != nil {
		return p, nil
	}
	src, err := source(name, defs, slots, d.lim.ChunkShift)
	if err != nil {
		return nil, err
	}
	id, err := compile(name, src)
	if err != nil {
		return nil, err
	}
	p := &glProgram{id: id, uni: map[string]int32{}}
	d.progs[key] = p
	return p, nil
}

// source assembles a variant: the version line, the host's #defines, one
// binding block per chunk of each slot with its accessors, the shared
// include, then the operator's shader. chunkShift is the device's
// Limits.ChunkShift.
func source(name string, defs []string, slots []slot, chunkShift uint) (string, error) {
	body, err := shaders.FS.ReadFile(name + ".comp")
	if err != nil {
		return "", fmt.Errorf("gpu: no shader %s.comp: %v", name, err)
	}
	common, err := shaders.FS.ReadFile("common.glsl")
	if err != nil {
		return "", fmt.Errorf("gpu: no common.glsl: %v", err)
	}
	var b strings.Builder
	b.WriteString("#version 430\n")
	fmt.Fprintf(&b, "#define CHUNK_SHIFT %du\n#define LOCAL %d\n", chunkShift, localSize)
	for _, def := range defs {
		fmt.Fprintf(&b, "#define %s\n", def)
	}
	binding, unit := 0, 0
	for _, s := range slots {
		if s.texel {
			writeSlot(&b, s, unit)
			unit += s.chunks
			continue
		}
		writeSlot(&b, s, binding)
		binding += s.chunks
	}
	b.Write(common)
	b.Write(body)
	return b.String(), nil
}

// writeSlot declares slot s's bindings (texture units for a texel slot)
// from binding on, and its accessors. An element's binding is its index >>
// CHUNK_SHIFT (§9.4); each binding is named with a constant index, so no
// block array is indexed dynamically.
func writeSlot(b *strings.Builder, s slot, binding int) {
	packed := s.wire.bytes == 1 || s.wire.bytes == 2
	for j := range s.chunks {
		if s.texel {
			fmt.Fprintf(b, "layout(binding = %d) uniform isamplerBuffer %s_%d;\n", binding+j, s.name, j)
			continue
		}
		if s.name == "out" && packed {
			fmt.Fprintf(b, "layout(std430, binding = %d) buffer B_out_%d { uint d[]; } out_%d;\n", binding+j, j, j)
			continue
		}
		fmt.Fprintf(b, "layout(std430, binding = %d) buffer B_%s_%d { int d[]; } %s_%d;\n", binding+j, s.name, j, s.name, j)
	}
	clamp := ""
	if s.name == "out" {
		// §3: the output tensor's clamp policy, applied by the store
		// (buffer.clamp); the bounds are its uniforms.
		b.WriteString("#ifdef CLAMP_OUT\nuniform int OUT_LO;\nuniform int OUT_HI;\n#define POLICY(v) min(max(v, OUT_LO), OUT_HI)\n#else\n#define POLICY(v) (v)\n#endif\n")
		clamp = "\tv = POLICY(v);\n"
	}
	ld := s.name + "_ld"
	if s.name == "out" && packed {
		writePackedStore(b, s, clamp)
		return
	}
	if packed {
		// A packed graph input (wire.go): <name>_word reads a word,
		// and <name>_ld, written after it (deferred), element i's bits
		// of its word, sign- or zero-extended; no shader stores it.
		ld = s.name + "_word"
		per, bits, ext := 4/s.wire.bytes, 8*s.wire.bytes, "bitfieldExtract(%s_word(i / %du), int(i %% %du) * %d, %d)"
		if s.wire.unsigned {
			ext = "int(bitfieldExtract(uint(%s_word(i / %du)), int(i %% %du) * %d, %d))"
		}
		defer fmt.Fprintf(b, "int %s_ld(uint i) { return "+ext+"; }\n", s.name, s.name, per, per, bits, bits)
	}
	// A texel slot's element: its texel's red channel (R32I).
	elem := "%s_%d.d[%s]"
	if s.texel {
		elem = "texelFetch(%s_%d, int(%s)).x"
	}
	if s.chunks == 1 {
		fmt.Fprintf(b, "int %s(uint i) { return "+elem+"; }\n", ld, s.name, 0, "i")
		if ld == s.name+"_ld" && !s.texel {
			fmt.Fprintf(b, "void %[1]s_st(uint i, int v) {\n%[2]s\t%[1]s_0.d[i] = v;\n}\n", s.name, clamp)
		}
		return
	}
	mask := "((1u << CHUNK_SHIFT) - 1u)"
	fmt.Fprintf(b, "int %s(uint i) {\n\tuint c = i >> CHUNK_SHIFT;\n\tuint o = i & %s;\n", ld, mask)
	for j := range s.chunks - 1 {
		fmt.Fprintf(b, "\tif (c == %du) return "+elem+";\n", j, s.name, j, "o")
	}
	fmt.Fprintf(b, "\treturn "+elem+";\n}\n", s.name, s.chunks-1, "o")
	if ld != s.name+"_ld" || s.texel {
		return
	}
	fmt.Fprintf(b, "void %s_st(uint i, int v) {\n%s\tuint c = i >> CHUNK_SHIFT;\n\tuint o = i & %s;\n", s.name, clamp, mask)
	for j := range s.chunks - 1 {
		fmt.Fprintf(b, "\tif (c == %du) { %s_%d.d[o] = v; return; }\n", j, s.name, j)
	}
	fmt.Fprintf(b, "\t%s_%d.d[o] = v;\n}\n", s.name, s.chunks-1)
}

// writePackedStore writes out_st for a graph output's staging buffer
// (uint words) bound as a kernel's out slot (Program.direct): element i, after the
// tensor's policy, goes into bits (i mod P)·B … of word i / P (wire.comp's
// layout, B = 8 or 16, P = 32 / B). Threads own elements, not words, so
// the store ORs its field into the word atomically, exact whichever thread
// comes first: the decode clears the words before the producer runs
// (Device.clearStage), each element is stored once, and the certificate's
// interval after the policy fits B bits (§8.1), so no field spills into
// its neighbour. No shader reads its out slot, so there is no out_ld.
func writePackedStore(b *strings.Builder, s slot, clamp string) {
	per, bits := 4/s.wire.bytes, 8*s.wire.bytes
	fmt.Fprintf(b, "void out_st(uint i, int v) {\n%s\tuint w = i / %du;\n\tuint f = bitfieldInsert(0u, uint(v), int(i %% %du) * %d, %d);\n", clamp, per, per, bits, bits)
	if s.chunks == 1 {
		b.WriteString("\tatomicOr(out_0.d[w], f);\n}\n")
		return
	}
	b.WriteString("\tuint c = w >> CHUNK_SHIFT;\n\tuint o = w & ((1u << CHUNK_SHIFT) - 1u);\n")
	for j := range s.chunks - 1 {
		fmt.Fprintf(b, "\tif (c == %du) { atomicOr(out_%d.d[o], f); return; }\n", j, j)
	}
	fmt.Fprintf(b, "\tatomicOr(out_%d.d[o], f);\n}\n", s.chunks-1)
}

// compile compiles and links one compute shader.
func compile(name, src string) (uint32, error) {
	sh := gl.CreateShader(gl.COMPUTE_SHADER)
	csrc, free := gl.Strs(src + "\x00")
	gl.ShaderSource(sh, 1, csrc, nil)
	free()
	gl.CompileShader(sh)
	var ok int32
	gl.GetShaderiv(sh, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		log := infoLog(sh, gl.GetShaderiv, gl.GetShaderInfoLog)
		gl.DeleteShader(sh)
		return 0, fmt.Errorf("gpu: compiling %s.comp: %s\n%s", name, log, numbered(src))
	}
	p := gl.CreateProgram()
	gl.AttachShader(p, sh)
	gl.LinkProgram(p)
	gl.DeleteShader(sh)
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		log := infoLog(p, gl.GetProgramiv, gl.GetProgramInfoLog)
		gl.DeleteProgram(p)
		return 0, fmt.Errorf("gpu: linking %s.comp: %s\n%s", name, log, numbered(src))
	}
	return p, nil
}

// infoLog reads a shader's or program's info log.
func infoLog(id uint32, iv func(uint32, uint32, *int32), get func(uint32, int32, *int32, *uint8)) string {
	var n int32
	iv(id, gl.INFO_LOG_LENGTH, &n)
	if n <= 0 {
		return "(no info log)"
	}
	buf := make([]uint8, n+1)
	get(id, n, nil, &buf[0])
	return strings.TrimRight(gl.GoStr(&buf[0]), "\n")
}

// numbered prefixes each source line with its number, as the info log
// cites them.
func numbered(src string) string {
	var b strings.Builder
	for i, line := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, line)
	}
	return b.String()
}

// uniform returns the location of a uniform, -1 when the variant does not
// use it (the compiler removed it).
func (p *glProgram) uniform(name string) int32 {
	if loc, ok := p.uni[name]; ok {
		return loc
	}
	loc := gl.GetUniformLocation(p.id, gl.Str(name+"\x00"))
	p.uni[name] = loc
	return loc
}
