//go:build !amd64

package importer

import "testing"

// forEachKernel runs f once: off amd64 gemm is gonum's.
func forEachKernel(t *testing.T, f func(t *testing.T)) { f(t) }
