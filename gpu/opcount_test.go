//go:build cgo

package gpu

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// opTable is the committed table of integer operations per MAC (per term
// for igdn, per element for rescale) that TestOpCountTable regenerates.
const opTable = "../docs/bench/gpu-design/ops-per-mac.md"

// UpdateOpsEnv, set to 1, makes TestOpCountTable write the table instead
// of comparing it.
const updateOpsEnv = "WAIOPS_UPDATE_OPS"

// opVariant is one shader variant counted: its defines and slots, and the
// products (MACs or igdn terms) one pass of its counted region forms.
type opVariant struct {
	name, shader string
	defs         []string
	slots        []slot
	products     int
	per          string
	// loop counts the loop with the most products even where the code
	// outside every loop holds more multiplies (an epilogue unrolled per
	// output, as igdn's DIRECT form has at one position a thread).
	loop bool
}

var (
	convSlots = []slot{{name: "in0", chunks: 1}, {name: "out", chunks: 1}, {name: "prm", chunks: 1}}
	rqFloor   = []string{"RQ", "ROUND 0", "MULT 0", "SHIFT 1", "BIAS 0"}
)

// opVariants are the variants of the table: the conv of graph_synth4's and
// bmshj2018's shapes, conv_transpose's phase form four phases a work group
// (4 × 4 at stride 2; with one phase a group, as 3 × 3 at stride 2 runs,
// the taps start where the group's phase does, and spirv-opt leaves those
// loops rolled, so no count would be one pass's),
// igdn's three term variants, and rescale with and without the 32-bit rq.
// CIB is 2 (the count per MAC does not depend on it; spirv-opt runs
// faster).
func opVariants() []opVariant {
	conv := func(name string, tx, ty, px, ocb, kh, kw, s, npb int, phase []string) opVariant {
		defs := []string{fmt.Sprintf("TX %d", tx), fmt.Sprintf("TY %d", ty), fmt.Sprintf("PX %d", px), fmt.Sprintf("OCB %d", ocb), "CIB 2",
			fmt.Sprintf("KH %d", kh), fmt.Sprintf("KW %d", kw), fmt.Sprintf("SH %d", s), fmt.Sprintf("SW %d", s),
			fmt.Sprintf("NPB %d", npb), "TILED 1"}
		defs = append(append(append(defs, phase...), rqFloor...), "RQ32 1")
		return opVariant{name: name, shader: "conv", defs: defs, slots: convSlots, products: 2 * kh * kw * npb * px * ocb, per: "MAC"}
	}
	// The software rasteriser's forms (Identity.Software): untiled conv
	// and igdn's DIRECT, reading through texels as llvmpipe does.
	texels := []slot{{name: "in0", chunks: 1, texel: true}, {name: "out", chunks: 1}, {name: "prm", chunks: 1, texel: true}}
	direct := opVariant{name: "conv 3×3 untiled (software), 4 positions × 8 channels a thread", shader: "conv", slots: texels, products: 3 * 3 * 4 * 8, per: "MAC",
		defs: append(append([]string{"TX 8", "TY 8", "PX 4", "OCB 8", "CIB 1", "KH 3", "KW 3", "SH 1", "SW 1", "NPB 1", "TILED 0", "PHASE 0"}, rqFloor...), "RQ32 1")}
	igdnDirect := opVariant{name: "igdn TERM 1 DIRECT (software), 16 rows at one position a thread", shader: "igdn", slots: texels, products: 16, per: "term", loop: true,
		defs: []string{"GF 8u", "TERM 1", "TILED 0", "DIRECT 1", "PX 1", "RB 16"}}
	igdn := func(term string) opVariant {
		// C 32 in chunks of 16 rows, 4 positions a thread, 4 threads
		// sharing a chunk's rows: 2·4·4·32 terms a thread.
		return opVariant{name: "igdn " + term, shader: "igdn", slots: convSlots, products: 2 * 4 * 4 * 32, per: "term",
			defs: []string{"GF 8u", term, "TILED 1", "C 32", "PT 16", "PX 4", "RG 4", "IB 16"}}
	}
	rescale := func(rq32 string) opVariant {
		return opVariant{name: "rescale " + rq32, shader: "rescale", slots: convSlots, products: 1, per: "element",
			defs: append([]string{"RQ", "ROUND 1", "MULT 1", "SHIFT 1", "BIAS 2"}, rq32)}
	}
	phase := func(s, k int) []string {
		return []string{"PHASE 1", fmt.Sprintf("NPY %d", s), fmt.Sprintf("NPX %d", s), fmt.Sprintf("KHT %d", k), fmt.Sprintf("KWT %d", k)}
	}
	return []opVariant{
		conv("conv 3×3, tile 32×8, 8 channels", 8, 8, 4, 8, 3, 3, 1, 1, []string{"PHASE 0"}),
		conv("conv 5×5 stride 2, tile 32×8, 8 channels", 8, 8, 4, 8, 5, 5, 2, 1, []string{"PHASE 0"}),
		conv("conv_transpose 4×4 s2, four phases a group", 8, 8, 4, 2, 2, 2, 1, 4, phase(2, 4)),
		direct,
		igdn("TERM 1"), igdn("TERM 2"), igdn("TERM 0"), igdnDirect,
		rescale("RQ32 1"), rescale("RQ32 0"),
	}
}

