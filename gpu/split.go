package gpu

// Split is where one decode's time went on the GL fabric:
// the host's time in each kind of GL call and the device's time for the
// same calls, read from GL timer queries (GL_TIME_ELAPSED). It is taken by
// Program.DecodeSplit only; a plain Decode records nothing.
//
// Host times are wall-clock nanoseconds on the GL thread; device times are
// what the GL implementation reports for the commands between a query's
// begin and end. Under a software rasteriser such as llvmpipe both are CPU
// time. Timing uses nothing of the integer paths.
type Split struct {
	// TotalNS is the whole decode's wall time: the host's input policy and
	// conversions, every GL call below, and building the output tensors.
	TotalNS int64 `json:"total_ns"`
	// Upload: buffers created with data (the graph inputs).
	Uploads       int   `json:"uploads"`
	UploadBytes   int64 `json:"upload_bytes"`
	UploadNS      int64 `json:"upload_ns"`
	UploadGPUNS   int64 `json:"upload_gpu_ns"`
	Allocs        int   `json:"allocs"` // buffers created without data (intermediates, outputs)
	AllocNS       int64 `json:"alloc_ns"`
	Dispatches    int   `json:"dispatches"`
	DispatchNS    int64 `json:"dispatch_ns"` // the host issuing them: program, bindings, uniforms, the call
	KernelNS      int64 `json:"kernel_ns"`   // the device running them
	WaitNS        int64 `json:"wait_ns"`     // glFinish before the first readback: queued work draining
	Readbacks     int   `json:"readbacks"`
	ReadbackBytes int64 `json:"readback_bytes"`
	ReadbackNS    int64 `json:"readback_ns"`
	ReadbackGPUNS int64 `json:"readback_gpu_ns"`
	// IOElems is the elements of the graph's inputs and outputs, which
	// cross at their certified widths (UploadBytes, ReadbackBytes).
	IOElems int64 `json:"io_elems"`
	// Shaders splits Dispatches and KernelNS by shader, in first-dispatch order.
	Shaders []ShaderTime `json:"shaders"`
	// DeviceBytes is the device memory the program holds after the
	// decode: its parameters, its pool of tensor buffers and its staging
	// buffers (Program.DeviceBytes).
	DeviceBytes int64 `json:"device_bytes"`
	// TimerBits is GL_QUERY_COUNTER_BITS of GL_TIME_ELAPSED: 0 means the
	// implementation keeps no device time and every *GPUNS and KernelNS is 0.
	TimerBits int `json:"timer_bits"`
}

// ShaderTime is one shader's share of a Split.
type ShaderTime struct {
	Shader     string `json:"shader"`
	Dispatches int    `json:"dispatches"`
	KernelNS   int64  `json:"kernel_ns"`
	DispatchNS int64  `json:"dispatch_ns"`
}

// HostNS is the part of TotalNS outside every GL call timed: input
// policies, packing the inputs from int64 and widening the outputs to it,
// Go.
func (s Split) HostNS() int64 {
	return s.TotalNS - s.UploadNS - s.AllocNS - s.DispatchNS - s.WaitNS - s.ReadbackNS
}

// Features are what the GL implementation offers beside the Limits that
// Open checks: read for reports (`waiops gpu info`) and for choosing work
// shapes per device, never required.
type Features struct {
	Extensions    []string `json:"extensions"`
	MaxGroupSize  [3]int   `json:"max_group_size"`  // GL_MAX_COMPUTE_WORK_GROUP_SIZE
	MaxGroupCount [3]int   `json:"max_group_count"` // GL_MAX_COMPUTE_WORK_GROUP_COUNT
	TimerBits     int      `json:"timer_bits"`      // GL_QUERY_COUNTER_BITS of GL_TIME_ELAPSED
	// SubgroupSize is GL_SUBGROUP_SIZE_KHR (GL_KHR_shader_subgroup), 0
	// where the extension is absent.
	SubgroupSize int `json:"subgroup_size"`
	// WarpSize, WarpsPerSM and SMCount are GL_NV_shader_thread_group's, 0
	// where it is absent.
	WarpSize   int `json:"warp_size"`
	WarpsPerSM int `json:"warps_per_sm"`
	SMCount    int `json:"sm_count"`
	// GLSPIRV is whether GL_ARB_gl_spirv is present (shaders given as
	// SPIR-V), and IntegerDotProduct whether the driver accepts SPIR-V
	// with SPV_KHR_integer_dot_product (GL_SPIR_V_EXTENSIONS of
	// GL_ARB_spirv_extensions): what a SPIR-V path with dot-product
	// instructions (§6) would need.
	GLSPIRV           bool `json:"arb_gl_spirv"`
	IntegerDotProduct bool `json:"spv_khr_integer_dot_product"`
}
