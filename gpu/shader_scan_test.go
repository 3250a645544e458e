package gpu

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/waiops/waiops/shaders"
)

// The scan of the embedded shader sources lives here, beside the code that
// compiles them, so that package shaders holds GLSL alone.

// floatish matches every GLSL floating-point type, the built-ins that take
// or return one, and a floating-point literal (§6: no floating-point
// arithmetic for any value of a graph operator).
var floatish = regexp.MustCompile(`\b(float|double|half|[bdiu]?vec[234]|d?mat[234](x[234])?|sampler\w*|image\w*)\b` +
	`|\b(sqrt|inversesqrt|pow|exp2?|log2?|sin|cos|tan|fract|mix|step|smoothstep|floor|ceil|round|roundEven|trunc|fma|frexp|ldexp|intBitsToFloat|uintBitsToFloat|floatBitsToU?[Ii]nt|pack\w+|unpack\w+)\s*\(` +
	`|\b\d+\.\d*|\.\d+\b|\b\d+[eE][-+]?\d+\b|\b\d+\.?[fF]\b|\b\d+(lf|LF)\b`)

// stripComments drops // comments, which may spell out the spec's formulas.
func stripComments(src string) string {
	var b strings.Builder
	for _, line := range strings.Split(src, "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestNoFloatingPoint(t *testing.T) {
	n := 0
	err := fs.WalkDir(shaders.FS, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := shaders.FS.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for i, line := range strings.Split(stripComments(string(b)), "\n") {
			if m := floatish.FindString(line); m != "" {
				t.Errorf("%s:%d: %q is floating point: %s", path, i+1, m, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 28 {
		t.Fatalf("scanned %d files; want common.glsl, 25 operator shaders, rgba8 and wire", n)
	}
}

// The scan itself catches each kind of floating-point use.
func TestScanCatches(t *testing.T) {
	for _, bad := range []string{"float x;", "vec4 v;", "dvec2 d;", "mat3 m;", "int y = int(1.5);", "x = sqrt(y);", "a = 2e3;", "b = 1.0f;", "double z;", "uvec3 u;", "c = .5;"} {
		if !floatish.MatchString(stripComments(bad)) {
			t.Errorf("the scan misses %q", bad)
		}
	}
	for _, ok := range []string{"int x = 1;", "uint v = 0xFFFFu;", "w64 p = w_mul(a, b);", "// float in a comment", "int asr(int x, uint s)"} {
		if floatish.MatchString(stripComments(ok)) {
			t.Errorf("the scan flags %q", ok)
		}
	}
}
