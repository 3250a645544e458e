//go:build !purego

package norm

import "golang.org/x/sys/cpu"

// wantImpls is the implementations a machine with these CPU flags must
// have in this build.
func wantImpls() []string {
	want := []string{"purego"}
	if cpu.X86.HasAVX2 {
		want = append(want, "avx2")
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL {
		want = append(want, "avx512")
	}
	return want
}
