package gpu

import (
	"slices"
	"strings"
	"testing"
)

// GL versions compare as numbers: 4.10 is after 4.3, 3.30 before it.
func TestAtLeast(t *testing.T) {
	for _, c := range []struct {
		version string
		want    bool
	}{
		{"4.3", true},
		{"4.10", true},
		{"4.6.0 NVIDIA 550.54.14", true},
		{"4.5 (Core Profile) Mesa 23.2.1", true},
		{"5.0", true},
		{"4.2.0", false},
		{"3.30", false},
		{"10.0", true},
		{"", false},
		{"4", false},
		{"four.three", false},
		{".3", false},
	} {
		if got := AtLeast(c.version, 4, 3); got != c.want {
			t.Errorf("AtLeast(%q, 4, 3) = %v, want %v", c.version, got, c.want)
		}
	}
	if ma, mi, ok := GLVersion("4.10.1 Mesa"); !ok || ma != 4 || mi != 10 {
		t.Errorf("GLVersion(4.10.1 Mesa) = %d, %d, %v", ma, mi, ok)
	}
}

// Required is one reading of WAIOPS_REQUIRE_GPU: set and neither "" nor "0".
func TestRequired(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "1": true, "yes": true} {
		t.Setenv(RequireEnv, v)
		if Required() != want {
			t.Errorf("%s=%q: Required() = %v", RequireEnv, v, !want)
		}
	}
}

// TestHardwareFirst: hardware devices keep their order ahead of the
// software ones, which keep theirs.
func TestHardwareFirst(t *testing.T) {
	got := hardwareFirst([]bool{true, false, true, false})
	if want := []int{1, 3, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("hardwareFirst = %v, want %v", got, want)
	}
}

// TestBelow43 refuses macOS's GL 4.1 and an unreadable version, naming the
// CPU fabric, and admits 4.3 and 4.6.
func TestBelow43(t *testing.T) {
	for v, refused := range map[string]bool{"4.1 Metal - 83": true, "3.3 Mesa": true, "x": true, "4.3 (Core Profile) Mesa": false, "4.6.0 NVIDIA 550": false} {
		why := below43(v)
		if (why != "") != refused || refused && !strings.Contains(why, "--fabric cpu") {
			t.Errorf("below43(%q) = %q", v, why)
		}
	}
	if needsDisplayEnv("windows") || needsDisplayEnv("darwin") || !needsDisplayEnv("linux") {
		t.Error("needsDisplayEnv")
	}
}

func TestSoftware(t *testing.T) {
	for r, want := range map[string]bool{
		"llvmpipe (LLVM 15.0.6, 256 bits)": true,
		"softpipe":                         true,
		"llvmpipe (LLVM 12.0.0, 256 bits)": true,
		"lavapipe":                         true,
		"NVIDIA H200/PCIe/SSE2":            false,
		"NVIDIA H100 80GB HBM3/PCIe/SSE2":  false,
		"Mesa DRI Intel(R) UHD Graphics":   false,
	} {
		if (Identity{Renderer: r}).Software() != want {
			t.Errorf("Identity{Renderer: %q}.Software() = %v", r, !want)
		}
	}
}
