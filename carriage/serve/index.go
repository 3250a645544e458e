package serve

import (
	"encoding/hex"
	"io"
	"os"
	"sync"
	"time"

	"github.com/waiops/waiops/carriage"
	"github.com/waiops/waiops/carriage/store"
)

// maxListing bounds the files read as candidate listings while scanning.
var maxListing int64 = 16 << 20

// racyWindow is how long after a scan began a change to the store's
// directory may still show the modification time the scan saw: the
// coarsest file-time granularity in use (2 s, FAT's; Linux's own clock for
// file times advances by the tick). While the directory's time is within
// it of the scan's start the scan is racy and is made again at the next
// request, as git treats an index entry it calls racily clean.
var racyWindow = 2 * time.Second

// An entry is what a scan learned of one resource of the store.
type entry struct {
	stamp store.Stamp
	// ok: the bytes' SHA-256 is the name (checked when the stamp last
	// moved); an entry that is not ok is never served nor coded against.
	ok bool
	// sealedKept: a sealed set whose header's statement withholds it
	// (§18.2, §18.1), or a listing too large for the scan to read.
	sealedKept bool
	// files and usage: a listing's files, and the digest of the file its
	// top-level wai-usage.json names where it names one (§18.1).
	files [][32]byte
	usage *[32]byte
	// free: a usage statement that reads and says redistribute true.
	free bool
}

// index is what the server knows of its store. It is brought up to date
// before each request is answered (refresh), so a statement renamed into
// the store is in force for every request that begins after the rename.
type index struct {
	store store.Store

	mu       sync.Mutex
	dir      store.Stamp // the directory's stamp (times, inode) the last scan saw
	began    time.Time   // when the last scan began
	scanned  bool
	ents     map[[32]byte]*entry
	withheld map[[32]byte]bool
	hashed   int // resources hashed since the index was made (tests read it)
}

func newIndex(s store.Store) *index {
	return &index{store: s, ents: map[[32]byte]*entry{}, withheld: map[[32]byte]bool{}}
}

// lookup is d's entry, after a refresh, with whether d is withheld.
func (x *index) lookup(d [32]byte, force bool) (e entry, withheld, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.refresh(force)
	p, ok := x.ents[d]
	if !ok || !p.ok {
		return entry{}, false, false
	}
	return *p, x.withheld[d], true
}

// open opens d when the index holds it verified and the file opened has
// the stamp the index verified (store.Open: a regular file, no symlink). A
// file changed since the last scan forces a scan, once, which re-hashes it.
func (x *index) open(d [32]byte) (*os.File, os.FileInfo, bool) {
	for _, force := range []bool{false, true} {
		e, _, ok := x.lookup(d, force)
		if !ok {
			return nil, nil, false
		}
		f, fi, err := x.store.Open(d)
		if err != nil {
			return nil, nil, false
		}
		if store.StampOf(fi) == e.stamp {
			return f, fi, true
		}
		f.Close()
	}
	return nil, nil, false
}

// refresh scans the store again when its directory changed since the last
// scan (its modification time, or its change time, which no user can set
// back), when that scan was racy, or when force is set. A scan hashes only
// the resources whose stamp moved. x.mu is held.
func (x *index) refresh(force bool) {
	fi, err := os.Stat(string(x.store))
	if err != nil {
		// No store: nothing is held, nothing served.
		clear(x.ents)
		clear(x.withheld)
		x.scanned = false
		return
	}
	dir := store.StampOf(fi)
	if x.scanned && !force && dir == x.dir && !x.racy() {
		return
	}
	began := time.Now()
	ents, err := os.ReadDir(string(x.store))
	if err != nil {
		clear(x.ents)
		clear(x.withheld)
		x.scanned = false
		return
	}
	seen := map[[32]byte]bool{}
	for _, de := range ents {
		d, ok := digestName(de.Name())
		if !ok || !de.Type().IsRegular() {
			continue // a symlink, directory or other: never held (store.Open)
		}
		li, err := de.Info() // Lstat's
		if err != nil {
			continue
		}
		seen[d] = true
		if old, ok := x.ents[d]; ok && old.stamp == store.StampOf(li) {
			continue
		}
		x.ents[d] = x.check(d)
	}
	for d := range x.ents {
		if !seen[d] {
			delete(x.ents, d)
		}
	}
	x.withheld = x.keep()
	x.dir, x.began, x.scanned = dir, began, true
}

// racy reports whether the last scan began within racyWindow of the
// directory's last change (its modification or change time, whichever is
// later): a change made in the same tick as the scan read the directory
// would leave both times as the scan saw them. x.mu is held.
func (x *index) racy() bool {
	last := x.dir.Mod
	if x.dir.Change.After(last) {
		last = x.dir.Change
	}
	return !last.Before(x.began.Add(-racyWindow))
}

// digestName reads a store entry's name: 64 lower-case hex digits.
func digestName(name string) ([32]byte, bool) {
	var d [32]byte
	if len(name) != 64 {
		return d, false
	}
	for i := range len(name) {
		if c := name[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return d, false
		}
	}
	_, err := hex.Decode(d[:], []byte(name))
	return d, err == nil
}

// check hashes resource d and reads what it binds: a sealed set's header
// statement, a listing's files and statement, a statement's redistribute.
func (x *index) check(d [32]byte) *entry {
	f, fi, err := x.store.Open(d)
	if err != nil {
		return &entry{}
	}
	defer f.Close()
	e := &entry{stamp: store.StampOf(fi)}
	x.hashed++
	if ok, err := store.Verify(f, d); err != nil || !ok {
		return e
	}
	e.ok = true
	size := fi.Size()
	// A sealed set's header says what it binds (§18.2); ReadHeader refuses
	// anything else at its magic. A statement that does not read leaves the
	// set held by no sink (§18.1): it is withheld too.
	if _, err := f.Seek(0, io.SeekStart); err == nil {
		if h, err := carriage.ReadHeader(f, size); err == nil {
			if len(h.Usage) > 0 {
				u, err := carriage.ReadUsage(h.Usage)
				e.sealedKept = err != nil || !u.Redistribute
			}
			return e
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return e
	}
	if size > maxListing {
		// Too large to read as a listing: one that begins as a listing
		// does (READINGS D-H1) may bind a statement, so it is withheld.
		var magic [10]byte
		_, err := io.ReadFull(f, magic[:])
		e.sealedKept = err == nil && string(magic[:]) == `{"files":[`
		return e
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return e
	}
	if size <= carriage.MaxUsage {
		if u, err := carriage.ReadUsage(b); err == nil {
			e.free = u.Redistribute
			return e
		}
	}
	// A listing (READINGS D-H1) binds the statement at its top-level path
	// wai-usage.json (§18.1).
	if l, err := carriage.ReadListing(b); err == nil {
		for _, lf := range l.Files {
			e.files = append(e.files, lf.SHA256)
			if lf.Path == carriage.UsagePath {
				u := lf.SHA256
				e.usage = &u
			}
		}
	}
	return e
}

// keep is every resource a bound statement keeps from others (§18.1): a
// sealed set whose statement says so, and a listing, with every file it
// names, whose statement is not held here, does not read or says
// redistribute false. x.mu is held.
func (x *index) keep() map[[32]byte]bool {
	out := map[[32]byte]bool{}
	for d, e := range x.ents {
		if !e.ok {
			continue
		}
		if e.sealedKept {
			out[d] = true
		}
		if e.usage == nil {
			continue
		}
		if u, ok := x.ents[*e.usage]; ok && u.ok && u.free {
			continue
		}
		out[d] = true
		for _, f := range e.files {
			out[f] = true
		}
	}
	return out
}
