package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// usage is a process's resident memory and open file descriptors, read
// from Linux's /proc.
type usage struct {
	rss int64 // bytes
	fds int
}

func read(pid int) usage {
	var u usage
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				u.rss = kb << 10
			}
		}
	}
	if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		u.fds = len(ents)
	}
	return u
}

// sampler keeps the largest resident memory and descriptor count a process
// shows while it runs, read every 20 ms.
type sampler struct {
	mu   sync.Mutex
	peak usage
	stop chan struct{}
	done chan struct{}
}

func sample(pid int) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			u := read(pid)
			s.mu.Lock()
			s.peak.rss = max(s.peak.rss, u.rss)
			s.peak.fds = max(s.peak.fds, u.fds)
			s.mu.Unlock()
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

func (s *sampler) end() usage {
	close(s.stop)
	<-s.done
	return s.peak
}
