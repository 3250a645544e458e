package importer

import (
	"fmt"
	"testing"

	"golang.org/x/sys/cpu"
)

// forEachKernel runs f with each FMA kernel this CPU runs as gemm's.
func forEachKernel(t *testing.T, f func(t *testing.T)) {
	ks := []fmaKernel{kernelAVX2}
	if cpu.X86.HasAVX512F {
		ks = append(ks, kernelAVX512)
	}
	defer func(k fmaKernel) { kernel = k }(kernel)
	for _, k := range ks {
		kernel = k
		t.Run(fmt.Sprintf("nr%d", k.nr), f)
	}
}
