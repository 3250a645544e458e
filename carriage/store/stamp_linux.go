package store

import (
	"io/fs"
	"syscall"
	"time"
)

// sysStamp fills in the device, inode and change time Linux's stat gives.
func sysStamp(fi fs.FileInfo, st *Stamp) {
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.Device, st.Inode = uint64(s.Dev), s.Ino
		st.Change = time.Unix(s.Ctim.Sec, s.Ctim.Nsec)
	}
}
