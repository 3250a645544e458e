//go:build cgo

package gpu

import (
	"errors"
	"slices"
	"time"

	"github.com/go-gl/gl/v4.3-core/gl"

	"github.com/waiops/waiops/tensor"
)

// recording is the recorder of the DecodeSplit in progress, nil otherwise:
// buffer.go's alloc, dispatch and download test it, so a plain decode pays
// one nil check per call. It is read and written on the GL thread only,
// and the process has one GL context (Open).
var recording *recorder

type phase int

const (
	phaseUpload phase = iota
	phaseAlloc
	phaseDispatch
	phaseReadback
)

// span is one timed GL call: its host wall time and, for the phases that
// make device work, the timer query around it.
type span struct {
	ph     phase
	shader string
	bytes  int64
	hostNS int64
	query  uint32
}

type recorder struct {
	spans     []span
	waitNS    int64
	timerBits int
}

// begin starts a span of phase ph; the function it returns ends it. Spans
// never nest (no GL call timed here calls another), as GL_TIME_ELAPSED
// queries must not.
func (r *recorder) begin(ph phase, shader string, bytes int64) func() {
	s := span{ph: ph, shader: shader, bytes: bytes}
	if r.timerBits > 0 && ph != phaseAlloc {
		gl.GenQueries(1, &s.query)
		gl.BeginQuery(gl.TIME_ELAPSED, s.query)
	}
	t0 := time.Now()
	return func() {
		s.hostNS = time.Since(t0).Nanoseconds()
		if s.query != 0 {
			gl.EndQuery(gl.TIME_ELAPSED)
		}
		r.spans = append(r.spans, s)
	}
}

// allocPhase is an alloc's phase: an upload when it copies data in.
func allocPhase(data []int32) phase {
	if data != nil {
		return phaseUpload
	}
	return phaseAlloc
}

// wait drains the queued work before a readback (glFinish), so that the
// readback's time is the copy alone and not the kernels still running.
func (r *recorder) wait() {
	t0 := time.Now()
	gl.Finish()
	r.waitNS += time.Since(t0).Nanoseconds()
}

// resolve reads every query (the work is finished: a readback waited for
// it) and adds the spans up.
func (r *recorder) resolve() Split {
	s := Split{WaitNS: r.waitNS, TimerBits: r.timerBits}
	byShader := map[string]int{}
	for _, sp := range r.spans {
		var dev uint64
		if sp.query != 0 {
			gl.GetQueryObjectui64v(sp.query, gl.QUERY_RESULT, &dev)
			gl.DeleteQueries(1, &sp.query)
		}
		switch sp.ph {
		case phaseUpload:
			s.Uploads++
			s.UploadBytes += sp.bytes
			s.UploadNS += sp.hostNS
			s.UploadGPUNS += int64(dev)
		case phaseAlloc:
			s.Allocs++
			s.AllocNS += sp.hostNS
		case phaseDispatch:
			s.Dispatches++
			s.DispatchNS += sp.hostNS
			s.KernelNS += int64(dev)
			i, ok := byShader[sp.shader]
			if !ok {
				i = len(s.Shaders)
				byShader[sp.shader] = i
				s.Shaders = append(s.Shaders, ShaderTime{Shader: sp.shader})
			}
			s.Shaders[i].Dispatches++
			s.Shaders[i].KernelNS += int64(dev)
			s.Shaders[i].DispatchNS += sp.hostNS
		case phaseReadback:
			s.Readbacks++
			s.ReadbackBytes += sp.bytes
			s.ReadbackNS += sp.hostNS
			s.ReadbackGPUNS += int64(dev)
		}
	}
	return s
}

// DecodeSplit is Decode with its time split by kind of GL call (Split):
// every dispatch, upload and readback is bracketed by a GL_TIME_ELAPSED
// query, and the queued work is drained (glFinish) before the readbacks.
// The draining and the queries change the timing a little, so benchmarks
// time plain decodes and take one DecodeSplit beside them. Decodes of other
// Programs running at the same time would be counted in, so call it alone.
func (p *Program) DecodeSplit(inputs []*tensor.T, scalars []int64) ([]*tensor.T, Split, error) {
	rec := &recorder{}
	err := p.d.th.call(func() error {
		if recording != nil {
			return errors.New("gpu: a DecodeSplit is already in progress")
		}
		var bits int32
		gl.GetQueryiv(gl.TIME_ELAPSED, gl.QUERY_COUNTER_BITS, &bits)
		rec.timerBits = int(bits)
		recording = rec
		return glError("reading the timer's bits")
	})
	if err != nil {
		return nil, Split{}, err
	}
	t0 := time.Now()
	outs, err := p.Decode(inputs, scalars)
	total := time.Since(t0).Nanoseconds()
	var s Split
	if rerr := p.d.th.call(func() error {
		recording = nil
		s = rec.resolve()
		return glError("reading the timer queries")
	}); err == nil {
		err = rerr
	}
	s.TotalNS = total
	for _, t := range inputs {
		s.IOElems += int64(len(t.Data))
	}
	for _, t := range outs {
		s.IOElems += int64(len(t.Data))
	}
	s.DeviceBytes = p.DeviceBytes()
	return outs, s, err
}

// Features reads the implementation's extensions and the limits that Open
// does not check.
func (d *Device) Features() (Features, error) {
	var f Features
	err := d.th.call(func() error {
		f.Extensions = glExtensions()
		slices.Sort(f.Extensions)
		for i := range 3 {
			var c, s int32
			gl.GetIntegeri_v(gl.MAX_COMPUTE_WORK_GROUP_COUNT, uint32(i), &c)
			gl.GetIntegeri_v(gl.MAX_COMPUTE_WORK_GROUP_SIZE, uint32(i), &s)
			f.MaxGroupCount[i], f.MaxGroupSize[i] = int(c), int(s)
		}
		var bits int32
		gl.GetQueryiv(gl.TIME_ELAPSED, gl.QUERY_COUNTER_BITS, &bits)
		f.TimerBits = int(bits)
		has := func(e string) bool { _, ok := slices.BinarySearch(f.Extensions, e); return ok }
		if has("GL_KHR_shader_subgroup") {
			f.SubgroupSize = getInt(glSubgroupSizeKHR)
		}
		if has("GL_NV_shader_thread_group") {
			f.WarpSize, f.WarpsPerSM, f.SMCount = getInt(glWarpSizeNV), getInt(glWarpsPerSMNV), getInt(glSMCountNV)
		}
		f.GLSPIRV = has("GL_ARB_gl_spirv")
		if has("GL_ARB_spirv_extensions") {
			for i := range getInt(glNumSPIRVExtensions) {
				if gl.GoStr(gl.GetStringi(glSPIRVExtensions, uint32(i))) == "SPV_KHR_integer_dot_product" {
					f.IntegerDotProduct = true
				}
			}
		}
		return glError("reading the features")
	})
	return f, err
}

// Enums of the extensions Features reads, which the 4.3 core bindings do
// not name (GL_KHR_shader_subgroup, GL_NV_shader_thread_group,
// GL_ARB_spirv_extensions).
const (
	glSPIRVExtensions    = 0x9553
	glNumSPIRVExtensions = 0x9554
	glSubgroupSizeKHR    = 0x9532
	glWarpSizeNV         = 0x9339
	glWarpsPerSMNV       = 0x933A
	glSMCountNV          = 0x933B
)

func getInt(pname uint32) int {
	var v int32
	gl.GetIntegerv(pname, &v)
	return int(v)
}
