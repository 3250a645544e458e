//go:build !cgo

package gpu

import (
	"errors"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// errNoGPU is what every entry point of a build without cgo returns.
var errNoGPU = errors.New("gpu: no GPU in this build (built without cgo)")

// Device is the GL device; a build without cgo has none.
type Device struct{}

// Program is a graph loaded on the device; a build without cgo has none.
type Program struct{}

// Open reports that this build has no GPU.
func Open() (*Device, error) { return nil, errNoGPU }

// Identity is empty: a build without cgo has no GL implementation.
func (*Device) Identity() Identity { return Identity{} }

// Load reports that this build has no GPU.
func (*Device) Load([]byte) (*Program, error) { return nil, errNoGPU }

// LoadCertified reports that this build has no GPU.
func (*Device) LoadCertified(*whg1.Graph, *certify.Certificate) (*Program, error) {
	return nil, errNoGPU
}

// Decode reports that this build has no GPU.
func (*Program) Decode([]*tensor.T, []int64) ([]*tensor.T, error) { return nil, errNoGPU }

// DecodePlanned reports that this build has no GPU.
func (*Program) DecodePlanned(*whg1.Planned) ([]*tensor.T, error) { return nil, errNoGPU }

// Graph is nil: a build without cgo loads none.
func (*Program) Graph() *whg1.Graph { return nil }

// DeviceBytes is 0: without cgo no program holds device memory.
func (*Program) DeviceBytes() int64 { return 0 }

// Close does nothing.
func (*Program) Close() error { return nil }
