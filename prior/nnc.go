package prior

import (
	"encoding/binary"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/strictjson"
)

// NNC unit types and payload types (§12.1, §12.2).
const (
	unitSTR = 0
	unitMPS = 1
	unitTPL = 3
	unitNDU = 5

	ptInt      = 0
	ptRawFloat = 2

	maxNNCElems = 1 << 28 // §12.1: a tensor of more elements is not read
	// writeUnaryLen is §12.3's cabac_unary_length_minus1.
	writeUnaryLen = 10
)

// unitName names the unit types the subset does not read (§12.1).
var unitName = map[uint64]string{2: "NNR_LPS", 4: "NNR_QNT", 6: "NNR_AGG"}

// payloadName names the payload types the subset does not read.
var payloadName = map[uint64]string{1: "NNR_PT_FLOAT", 3: "NNR_PT_BLOCK"}

// nncState is what the reader has met so far, for §12.2's unit order.
type nncState struct {
	f             *File
	mps, tpl, ndu bool
	names         map[string]bool
	twice         string // the first name two data units carry
	hasTwice      bool
	// budget is what the integer tensors may still decode to, in bytes.
	budget uint64
}

// readNNC reads an NNC bitstream of §12.1's subset (§12.2).
func readNNC(b []byte) (*File, error) { return ReadNNCWithin(b, math.MaxUint64) }

// ReadNNCWithin reads an NNC bitstream as Read does, with a budget for what
// its integer payloads decode to. §12.1 lets one tensor hold 2^28 elements,
// which a payload of a few MiB can encode (each zero costs a small fraction
// of a bit), so one small file may decode to 1 GiB. A caller that cannot
// hold that gives a budget: a data unit whose 4 bytes per element would take
// the tensors read so far past budget bytes is refused (nnc_not_read, what
// was met named) before its payload is decoded.
func ReadNNCWithin(b []byte, budget uint64) (*File, error) {
	if len(b) == 0 {
		return nil, refusal.New(NNCTruncated, "nnc: the bitstream is empty")
	}
	st := &nncState{f: &File{Meta: map[string]string{}}, names: map[string]bool{}, budget: budget}
	for pos := 0; pos < len(b); {
		// The unit's size: flag u(1), then u(15) or u(31), the whole unit.
		r := &bitReader{b: b[pos:]}
		flag, err := r.u(1, "nnr_unit_size_flag")
		if err != nil {
			return nil, err
		}
		size, err := r.u(15+16*int(flag), "nnr_unit_size")
		if err != nil {
			return nil, err
		}
		if size < 3 || size > uint64(len(b)-pos) {
			return nil, refusal.New(NNCTruncated, "nnc: unit at byte %d of size %d is under 3 bytes or runs past the bitstream's %d", pos, size, len(b))
		}
		// §12.2: a field past its unit's end, the 31-bit size field itself
		// included (a unit of 3 bytes has room for the 15-bit one only).
		if size*8 < r.pos {
			return nil, refusal.New(NNCTruncated, "nnc: unit at byte %d of size %d ends inside its own 31-bit size field", pos, size)
		}
		r.b = b[pos : pos+int(size)]
		if err := st.unit(r, pos == 0); err != nil {
			return nil, err
		}
		pos += int(size)
	}
	if st.hasTwice {
		return nil, refusal.New(NNCMalformed, "nnc: two data units carry %q", st.twice)
	}
	if !st.mps {
		return nil, refusal.New(NNCMalformed, "nnc: the bitstream has no NNR_MPS (§12.1's subset has one)")
	}
	sortTensors(st.f.Tensors)
	return st.f, nil
}

