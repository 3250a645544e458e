package dcz

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// changedPair is a predecessor of n pseudo-random bytes and a successor
// with a fraction perMille/1000 of its bytes changed, at random places.
// A skewed predecessor draws its bytes as a quantized weight's are drawn,
// mostly near 0 (the sum of four uniform nibbles, centred), so literals are
// worth a Huffman table; an even one is incompressible.
func changedPair(n int, perMille int, skewed bool, seed uint64) (pred, succ []byte) {
	rng := rand.New(rand.NewPCG(seed, 1))
	pred = make([]byte, n)
	for i := range pred {
		x := rng.Uint64()
		if skewed {
			pred[i] = byte(int(x&15) + int(x>>4&15) + int(x>>8&15) + int(x>>12&15) - 30)
		} else {
			pred[i] = byte(x)
		}
	}
	succ = bytes.Clone(pred)
	for range n / 1000 * perMille {
		i := rng.IntN(n)
		succ[i] ^= byte(1 + rng.IntN(255))
	}
	return pred, succ
}

// BenchmarkPatchFrom codes successors as `waiops prior dcz` does and as
// `zstd -3 --patch-from` does, in the same run, and reports both bodies'
// sizes, their ratio and both coders' MB/s (successor bytes per second,
// the predecessor's indexing included). The sizes, in MiB, are
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
				b.Run(name, func(b *testing.B) { benchPatchFrom(b, mib<<20, perMille, kind == "skewed") })
			}
		}
	}
}

func benchPatchFrom(b *testing.B, n, perMille int, skewed bool) {
	pred, succ := changedPair(n, perMille, skewed, uint64(n+perMille))
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
		t := time.Now()
		if err := Encode(&body, pred, bytes.NewReader(succ)); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(t)
		t = time.Now()
		if o, err := exec.Command("zstd", "-q", "-f", "-3", "--patch-from="+pf, sf, "-o", zf).CombinedOutput(); err != nil {
			b.Fatalf("zstd: %v: %s", err, o)
		}
		theirs += time.Since(t)
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
}
