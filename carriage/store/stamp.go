package store

import (
	"io/fs"
	"time"
)

// A Stamp is what a file's metadata says of its identity and content: a
// file whose Stamp is unchanged is taken to hold the bytes it held when a
// digest was last checked over it, so a server re-hashes a resource only
// when its Stamp moves. The inode and the change time come from the
// platform's stat (stamp_linux.go); the change time cannot be set back by a
// user as the modification time can, so a rewrite in place that restores
// the size and the modification time still moves it.
type Stamp struct {
	Size          int64
	Mod, Change   time.Time
	Device, Inode uint64
}

// StampOf is fi's Stamp.
func StampOf(fi fs.FileInfo) Stamp {
	st := Stamp{Size: fi.Size(), Mod: fi.ModTime()}
	sysStamp(fi, &st)
	return st
}