// unit reads one unit after its size field, checks in §12.2's order.
func (st *nncState) unit(r *bitReader, first bool) error {
	typ, err := r.u(6, "nnr_unit_type")
	if err != nil {
		return err
	}
	if _, err := r.u(1, "independently_decodable_flag"); err != nil {
		return err
	}
	pdc, err := r.u(1, "partial_data_counter_present_flag")
	if err != nil {
		return err
	}
	if first && typ != unitSTR {
		return refusal.New(NNCMalformed, "nnc: the first unit is of type %d, not NNR_STR", typ)
	}
	if pdc == 1 {
		return refusal.New(NNCNotRead, "nnc: a partial data counter")
	}
	switch typ {
	case unitSTR:
		if !first {
			return refusal.New(NNCMalformed, "nnc: an NNR_STR that is not the first unit")
		}
		if _, err := r.u(8, "general_profile_idc"); err != nil {
			return err
		}
	case unitMPS:
		if err := st.readMPS(r); err != nil {
			return err
		}
	case unitTPL:
		if err := st.readTPL(r); err != nil {
			return err
		}
	case unitNDU:
		return st.readNDU(r)
	default:
		if n, ok := unitName[typ]; ok {
			return refusal.New(NNCNotRead, "nnc: a unit %s", n)
		}
		return refusal.New(NNCNotRead, "nnc: a unit of reserved type %d", typ)
	}
	// §12.2: a unit other than a data unit ends exactly where its fields end.
	if r.pos != uint64(len(r.b))*8 {
		return refusal.New(NNCMalformed, "nnc: a unit of type %d does not end where its fields end", typ)
	}
	return nil
}

func (st *nncState) readMPS(r *bitReader) error {
	if st.mps || st.ndu {
		return refusal.New(NNCMalformed, "nnc: an NNR_MPS twice or after a data unit")
	}
	st.mps = true
	f, err := r.u(16, "the NNR_MPS flags")
	if err != nil {
		return err
	}
	// topology_carriage_flag(1), four performance-map flags(4),
	// mps_quantization_method_flags(3), mps_topology_indexed_reference_flag(1),
	// seven reserved bits(7).
	perf, qm, indexed, reserved := f>>11&0xF, f>>8&7, f>>7&1, f&0x7F
	switch {
	case reserved != 0:
		return refusal.New(NNCMalformed, "nnc: NNR_MPS reserved bits are not zero")
	case perf != 0:
		return refusal.New(NNCNotRead, "nnc: a performance map")
	case indexed != 0:
		return refusal.New(NNCNotRead, "nnc: topology elements referenced by index")
	}
	if qm&3 != 0 { // docs/READINGS.md D-F: bit 0 or bit 1 brings the two fields
		if _, err := r.u(3, "mps_qp_density"); err != nil {
			return err
		}
		if _, err := r.i(13, "mps_quantization_parameter"); err != nil {
			return err
		}
	}
	return r.align()
}

func (st *nncState) readTPL(r *bitReader) error {
	if st.tpl || !st.mps {
		return refusal.New(NNCMalformed, "nnc: an NNR_TPL twice or before the NNR_MPS")
	}
	st.tpl = true
	sf, err := r.u(8, "topology_storage_format")
	if err != nil {
		return err
	}
	if sf != 0 && sf != 3 && sf != 4 {
		return refusal.New(NNCNotRead, "nnc: topology storage format %d", sf)
	}
	cf, err := r.u(8, "topology_compression_format")
	if err != nil {
		return err
	}
	if cf != 0 {
		return refusal.New(NNCNotRead, "nnc: a compressed topology (format %d)", cf)
	}
	topo, err := r.str("the topology")
	if err != nil {
		return err
	}
	// §12.2: in storage format 0, a JSON object of string values is the
	// file's metadata (§10.1); any other topology is not.
	if sf != 0 {
		return nil
	}
	v, err := strictjson.Parse([]byte(topo), maxDepth)
	if err != nil || v.Kind != strictjson.Object {
		return nil
	}
	meta := map[string]string{}
	for _, m := range v.Members {
		if m.Value.Kind != strictjson.String {
			return nil
		}
		meta[m.Name] = m.Value.Str
	}
	st.f.Meta = meta
	return nil
}

