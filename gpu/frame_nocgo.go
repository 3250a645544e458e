//go:build !cgo

package gpu

import (
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Frame is a picture left on the device; a build without cgo has none.
type Frame struct{ W, H int }

// DecodeFrame reports that this build has no GPU.
func (*Program) DecodeFrame([]*tensor.T, []int64) (*Frame, error) { return nil, errNoGPU }

// DecodeFramePlanned reports that this build has no GPU.
func (*Program) DecodeFramePlanned(*whg1.Planned) (*Frame, error) { return nil, errNoGPU }

// DecodeBytesPlanned reports that this build has no GPU.
func (*Program) DecodeBytesPlanned(*whg1.Planned) (tensor.Shape, []byte, error) {
	return tensor.Shape{}, nil, errNoGPU
}

// RGB reports that this build has no GPU.
func (*Frame) RGB() ([]byte, error) { return nil, errNoGPU }

// Close does nothing.
func (*Frame) Close() error { return nil }
