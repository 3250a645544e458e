// Package gputest is how a test outside package gpu answers a missing GL
// device: where WAIOPS_REQUIRE_GPU is set (gpu.Required; CI sets it, so
// that a broken GL path cannot pass as a skip) a missing device fails the
// test; elsewhere the test skips, or goes on without its GPU half.
package gputest

import (
	"testing"

	"github.com/waiops/waiops/gpu"
)

// Need answers err, the reason a GL device or fabric did not open (nil
// when it did): it fails tb where a GPU is required and skips it
// elsewhere.
func Need(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if gpu.Required() {
		tb.Fatalf("%s is set and there is no GL device: %v", gpu.RequireEnv, err)
	}
	tb.Skipf("no GL device: %v", err)
}

// Have reports whether a GL device opened (err nil), for a test whose GPU
// half is optional: without one it fails tb where a GPU is required, and
// elsewhere logs why and reports false.
func Have(tb testing.TB, err error) bool {
	tb.Helper()
	if err == nil {
		return true
	}
	if gpu.Required() {
		tb.Fatalf("%s is set and there is no GL device: %v", gpu.RequireEnv, err)
	}
	tb.Logf("no GL device, so no GPU half: %v", err)
	return false
}

// Device opens the GL device, as Need answers a missing one.
func Device(tb testing.TB) *gpu.Device {
	tb.Helper()
	d, err := gpu.Open()
	Need(tb, err)
	return d
}
