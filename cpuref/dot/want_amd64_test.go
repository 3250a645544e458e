//go:build !purego

package dot

import "golang.org/x/sys/cpu"

// wantImpls is the implementations a machine with these CPU flags must
// have in this build.
func wantImpls() []string {
	want := []string{"purego"}
	if cpu.X86.HasAVX2 {
		want = append(want, "avx2")
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL {
		want = append(want, "avx512bw")
		if cpu.X86.HasAVX512VNNI {
			want = append(want, "avx512vnni")
		}
	}
	return want
}

// hasDQ reports AVX512DQ, which RQRowStrided's AVX-512 loop needs (vpmullq).
func hasDQ() bool { return cpu.X86.HasAVX512DQ }
