//go:build cgo

package gpu

import (
	"strings"
	"testing"

	"github.com/waiops/waiops/shaders"
	"github.com/waiops/waiops/whg1"
)

func TestIdentity(t *testing.T) {
	d := openDevice(t)
	id := d.Identity()
	if id.Renderer == "" || id.Vendor == "" || id.GLSL == "" || id.Context == "" {
		t.Fatalf("identity %+v", id)
	}
	if m := id.Map(); m["fabric"] != "gpu" || m["renderer"] != id.Renderer || m["version"] != id.Version {
		t.Fatalf("report identity %v", m)
	}
	// A 4.3 core context (or later) reports a version from 4.3 on.
	if !AtLeast(id.Version, 4, 3) {
		t.Fatalf("GL_VERSION %q is under 4.3", id.Version)
	}
	l := d.Limits()
	if int64(4)<<l.ChunkShift > l.MaxSSBOBytes || l.ChunksPerTensor<<l.ChunkShift != 1<<26 {
		t.Fatalf("limits %+v: a binding's chunk does not fit the block size", l)
	}
	t.Logf("identity %v", id)
}

// A shader that does not compile returns its info log and numbered source.
func TestCompileError(t *testing.T) {
	d := openDevice(t)
	err := d.th.call(func() error {
		_, err := compile("broken", "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { undefined_name = 1; }\n")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "   3  void main()") || !strings.Contains(err.Error(), "broken.comp") {
		t.Fatalf("err = %v", err)
	}
}

// A variant is compiled once and cached; another #define is another
// variant (docs/CONVENTIONS.md §1).
func TestVariantCache(t *testing.T) {
	d := openDevice(t)
	err := d.th.call(func() error {
		slots := []slot{{name: "in0", chunks: 1}, {name: "out", chunks: 1}}
		a, err := d.program("relu", nil, slots)
		if err != nil {
			return err
		}
		b, err := d.program("relu", nil, slots)
		if err != nil {
			return err
		}
		c, err := d.program("relu", nil, []slot{{name: "in0", chunks: 2}, {name: "out", chunks: 1}})
		if err != nil {
			return err
		}
		if a != b || a == c || a.id == c.id {
			t.Errorf("variants: %p %p %p", a, b, c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The fabric implements exactly wai-ops/1-i32 (§9.1): every operator but
// layernorm_c, l2norm, softmax, sigmoid and elu, each with its shader.
func TestOperatorSet(t *testing.T) {
	outside := map[whg1.Opcode]bool{whg1.OpLayerNormC: true, whg1.OpL2Norm: true, whg1.OpSoftmax: true, whg1.OpSigmoid: true, whg1.OpElu: true}
	for code := whg1.OpConv; code <= whg1.OpApply; code++ {
		if _, ok := preps[code]; ok == outside[code] {
			t.Errorf("%s: prepared %v, in wai-ops/1-i32 %v", code, ok, !outside[code])
		}
		if outside[code] {
			continue
		}
		if _, err := shaders.FS.Open(code.String() + ".comp"); err != nil {
			t.Errorf("%s: no shader: %v", code, err)
		}
	}
	if len(preps) != 25 {
		t.Errorf("%d operators prepared, want 25", len(preps))
	}
}
