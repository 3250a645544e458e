//go:build cgo

package gpu

import (
	"fmt"
	"runtime"
)

// glThread is the one goroutine, locked to one OS thread, that owns the GL
// context (docs/CONVENTIONS.md §6): GL calls from any other thread are undefined.
type glThread struct {
	work chan func()
	// alive says why the context is no longer current on the thread (nil
	// while it is). lost is the first such answer, wrapping ErrLost; both
	// are used on the GL thread only.
	alive func() error
	// after is asked after each call's work: a non-nil answer (a reset the
	// driver reports) is the loss too.
	after func() error
	lost  error
}

// startThread locks a new goroutine to its OS thread and runs init there.
// If init fails the goroutine exits and the error is returned. alive is
// asked before every later call, after once each call's work is done.
func startThread(init, alive, after func() error) (*glThread, error) {
	t := &glThread{work: make(chan func()), alive: alive, after: after}
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

// call runs f on the GL thread and waits for it. Once the context is lost
// it runs nothing and returns the loss: no GL call is made without a
// current context, which could crash inside the driver.
func (t *glThread) call(f func() error) error { return t.release(f, nil) }

// release is call for an f that lets go of GL objects: after the loss it
// runs gone instead, which forgets them without GL (they went with the
// context), and still returns the loss.
func (t *glThread) release(f func() error, gone func()) error {
	done := make(chan error)
	t.work <- func() {
		if t.lost == nil {
			if err := guard(t.alive); err != nil {
				t.lost = fmt.Errorf("%w: %v", ErrLost, err)
			}
		}
		if t.lost != nil {
			if gone != nil {
				gone()
			}
			done <- t.lost
			return
		}
		err := guard(f)
		if lerr := guard(t.after); lerr != nil {
			// The work ran on a context that is now lost: whatever it
			// answered, its results cannot be trusted.
			t.lost = fmt.Errorf("%w: %v", ErrLost, lerr)
			err = t.lost
		}
		done <- err
	}
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
