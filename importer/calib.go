package importer

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"codeberg.org/sbinet/npyio/npy"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/tensor"
)

// maxLatentFile caps one calibration file's size.
const maxLatentFile = 1 << 30

// Latent is one latent tensor: integers, as the analysis transform and
// rounding give them.
type Latent struct {
	Name string
	T    *tensor.T
}

// ReadLatents reads every .npy and .json file of dir, in name order. An
// .npy file holds float32 or float64 whole numbers, or an integer dtype, of
// shape [1, C, H, W] or [C, H, W]; a .json file is a §14.1 tensor.
func ReadLatents(dir string) ([]Latent, error) {
	out, err := ReadLatentsFS(os.DirFS(dir), ".")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return out, nil
}

// ReadLatentsFS is ReadLatents on the directory dir of fsys (an embedded
// example's, say).
func ReadLatentsFS(fsys fs.FS, dir string) ([]Latent, error) {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Latent
	for _, e := range ents {
		ext := strings.ToLower(path.Ext(e.Name()))
		if e.IsDir() || (ext != ".npy" && ext != ".json") {
			continue
		}
		t, err := readLatent(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		out = append(out, Latent{Name: e.Name(), T: t})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no .npy or .json latents")
	}
	return out, nil
}

// ReadLatent reads one latent file (.npy or §14.1 tensor JSON).
func ReadLatent(file string) (*tensor.T, error) {
	t, err := readLatent(os.DirFS(filepath.Dir(file)), filepath.Base(file))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return t, nil
}

// readLatent reads the latent file name of fsys, its size checked against
// the cap before it is read.
func readLatent(fsys fs.FS, name string) (*tensor.T, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxLatentFile {
		return nil, fmt.Errorf("%d bytes, over the cap of %d", st.Size(), maxLatentFile)
	}
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(path.Ext(name), ".json") {
		v, err := cjson.Unmarshal(b)
		if err != nil {
			return nil, err
		}
		return tensor.FromJSON(v)
	}
	return parseNpy(b)
}

// parseNpy reads an .npy latent. Its shape is checked against the tensor
// cap before its data is read.
func parseNpy(b []byte) (*tensor.T, error) {
	r, err := npy.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	d := r.Header.Descr
	shape := d.Shape
	if len(shape) == 4 && shape[0] == 1 {
		shape = shape[1:]
	}
	if len(shape) != 3 || d.Fortran {
		return nil, fmt.Errorf("shape %v (fortran %v); want [1, C, H, W] or [C, H, W] in C order", d.Shape, d.Fortran)
	}
	n := int64(1)
	for _, s := range shape {
		if s < 1 || s > maxEvalElems {
			return nil, fmt.Errorf("shape %v", d.Shape)
		}
		if n *= int64(s); n > maxEvalElems {
			return nil, fmt.Errorf("shape %v passes 2^26 elements", d.Shape)
		}
	}
	t := tensor.New(tensor.Shape{C: shape[0], H: shape[1], W: shape[2]})
	var vals []float64
	// The descr as the header writes it, '<f4', less its quotes and
	// byte-order mark (little-endian and byte types only).
	typ := strings.Trim(d.Type, "'\"")
	if strings.HasPrefix(typ, ">") {
		return nil, fmt.Errorf("dtype %s is big-endian; save the latents little-endian", d.Type)
	}
	typ = strings.TrimLeft(typ, "<|=")
	switch typ {
	case "f4":
		var v []float32
		err = r.Read(&v)
		for _, f := range v {
			vals = append(vals, float64(f))
		}
	case "f8":
		err = r.Read(&vals)
	case "i1", "i2", "i4", "i8", "u1", "u2":
		var v []int64
		v, err = readInts(r, typ)
		copy(t.Data, v)
		if err == nil && len(v) != len(t.Data) {
			err = fmt.Errorf("%d elements for shape %v", len(v), d.Shape)
		}
		return t, err
	default:
		return nil, fmt.Errorf("dtype %s; want float32, float64 or an integer type (little-endian)", d.Type)
	}
	if err != nil {
		return nil, err
	}
	if len(vals) != len(t.Data) {
		return nil, fmt.Errorf("%d elements for shape %v", len(vals), d.Shape)
	}
	for i, f := range vals {
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("element %d is %v, not a whole number: latents are rounded", i, f)
		}
		t.Data[i] = int64(f)
	}
	return t, nil
}

func readInts(r *npy.Reader, typ string) ([]int64, error) {
	switch typ {
	case "i1":
		return widen[int8](r)
	case "u1":
		return widen[uint8](r)
	case "i2":
		return widen[int16](r)
	case "u2":
		return widen[uint16](r)
	case "i4":
		return widen[int32](r)
	}
	var out []int64
	err := r.Read(&out)
	return out, err
}

// widen reads an integer array of element type T and widens it to int64.
func widen[T int8 | uint8 | int16 | uint16 | int32](r *npy.Reader) ([]int64, error) {
	var v []T
	if err := r.Read(&v); err != nil {
		return nil, err
	}
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out, nil
}

// floatOf is a latent as the float evaluator's input.
func floatOf(t *tensor.T) *ftensor {
	f := newF(t.Shape.C, t.Shape.H, t.Shape.W)
	for i, v := range t.Data {
		f.d[i] = float64(v)
	}
	return f
}

// calibrate runs the float evaluator on every latent and returns each
// value's calibrated range: the largest |v| seen on it.
func calibrate(net *network, latents []Latent) ([]float64, error) {
	r := make([]float64, len(net.channels))
	for _, lt := range latents {
		if _, err := net.run(floatOf(lt.T), func(v int, t *ftensor) { r[v] = max(r[v], maxAbs(t.d)) }); err != nil {
			return nil, fmt.Errorf("calibration input %s: %w", lt.Name, err)
		}
	}
	return r, nil
}

func maxAbs(d []float64) float64 {
	m := 0.0
	for _, v := range d {
		m = max(m, math.Abs(v))
	}
	return m
}
