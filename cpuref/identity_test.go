package cpuref

import (
	"runtime"
	"testing"
)

// TestIdentityEmulation: the identity names the architecture the code runs
// as, and an emulator only when WAIOPS_EMULATION names one.
func TestIdentityEmulation(t *testing.T) {
	t.Setenv("WAIOPS_EMULATION", "")
	id := Identity()
	if id["goarch"] != runtime.GOARCH || id["fabric"] != "cpu" {
		t.Fatalf("identity %v", id)
	}
	if _, ok := id["emulation"]; ok {
		t.Fatalf("emulation %q without WAIOPS_EMULATION", id["emulation"])
	}
	t.Setenv("WAIOPS_EMULATION", "qemu-user (qemu-s390x-static)")
	if got := Identity()["emulation"]; got != "qemu-user (qemu-s390x-static)" {
		t.Fatalf("emulation %q", got)
	}
}
