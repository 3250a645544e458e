package main

// vpdpwssd runs one VPDPWSSD on ZMM registers: each int32 lane i of acc gains
// a[2i]*b[2i] + a[2i+1]*b[2i+1], the products and the sum wrapping as int32.
// Only the AVX-512 self-check (avx512_test.go) calls it, under bochs.
//
//go:noescape
func vpdpwssd(acc *[16]int32, a, b *[32]int16)

// vpdpwssdMasked is vpdpwssd under the write mask m: lanes whose bit is clear
// keep their old value (merge masking).
//
//go:noescape
func vpdpwssdMasked(acc *[16]int32, a, b *[32]int16, m uint16)
