package fabric

import (
	"fmt"
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

func (cpuFabric) Name() string                { return string(CPU) }
func (cpuFabric) Profile() certify.Profile    { return certify.Acc64 }
func (cpuFabric) Identity() map[string]string { return cpuref.Identity() }

func (cpuFabric) Load(b []byte) (whg1.Decoder, *whg1.Graph, error) {
	p, _, err := cpuref.LoadBytes(b)
	if err != nil {
		return nil, nil, err
	}
	return p, p.Graph(), nil
}

func (cpuFabric) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error) {
	return cpuref.LoadCertified(g, cert)
}

// gpuFabric is the GL compute fabric at acc32.
type gpuFabric struct{ dev *gpu.Device }

func (gpuFabric) Name() string                  { return string(GPU) }
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

func (f gpuFabric) LoadCertified(g *whg1.Graph, cert *certify.Certificate) (whg1.Decoder, error) {
	return f.dev.LoadCertified(g, cert)
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

// Fabrics returns the fabrics a conformance run or benchmark uses, by
// name: "cpu", "gpu" or "hybrid" (an error when there is no GPU), or "all":
// every fabric present, software renderers included, with a note for each
// one absent (the hybrid is opt-in, so all leaves it out). "auto" is no set
// of fabrics but a Session's pick per graph, so it is not a name here.
func Fabrics(name string) ([]Fabric, []string, error) {
	switch name {
	case "cpu":
		return []Fabric{NewCPU()}, nil, nil
	case "gpu", "hybrid":
		g, err := OpenGPU()
		if err != nil {
			return nil, nil, err
		}
		if name == "hybrid" {
			g = NewHybrid(g)
		}
		return []Fabric{g}, nil, nil
	case "all":
		fs := []Fabric{NewCPU()}
		g, err := OpenGPU()
		if err != nil {
			return fs, []string{err.Error()}, nil
		}
		return append(fs, g), nil, nil
	}
	return nil, nil, fmt.Errorf("fabrics %q: want all, cpu, gpu or hybrid", name)
}
