//go:build purego || !amd64

package dot

// native is empty: this build has only the pure-Go kernel.
func native() []Impl { return nil }
