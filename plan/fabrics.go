package plan

import (
	"sync"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/whg1"
)

// cpuFabric is the exact CPU reference at acc64.
type cpuFabric struct{}

// NewCPU returns the CPU reference fabric.
func NewCPU() Fabric { return cpuFabric{} }

func (cpuFabric) Name() string                { return "cpu" }
func (cpuFabric) Profile() certify.Profile    { return certify.Acc64 }
func (cpuFabric) Identity() map[string]string { return cpuref.Identity() }

func (cpuFabric) Load(b []byte) (whg1.Decoder, *whg1.Graph, error) {
	g, _, err := certify.Load(b, certify.Acc64)
	if err != nil {
		return nil, nil, err
	}
	p, err := cpuref.Load(g)
	if err != nil {
		return nil, nil, err
	}
	return p, g, nil
}

// gpuFabric is the GL compute fabric at acc32.
type gpuFabric struct{ dev *gpu.Device }

func (gpuFabric) Name() string                  { return "gpu" }
func (gpuFabric) Profile() certify.Profile      { return certify.Acc32 }
func (f gpuFabric) Identity() map[string]string { return f.dev.Identity().Map() }
func (f gpuFabric) GL() gpu.Identity            { return f.dev.Identity() }

func (f gpuFabric) Load(b []byte) (whg1.Decoder, *whg1.Graph, error) {
	p, err := f.dev.Load(b)
	if err != nil {
		return nil, nil, err
	}
	return p, p.Graph(), nil
}

// The process has one GL context; every session shares it.
var gpuOnce struct {
	sync.Once
	f   Fabric
	err error
}

// OpenGPU opens the GL fabric once per process and returns it, or the
// reason there is none (no display, no GL 4.3, a CPU-only build).
func OpenGPU() (Fabric, error) {
	gpuOnce.Do(func() {
		dev, err := gpu.Open()
		if err != nil {
			gpuOnce.err = err
			return
		}
		gpuOnce.f = gpuFabric{dev}
	})
	return gpuOnce.f, gpuOnce.err
}

// Fabrics returns the fabrics a conformance run or benchmark uses: "cpu",
// "gpu" or "hybrid" (an error when there is no GPU), or "auto": every fabric
// present, software renderers included, with a note for each one absent
// (the hybrid is opt-in, so auto leaves it out).
func Fabrics(choice string) ([]Fabric, []string, error) {
	c, err := ParseChoice(choice)
	if err != nil {
		return nil, nil, err
	}
	switch c {
	case CPU:
		return []Fabric{NewCPU()}, nil, nil
	case GPU:
		g, err := OpenGPU()
		if err != nil {
			return nil, nil, err
		}
		return []Fabric{g}, nil, nil
	case Hybrid:
		g, err := OpenGPU()
		if err != nil {
			return nil, nil, err
		}
		return []Fabric{NewHybrid(g)}, nil, nil
	}
	fs := []Fabric{NewCPU()}
	g, err := OpenGPU()
	if err != nil {
		return fs, []string{err.Error()}, nil
	}
	return append(fs, g), nil, nil
}
