//go:build !cgo

package gpu

import "github.com/waiops/waiops/tensor"

// DecodeSplit reports that this build has no GPU.
func (*Program) DecodeSplit([]*tensor.T, []int64) ([]*tensor.T, Split, error) {
	return nil, Split{}, errNoGPU
}

// Features reports that this build has no GPU.
func (*Device) Features() (Features, error) { return Features{}, errNoGPU }
