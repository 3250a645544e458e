//go:build linux

// Command bochs-init is PID 1 of the initramfs that scripts/bochs-avx512.sh
// boots under bochs. It mounts /dev, /proc and /sys, points its standard
// streams at the serial console, runs /test with the arguments listed in
// /args (one per line, NUL-free), prints "bochs-exit <status>" and powers the
// machine off. The script waits for that line to know the run is over.
//
// A separate init, rather than the test binary as PID 1, because PID 1 must
// not return (the kernel panics), has no console until something opens one,
// and has to report the child's exit status somewhere the host can read.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

func main() {
	rc := run()
	fmt.Printf("\nbochs-exit %d\n", rc)
	// Let the serial line drain (tcdrain: TCSBRK with a non-zero argument)
	// before powering off, or the kernel's own last messages cut into the
	// bytes still queued, the marker among them.
	_ = unix.IoctlSetInt(1, unix.TCSBRK, 1)
	syscall.Sync()
	// Power off; if the emulator ignores it, the host script kills bochs
	// once it has read the marker line above.
	_ = syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	select {}
}

// run prepares the filesystems and the console, runs /test and returns its
// exit status, or 125 when /test could not be started at all.
func run() int {
	for _, m := range []struct{ src, dir, fs string }{
		{"devtmpfs", "/dev", "devtmpfs"},
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
		{"tmpfs", "/tmp", "tmpfs"},
	} {
		_ = os.MkdirAll(m.dir, 0o755)
		if err := syscall.Mount(m.src, m.dir, m.fs, 0, ""); err != nil {
			fmt.Fprintf(os.Stderr, "bochs-init: mount %s: %v\n", m.dir, err)
		}
	}
	// The kernel gives PID 1 /dev/console only when the initramfs has that
	// node; ours has none, so open it from devtmpfs and take it for 0, 1, 2.
	if f, err := os.OpenFile("/dev/console", os.O_RDWR, 0); err == nil {
		for fd := 0; fd < 3; fd++ {
			_ = syscall.Dup3(int(f.Fd()), fd, 0)
		}
	}
	var args []string
	if b, err := os.ReadFile("/args"); err == nil {
		s := strings.TrimSuffix(string(b), "\n")
		if s != "" {
			args = strings.Split(s, "\n")
		}
	}
	cmd := exec.Command("/test", args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/", "HOME=/", "TMPDIR=/tmp"}
	if b, err := os.ReadFile("/env"); err == nil {
		for _, kv := range strings.Split(string(b), "\n") {
			if kv != "" {
				cmd.Env = append(cmd.Env, kv)
			}
		}
	}
	err := cmd.Run()
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			fmt.Fprintf(os.Stderr, "bochs-init: /test killed by %v\n", ws.Signal())
			return 128 + int(ws.Signal())
		}
		return cmd.ProcessState.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "bochs-init: %v\n", err)
	return 125
}
