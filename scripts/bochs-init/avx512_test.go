//go:build linux && amd64

package main

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"golang.org/x/sys/cpu"
)

// The self-check of scripts/bochs-avx512.sh: on a CPU (or emulator) with
// AVX-512 it runs VPDPWSSD on ZMM registers and compares with values worked
// out by hand; elsewhere it skips. Run it under bochs with
//
//	CGO_ENABLED=0 go test -c -o /tmp/init.test ./scripts/bochs-init
//	bash scripts/bochs-avx512.sh /tmp/init.test -test.v
var loops = flag.Int("loops", 0, "TestLoop: iterations of a simple loop to time (0 skips it)")

func TestFeatures(t *testing.T) {
	fmt.Printf("HasAVX512F=%v HasAVX512BW=%v HasAVX512VL=%v HasAVX512VNNI=%v\n",
		cpu.X86.HasAVX512F, cpu.X86.HasAVX512BW, cpu.X86.HasAVX512VL, cpu.X86.HasAVX512VNNI)
}

func haveVNNI(t *testing.T) {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasAVX512BW || !cpu.X86.HasAVX512VNNI {
		t.Skip("no AVX-512 F/BW/VNNI here (or the OS has not enabled ZMM state)")
	}
}

// inputs fills lane 0 with the extreme case, both pairs -32768·-32768 = 2^30
// so the pair sum 2^31 wraps, and the other lanes with small mixed signs.
func inputs() (acc [16]int32, a, b [32]int16) {
	a[0], b[0], a[1], b[1] = -32768, -32768, -32768, -32768
	acc[0] = 5
	for i := 1; i < 16; i++ {
		a[2*i], b[2*i] = int16(i), int16(-3)
		a[2*i+1], b[2*i+1] = int16(100*i), int16(7)
		acc[i] = int32(1000 * i)
	}
	return
}

func TestVPDPWSSD(t *testing.T) {
	haveVNNI(t)
	acc, a, b := inputs()
	vpdpwssd(&acc, &a, &b)
	// By hand: lane 0 is 5 + 2^30 + 2^30 = 5 + 2^31, which wraps to
	// 5 - 2^31 = -2147483643; lane i ≥ 1 is 1000i - 3i + 700i = 1697i.
	want := [16]int32{-2147483643}
	for i := 1; i < 16; i++ {
		want[i] = int32(1697 * i)
	}
	if acc != want {
		t.Fatalf("VPDPWSSD: got %v, want %v", acc, want)
	}
	fmt.Printf("VPDPWSSD ok: lane0=%d lane1=%d lane15=%d\n", acc[0], acc[1], acc[15])

	acc, a, b = inputs()
	vpdpwssdMasked(&acc, &a, &b, 0x5555)
	for i := range want {
		if i%2 == 1 {
			want[i] = int32(1000 * i) // mask bit clear: unchanged
		}
	}
	if acc != want {
		t.Fatalf("VPDPWSSD under K1=0x5555: got %v, want %v", acc, want)
	}
	fmt.Printf("VPDPWSSD masked ok: lane0=%d lane1=%d lane2=%d\n", acc[0], acc[1], acc[2])
}

// sink keeps the loop in TestLoop from being optimised away.
var sink uint64

// TestLoop times -loops iterations of a multiply-add loop, to size tests
// meant to run under an emulator. The guest clock of bochs need not match the
// host's, so the host script also prints wall time.
func TestLoop(t *testing.T) {
	if *loops <= 0 {
		t.Skip("-loops not set")
	}
	start := time.Now()
	x := uint64(1)
	for i := 0; i < *loops; i++ {
		x = x*6364136223846793005 + uint64(i)
	}
	sink = x
	fmt.Printf("loop %d iterations: guest clock %v (x=%d)\n", *loops, time.Since(start), x)
}
