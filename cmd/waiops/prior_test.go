package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const priorCorpus = "../../vectors/prior/"

func TestPriorCommands(t *testing.T) {
	native, err := os.ReadFile(priorCorpus + "wsr1_three_layers.wsr1")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, form := range []string{"safetensors", "gguf", "nnc"} {
		var so, se bytes.Buffer
		if rc := dispatch([]string{"prior", "encode", priorCorpus + "wsr1_three_layers.wsr1", "--form", form}, &so, &se); rc != 0 {
			t.Fatalf("encode %s: exit %d: %s%s", form, rc, so.String(), se.String())
		}
		want, _ := os.ReadFile(priorCorpus + "wsr1_three_layers." + form)
		if !bytes.Equal(so.Bytes(), want) {
			t.Errorf("encode %s: not the committed canonical file", form)
		}
		// Written under a name without an extension, the form is told
		// from the bytes.
		path := filepath.Join(dir, "prior_"+form)
		if err := os.WriteFile(path, so.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var lo, le bytes.Buffer
		if rc := dispatch([]string{"prior", "load", path}, &lo, &le); rc != 0 || !bytes.Equal(lo.Bytes(), native) {
			t.Errorf("load %s: exit %d, native equal %t: %s", form, rc, bytes.Equal(lo.Bytes(), native), le.String())
		}
		var io, ie bytes.Buffer
		if rc := dispatch([]string{"prior", "inspect", path}, &io, &ie); rc != 0 {
			t.Fatalf("inspect %s: exit %d: %s", form, rc, ie.String())
		}
		head := fmt.Sprintf("form %s\ncanonical true\nsha256 %x\n", form, sha256.Sum256(want))
		if !strings.HasPrefix(io.String(), head) || !strings.Contains(io.String(), `meta "wai.binding" "wsr1/1"`) {
			t.Errorf("inspect %s:\n%s", form, io.String())
		}
	}
}

func TestPriorRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"prior", "load", priorCorpus + "nnc_not_read.nnc"}, "refuse nnc_not_read: nnc: a unit NNR_LPS\n"},
		{[]string{"prior", "load", "--form", "safetensors", priorCorpus + "header_truncated.safetensors"}, "refuse header_truncated: "},
		{[]string{"prior", "encode", "--form", "nnc", priorCorpus + "wsr1_bias_min.wsr1"}, "refuse value_out_of_range: "},
		{[]string{"prior", "encode", "--form", "gguf", priorCorpus + "whm1_truncated.whm1"}, "refuse native_malformed: "},
		// The spec's form names, as --form spells them in every prior command.
		{[]string{"prior", "load", "--form", "wai.prior.safetensors", priorCorpus + "header_truncated.safetensors"}, "refuse header_truncated: "},
		{[]string{"prior", "encode", "--form", "wai.prior.gguf", priorCorpus + "whm1_truncated.whm1"}, "refuse native_malformed: "},
	} {
		var so, se bytes.Buffer
		if rc := dispatch(tc.args, &so, &se); rc != 3 || so.Len() != 0 || !strings.HasPrefix(se.String(), tc.out) {
			t.Errorf("%v: exit %d, %q %q; want 3, %q on stderr", tc.args, rc, so.String(), se.String(), tc.out)
		}
	}
	var so, se bytes.Buffer
	if rc := dispatch([]string{"prior", "encode", priorCorpus + "wsr1_one_layer.wsr1"}, &so, &se); rc != 2 {
		t.Errorf("encode without --form: exit %d, want 2", rc)
	}
}
