//go:build !linux

package store

import "io/fs"

// sysStamp adds nothing where the build does not read the platform's stat:
// a Stamp is then the size and the modification time alone.
func sysStamp(fs.FileInfo, *Stamp) {}
