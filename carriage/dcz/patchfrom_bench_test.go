//go:build unix

package dcz

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPatchFrom codes successors as `waiops prior dcz` does and as
// `zstd -3 --patch-from` does, in the same run, and reports both bodies'
// sizes, their ratio and both coders' MB/s: successor bytes per second of
// CPU time (user and system; ours the test process's, the predecessor's
// indexing and hashing included, zstd's its child's), which a shared,
// loaded machine disturbs less than wall time. The sizes, in MiB, are
// DCZ_BENCH_MIB's (default 1,12); docs/bench/dcz.md's table is its output
// at 1,12,64,120. It needs the zstd CLI, as the tests do.
func BenchmarkPatchFrom(b *testing.B) {
	sizes := os.Getenv("DCZ_BENCH_MIB")
	if sizes == "" {
		sizes = "1,12"
	}
	for _, f := range strings.Split(sizes, ",") {
		mib, err := strconv.Atoi(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, kind := range []string{"even", "skewed"} {
			for _, perMille := range []int{1, 50} {
				name := fmt.Sprintf("%dMiB/%s/changed=%.1f%%", mib, kind, float64(perMille)/10)
				b.Run(name, func(b *testing.B) {
					benchPatchFrom(b, func() ([]byte, []byte) {
						return changedPair(mib<<20, perMille, kind == "skewed", uint64(mib<<20+perMille))
					})
				})
			}
		}
		// The worst case: a successor that shares nothing with its
		// predecessor, every byte a literal and every anchor a miss.
		b.Run(fmt.Sprintf("%dMiB/unrelated", mib), func(b *testing.B) {
			benchPatchFrom(b, func() ([]byte, []byte) {
				pred, _ := changedPair(mib<<20, 0, false, 1)
				succ, _ := changedPair(mib<<20, 0, false, 2)
				return pred, succ
			})
		})
	}
}

func benchPatchFrom(b *testing.B, pair func() (pred, succ []byte)) {
	pred, succ := pair()
	n := len(succ)
	dir := b.TempDir()
	pf, sf, zf, of := filepath.Join(dir, "pred"), filepath.Join(dir, "succ"), filepath.Join(dir, "succ.zst"), filepath.Join(dir, "out")
	if err := os.WriteFile(pf, pred, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(sf, succ, 0o644); err != nil {
		b.Fatal(err)
	}
	var body bytes.Buffer
	var ours, theirs time.Duration
	var theirSize int64
	b.SetBytes(int64(n))
	b.ResetTimer()
	for range b.N {
		body.Reset()
		t := cpuTime(b)
		if err := Encode(&body, pred, bytes.NewReader(succ)); err != nil {
			b.Fatal(err)
		}
		ours += cpuTime(b) - t
		cmd := exec.Command("zstd", "-q", "-f", "-3", "--patch-from="+pf, sf, "-o", zf)
		if o, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("zstd: %v: %s", err, o)
		}
		theirs += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.StopTimer()
	st, err := os.Stat(zf)
	if err != nil {
		b.Fatal(err)
	}
	theirSize = st.Size()
	// Stock zstd decodes our frame.
	if err := os.WriteFile(zf, body.Bytes()[HeaderSize:], 0o644); err != nil {
		b.Fatal(err)
	}
	if o, err := exec.Command("zstd", "-q", "-f", "-d", "--patch-from="+pf, zf, "-o", of).CombinedOutput(); err != nil {
		b.Fatalf("zstd -d: %v: %s", err, o)
	}
	if got, _ := os.ReadFile(of); !bytes.Equal(got, succ) {
		b.Fatal("stock zstd's decoding of the body is not the successor")
	}
	mb := float64(n) * float64(b.N) / 1e6
	b.ReportMetric(float64(body.Len()), "B-dcz")
	b.ReportMetric(float64(theirSize+HeaderSize), "B-zstd")
	b.ReportMetric(float64(body.Len())/float64(theirSize+HeaderSize), "size-ratio")
	b.ReportMetric(mb/ours.Seconds(), "MB/s-dcz")
	b.ReportMetric(mb/theirs.Seconds(), "MB/s-zstd")
	b.ReportMetric(theirs.Seconds()/ours.Seconds(), "speed-ratio")
}

// cpuTime is the CPU time this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
