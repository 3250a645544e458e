package vectors

import (
	"bufio"
	"bytes"
	"os"
	"testing"

	"github.com/waiops/waiops/internal/spectest"
)

// TestAllocBoundsParse: a vector line whose first input claims 2^26
// elements ([1, 8192, 8192]) over the data of a [2, 3, 5] tensor is not
// read, and reading it allocates less than 1 MiB beyond the line.
func TestAllocBoundsParse(t *testing.T) {
	fh, err := os.Open("ops/relu.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<22)
	if !sc.Scan() {
		t.Fatal("ops/relu.jsonl is empty")
	}
	in := []byte(`"shape":["2","3","5"]}],"scalars"`)
	if !bytes.Contains(sc.Bytes(), in) {
		t.Fatal("the first relu vector no longer has a [2, 3, 5] input")
	}
	line := append(bytes.Replace(sc.Bytes(), in, []byte(`"shape":["1","8192","8192"]}],"scalars"`), 1), '\n')
	var perr error
	n := spectest.Allocated(func() { _, perr = Parse(line) })
	if perr == nil {
		t.Fatal("a tensor of 30 values for [1, 8192, 8192] reads")
	}
	if n >= uint64(len(line))+spectest.MiB {
		t.Fatalf("%d bytes allocated reading a line of %d", n, len(line))
	}
	t.Logf("%v: %d bytes allocated for a line of %d", perr, n, len(line))
}
