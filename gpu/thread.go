//go:build cgo

package gpu

import (
	"fmt"
	"runtime"
)

// glThread is the one goroutine, locked to one OS thread, that owns the GL
// context (CONVENTIONS §6): GL calls from any other thread are undefined.
type glThread struct{ work chan func() }

// startThread locks a new goroutine to its OS thread and runs init there.
// If init fails the goroutine exits and the error is returned.
func startThread(init func() error) (*glThread, error) {
	t := &glThread{work: make(chan func())}
	errc := make(chan error)
	go func() {
		runtime.LockOSThread()
		if err := guard(init); err != nil {
			errc <- err
			return
		}
		errc <- nil
		for f := range t.work {
			f()
		}
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	return t, nil
}

// call runs f on the GL thread and waits for it.
func (t *glThread) call(f func() error) error {
	done := make(chan error)
	t.work <- func() { done <- guard(f) }
	return <-done
}

// guard turns a panic inside a GL call (go-gl panics on a few misuses) into
// an error, so that no caller of this package sees one.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gpu: %v", r)
		}
	}()
	return f()
}