// TestOpCountTable compiles each variant of opVariants to SPIR-V with
// Debian's glslang (glslangValidator -G), marks every loop Unroll and runs
// spirv-opt -O over it (so that the loops of constant trip count unroll,
// as a driver's compiler does), and counts the integer operations in the
// counted region: the loop, among those left, whose own blocks hold the
// most products (for conv the loop over input channels, whose trip count
// is a uniform), or the whole entry point where none is left; a loop
// nested in the region (a staging loop whose trip count depends on the
// thread, isqrt's) is counted apart. It then compares the table with
// docs/bench/gpu-design/ops-per-mac.md (WAIOPS_UPDATE_OPS=1 writes it).
// Without the tools it skips, unless Required (CI installs them through
// scripts/setup.sh).
func TestOpCountTable(t *testing.T) {
	for _, tool := range []string{"glslangValidator", "spirv-as", "spirv-opt", "spirv-dis"} {
		if _, err := exec.LookPath(tool); err != nil {
			if Required() {
				t.Fatalf("%s: %v (scripts/setup.sh installs glslang-tools and spirv-tools)", tool, err)
			}
			t.Skipf("%s: %v", tool, err)
		}
	}
	var b strings.Builder
	b.WriteString("# Integer operations per product, counted from SPIR-V\n\n")
	b.WriteString("Generated by `go test ./gpu -run TestOpCountTable` (`WAIOPS_UPDATE_OPS=1` rewrites it; the test fails while it is stale).\n")
	b.WriteString("Each variant is compiled by Debian's glslang (`glslangValidator -G`), every loop is marked Unroll and `spirv-opt -O` runs,\n")
	b.WriteString("so the loops of constant trip count unroll as a driver's compiler unrolls them. The region is the loop left that holds\n")
	b.WriteString("the products (conv: the loop over input channels, whose count is a uniform; the tile staging of constant trip count is\n")
	b.WriteString("inside it), or the whole entry point. Loops nested in the region (staging whose trip count depends on the thread, isqrt)\n")
	b.WriteString("are counted apart, per pass of their body. Integer operations: arithmetic, shifts, bitwise, comparisons, selects, min/max;\n")
	b.WriteString("not loads, stores, address chains, bitcasts or branches (loads are their own column).\n\n")
	b.WriteString("| variant | per | products a pass | int ops a pass | int ops per product | loads per product | nested loops: int ops a pass |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	dir := t.TempDir()
	for i, v := range opVariants() {
		src, err := source(v.shader, v.defs, v.slots, 25)
		if err != nil {
			t.Fatal(err)
		}
		c, err := countSPIRV(dir, fmt.Sprintf("v%d", i), src, v.loop)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %.2f | %.2f | %d |\n", v.name, v.per, v.products, c.ops, float64(c.ops)/float64(v.products),
			float64(c.loads)/float64(v.products), c.nestedOps)
	}
	got := b.String()
	if os.Getenv(updateOpsEnv) == "1" {
		if err := os.MkdirAll(filepath.Dir(opTable), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(opTable, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(opTable)
	if err != nil || string(want) != got {
		t.Fatalf("%s is stale (%v); regenerate it with %s=1 go test ./gpu -run TestOpCountTable. Now:\n%s", opTable, err, updateOpsEnv, got)
	}
}

// spirvCount is a region's counts: its integer operations and loads, and
// the integer operations of the loops nested in it.
type spirvCount struct{ ops, loads, nestedOps int }

// countSPIRV compiles src (a compute shader) and counts its region
// (countRegion).
func countSPIRV(dir, name, src string, loop bool) (spirvCount, error) {
	base := filepath.Join(dir, name)
	if err := os.WriteFile(base+".comp", []byte(src), 0o644); err != nil {
		return spirvCount{}, err
	}
	run := func(tool string, args ...string) error {
		if out, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", tool, err, out)
		}
		return nil
	}
	if err := run("glslangValidator", "-G", "--aml", "-S", "comp", base+".comp", "-o", base+".spv"); err != nil {
		return spirvCount{}, err
	}
	if err := run("spirv-dis", base+".spv", "-o", base+".s"); err != nil {
		return spirvCount{}, err
	}
	asm, err := os.ReadFile(base + ".s")
	if err != nil {
		return spirvCount{}, err
	}
	var marked bytes.Buffer
	for _, line := range strings.SplitAfter(string(asm), "\n") {
		if strings.Contains(line, "OpLoopMerge") {
			line = strings.Replace(line, " None", " Unroll", 1)
		}
		marked.WriteString(line)
	}
	if err := os.WriteFile(base+".u.s", marked.Bytes(), 0o644); err != nil {
		return spirvCount{}, err
	}
	if err := run("spirv-as", "--target-env", "spv1.0", base+".u.s", "-o", base+".u.spv"); err != nil {
		return spirvCount{}, err
	}
	if err := run("spirv-opt", "-O", base+".u.spv", "-o", base+".o.spv"); err != nil {
		return spirvCount{}, err
	}
	if err := run("spirv-dis", base+".o.spv", "-o", base+".o.s"); err != nil {
		return spirvCount{}, err
	}
	f, err := os.ReadFile(base + ".o.s")
	if err != nil {
		return spirvCount{}, err
	}
	return countRegion(string(f), loop), nil
}

// intOps are the SPIR-V opcodes counted as integer operations, and the
// GLSL.std.450 instructions among OpExtInst (min, max, abs, find MSB).
var intOps = map[string]bool{
	"OpIAdd": true, "OpISub": true, "OpIMul": true, "OpSDiv": true, "OpUDiv": true, "OpSRem": true, "OpSMod": true, "OpUMod": true,
	"OpShiftLeftLogical": true, "OpShiftRightLogical": true, "OpShiftRightArithmetic": true,
	"OpBitwiseAnd": true, "OpBitwiseOr": true, "OpBitwiseXor": true, "OpNot": true, "OpSNegate": true,
	"OpIEqual": true, "OpINotEqual": true, "OpSLessThan": true, "OpSLessThanEqual": true, "OpSGreaterThan": true,
	"OpSGreaterThanEqual": true, "OpULessThan": true, "OpULessThanEqual": true, "OpUGreaterThan": true, "OpUGreaterThanEqual": true,
	"OpSelect": true, "OpLogicalAnd": true, "OpLogicalOr": true, "OpLogicalNot": true, "OpLogicalEqual": true, "OpLogicalNotEqual": true,
	"OpBitFieldInsert": true, "OpBitFieldSExtract": true, "OpBitFieldUExtract": true, "OpExtInst": true,
	"OpSDot": true, "OpUDot": true, "OpSUDot": true,
}

// countRegion counts the region of a disassembled, optimised module (see
// TestOpCountTable): blocks are read in order, a loop spans its header to
// its merge block (structured control flow), and each block belongs to
// the innermost loop that spans it.
func countRegion(asm string, loop bool) spirvCount {
	type block struct {
		label              string
		ops, loads, muls   int
		loopMerge, inEntry bool
		merge              string
	}
	var blocks []*block
	var cur *block
	sc := bufio.NewScanner(strings.NewReader(asm))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		op := f[0]
		if len(f) >= 3 && f[1] == "=" {
			op = f[2]
		}
		switch {
		case op == "OpLabel":
			cur = &block{label: f[0]}
			blocks = append(blocks, cur)
		case op == "OpFunctionEnd":
			cur = nil
		case cur == nil:
		case op == "OpLoopMerge":
			cur.loopMerge, cur.merge = true, f[1]
		case op == "OpLoad" || op == "OpImageFetch":
			cur.loads++
		case intOps[op]:
			cur.ops++
			if op == "OpIMul" {
				cur.muls++
			}
		}
	}
	// owner[i] is the index of the header of the innermost loop spanning
	// block i, −1 for none.
	owner := make([]int, len(blocks))
	for i := range owner {
		owner[i] = -1
	}
	end := map[int]int{} // header → index of its merge block
	for h, b := range blocks {
		if !b.loopMerge {
			continue
		}
		m := h + 1
		for m < len(blocks) && blocks[m].label != b.merge {
			m++
		}
		end[h] = m
		for i := h; i < m; i++ {
			owner[i] = h // later headers are nested: they overwrite
		}
	}
	own := map[int]*spirvCount{}
	muls := map[int]int{}
	for i, b := range blocks {
		c := own[owner[i]]
		if c == nil {
			c = &spirvCount{}
			own[owner[i]] = c
		}
		c.ops += b.ops
		c.loads += b.loads
		muls[owner[i]] += b.muls
	}
	// The region: the loop with the most products, the first on a tie,
	// or the code outside every loop where it holds more (with loop, only
	// where no loop is left).
	region := -1
	for _, h := range slices.Sorted(maps.Keys(end)) {
		if muls[h] > muls[region] || loop && region < 0 {
			region = h
		}
	}
	res := *own[region]
	for h, m := range end {
		if h != region && (region < 0 || h > region && m <= end[region]) {
			res.nestedOps += own[h].ops
		}
	}
	return res
}