// readNDU reads a data unit (§12.2), its fields in order, each check where
// its field is read.
func (st *nncState) readNDU(r *bitReader) error {
	if !st.mps {
		return refusal.New(NNCMalformed, "nnc: a data unit before the NNR_MPS")
	}
	st.ndu = true
	h, err := r.u(8, "the data unit's flags")
	if err != nil {
		return err
	}
	pt, multi, ddfPresent, inBand := h>>3, h>>2&1, h>>1&1, h&1
	if pt != ptInt && pt != ptRawFloat {
		if n, ok := payloadName[pt]; ok {
			return refusal.New(NNCNotRead, "nnc: the payload type %s", n)
		}
		return refusal.New(NNCNotRead, "nnc: the payload type %d", pt)
	}
	if multi == 1 {
		return refusal.New(NNCNotRead, "nnc: several topology elements in one unit")
	}
	name, err := r.str("the topology element's name")
	if err != nil {
		return err
	}
	if name == "" {
		return refusal.New(NNCMalformed, "nnc: a data unit names no topology element")
	}
	if pt == ptInt {
		dq, err := r.u(1, "dq_flag")
		if err != nil {
			return err
		}
		if dq == 1 {
			return refusal.New(NNCNotRead, "nnc: tensor %q: dependent quantisation (dq_flag 1)", name)
		}
	}
	if ddfPresent == 1 {
		ddf, err := r.u(7, "nnr_decompressed_data_format")
		if err != nil {
			return err
		}
		if pt == ptInt && ddf != 0 || pt == ptRawFloat && ddf != 1 {
			return refusal.New(NNCNotRead, "nnc: tensor %q: decompressed data format %d, not the payload's own", name, ddf)
		}
	}
	if inBand == 0 {
		return refusal.New(NNCNotRead, "nnc: tensor %q: input parameters out of band", name)
	}
	ip, err := r.u(6, "the input parameters")
	if err != nil {
		return err
	}
	dimsInBand, unaryFlag, cpt := ip>>5, ip>>4&1, ip&0xF
	if cpt != 0 {
		return refusal.New(NNCNotRead, "nnc: tensor %q: compressed parameter types %d", name, cpt)
	}
	if dimsInBand == 0 {
		return refusal.New(NNCNotRead, "nnc: tensor %q: dimensions out of band", name)
	}
	nd, err := r.ue(1, "the dimension count")
	if err != nil {
		return err
	}
	if nd < 1 || nd > 16 {
		return refusal.New(NNCMalformed, "nnc: tensor %q: %d dimensions, not 1 to 16", name, nd)
	}
	shape := make([]uint64, nd)
	for i := range shape {
		if shape[i], err = r.ue(7, "a dimension"); err != nil {
			return err
		}
	}
	n, ok := count(shape)
	if !ok || n == 0 {
		return refusal.New(NNCMalformed, "nnc: tensor %q: shape %v has no element count from 1 to 2^64 - 1", name, shape)
	}
	if n > maxNNCElems {
		return refusal.New(NNCNotRead, "nnc: tensor %q: %d elements, past 2^28", name, n)
	}
	unaryLen := 0
	if unaryFlag == 1 {
		u, err := r.u(8, "cabac_unary_length_minus1")
		if err != nil {
			return err
		}
		unaryLen = int(u) + 1
	}
	if nd > 1 {
		so, err := r.u(4, "scan_order")
		if err != nil {
			return err
		}
		if so != 0 {
			return refusal.New(NNCNotRead, "nnc: tensor %q: scan order %d (block scans)", name, so)
		}
	}
	if err := r.align(); err != nil {
		return err
	}
	payload := r.b[r.pos/8:]
	t := Tensor{Name: name, Shape: shape}
	if pt == ptRawFloat {
		if uint64(len(payload)) != 4*n {
			return refusal.New(NNCMalformed, "nnc: tensor %q: %d payload bytes for %d raw floats", name, len(payload), n)
		}
		t.DType, t.Data = "F32", payload
	} else {
		if unaryFlag == 0 {
			return refusal.New(NNCNotRead, "nnc: tensor %q: the unary length out of band", name)
		}
		// n ≤ 2^28, so 4n does not wrap.
		if 4*n > st.budget {
			return refusal.New(NNCNotRead, "nnc: tensor %q: %d elements decode to %d bytes, past the caller's budget of %d left", name, n, 4*n, st.budget)
		}
		st.budget -= 4 * n
		if t.Data, err = decodeInts(payload, unaryLen, n); err != nil {
			return err
		}
		t.DType = "I32"
	}
	if st.names[name] && !st.hasTwice {
		st.twice, st.hasTwice = name, true
	}
	st.names[name] = true
	st.f.Tensors = append(st.f.Tensors, t)
	return nil
}

