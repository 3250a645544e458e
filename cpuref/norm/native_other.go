//go:build purego || !amd64

package norm

// native is empty: this build has only the pure-Go kernels.
func native() []Impl { return nil }
