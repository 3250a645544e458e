//go:build purego || !amd64

package norm

// wantImpls is the pure kernel alone: this build has no other.
func wantImpls() []string { return []string{"purego"} }