// nncInt reports the dtypes §12.3 writes as NNR_PT_INT.
var nncInt = map[DType]bool{"I8": true, "I16": true, "I32": true, "I64": true}

// writeNNC writes f as §12.3 states.
func writeNNC(f *File) ([]byte, error) {
	ts, err := writable(f, func(dt DType) bool { return nncInt[dt] || dt == "F32" }, "nnc")
	if err != nil {
		return nil, err
	}
	out, err := appendUnit(nil, unitSTR, []byte{0})
	if err != nil {
		return nil, err
	}
	var mps bitWriter
	mps.u(1, uint64(b2i(len(f.Meta) > 0)))
	mps.u(15, 0)
	mps.align()
	if out, err = appendUnit(out, unitMPS, mps.b); err != nil {
		return nil, err
	}
	if len(f.Meta) > 0 {
		if out, err = appendUnit(out, unitTPL, append([]byte{0, 0}, append(appendJSONMeta(nil, f.Meta), 0)...)); err != nil {
			return nil, err
		}
	}
	for _, t := range ts {
		body, err := nduBody(&t)
		if err != nil {
			return nil, err
		}
		if out, err = appendUnit(out, unitNDU, body); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nduBody writes one data unit's fields after its type byte (§12.3).
func nduBody(t *Tensor) ([]byte, error) {
	if strings.IndexByte(t.Name, 0) >= 0 || !utf8.ValidString(t.Name) {
		return nil, refusal.New(TensorMalformed, "nnc: tensor name %q is no NNC string", t.Name)
	}
	n, _ := count(t.Shape)
	if len(t.Shape) < 1 || len(t.Shape) > 16 || n == 0 || n > maxNNCElems {
		return nil, refusal.New(TensorMalformed, "nnc: tensor %q of shape %v has no NNC form", t.Name, t.Shape)
	}
	for _, d := range t.Shape {
		// D-F: a dimension whose order-7 code passes 40 bits.
		if d >= 1<<24-128 {
			return nil, refusal.New(ValueOutOfRange, "nnc: tensor %q: dimension %d has no 40-bit exponential-Golomb code", t.Name, d)
		}
	}
	var w bitWriter
	pt := uint64(ptRawFloat)
	if nncInt[t.DType] {
		pt = ptInt
	}
	w.u(5, pt)
	w.u(3, 1) // one element, no decompressed data format, input parameters in band
	w.str(t.Name)
	if pt == ptInt {
		w.u(1, 0) // dq_flag
	}
	w.u(6, 0b110000) // dimensions and unary length in band, compressed_parameter_types 0
	w.ue(1, uint64(len(t.Shape)))
	for _, d := range t.Shape {
		w.ue(7, d)
	}
	w.u(8, writeUnaryLen)
	if len(t.Shape) > 1 {
		w.u(4, 0) // scan_order
	}
	w.align()
	if pt == ptRawFloat {
		return append(w.b, t.Data...), nil
	}
	vals := make([]int64, n)
	for i := range vals {
		v := value(t, uint64(i))
		// §12.3: past ±(2^31 − 1) has no NNR_PT_INT form.
		if v > 1<<31-1 || v < -(1<<31-1) {
			return nil, refusal.New(ValueOutOfRange, "nnc: tensor %q: element %d is %d, past ±(2^31 - 1)", t.Name, i, v)
		}
		vals[i] = v
	}
	p, err := encodeInts(vals, writeUnaryLen+1)
	if err != nil {
		return nil, err
	}
	return append(w.b, p...), nil
}

// appendUnit frames body as a unit of typ: the 15-bit size when the whole
// unit is under 32 768 bytes, else the 31-bit size (§12.3);
// independently_decodable_flag 1, no partial data counter.
func appendUnit(out []byte, typ int, body []byte) ([]byte, error) {
	size := uint64(3 + len(body))
	if size < 1<<15 {
		out = binary.BigEndian.AppendUint16(out, uint16(size))
	} else {
		size += 2
		if size > 1<<31-1 {
			return nil, refusal.New(TensorMalformed, "nnc: a unit of %d bytes passes the 31-bit size", size)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(size)|1<<31)
	}
	out = append(out, byte(typ<<2|1<<1))
	return append(out, body...), nil
}
