//go:build purego || !amd64

package dot

// wantImpls is the implementations this build must have: the purego tag
// (or an architecture with no kernels) leaves only the pure one.
func wantImpls() []string { return []string{"purego"} }

// hasDQ is false: this build has no AVX-512 kernel.
func hasDQ() bool { return false }
