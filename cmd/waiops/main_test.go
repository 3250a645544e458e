package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/waiops/waiops/refusal"
)

// dispatch is dispatchCtx under a context no signal ends, as the tests
// call it.
func dispatch(args []string, stdout, stderr io.Writer) int {
	return dispatchCtx(context.Background(), args, stdout, stderr)
}

func TestParseArgsInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  []string
		out  string
	}{
		{[]string{"--out", "d", "a", "b"}, []string{"a", "b"}, "d"},
		{[]string{"a", "--out", "d", "b"}, []string{"a", "b"}, "d"},
		{[]string{"a", "b", "--out=d"}, []string{"a", "b"}, "d"},
		{[]string{"a", "--", "--out", "b"}, []string{"a", "--out", "b"}, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		out := fs.String("out", "", "")
		pos, err := parseArgs(fs, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pos, tc.pos) || *out != tc.out {
			t.Errorf("%v: got %v out=%q, want %v out=%q", tc.args, pos, *out, tc.pos, tc.out)
		}
	}
}

func TestFailPrintsRefusal(t *testing.T) {
	var se bytes.Buffer
	if rc := fail(refusal.New(refusal.TooLarge, "tensor 3 has %d elements", 1<<27), &se); rc != 3 {
		t.Fatalf("exit %d, want 3", rc)
	}
	if got, want := se.String(), "refuse too_large: tensor 3 has 134217728 elements\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	se.Reset()
	if rc := fail(os.ErrNotExist, &se); rc != 1 || se.String() != "waiops: file does not exist\n" {
		t.Fatalf("a plain error: exit %d, %q; want 1", rc, se.String())
	}
}
