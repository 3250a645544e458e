// Package dcz codes a successor set against its predecessor as RFC 9842's
// dcz content coding (prior-carriage §16, docs/READINGS.md D-H5): a 40-byte header
// naming the dictionary by its SHA-256, then one Zstandard frame (RFC 8878)
// that uses the predecessor's bytes as a raw (prefix) dictionary.
//
// Use Encode (EncodeSum, EncodeAt) to make a coded body (the server and
// `waiops prior dcz`) and Decode (DecodeAt) to read one a server sent (the
// fetcher). The frame's window is read from its header before anything is
// decoded; the Zstandard decoding itself is github.com/klauspost/compress/zstd's.
//
// The frame is this package's own (encode.go): klauspost's encoder takes
// only power-of-two windows and finds few matches in a raw dictionary past
// its hash tables' reach, and libzstd would need cgo, while the window a
// successor needs is rarely a power of two (a 12 MiB predecessor's limit is
// 15 MiB, and 16 MiB would pass it). The coder finds matches across the
// whole window, codes sequences with the format's predefined tables, RLE
// or tables fitted to each block, and literals raw or with klauspost's
// Huffman coder (huff0), and states a window no match passes.
//
// # Readings
//
// docs/READINGS.md, section "dcz coding (carriage/dcz)",
// states the readings this package follows.
package dcz

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/waiops/waiops/refusal"
)

// The codes of READINGS D-H5 (H10: they stand for http-delivery §13's).
const (
	Malformed          refusal.Code = "dcz_malformed"
	DictionaryMismatch refusal.Code = "dcz_dictionary_mismatch"
	WindowTooLarge     refusal.Code = "dcz_window_too_large"
)

// HeaderSize is the dcz header's length: the magic and the dictionary's
// SHA-256 (RFC 9842 §4, READINGS D-H5).
const HeaderSize = 40

// Magic is the dcz header's first 8 bytes: a Zstandard skippable frame's
// magic 0x184D2A5E and its length, 32 (RFC 9842 §4).
var Magic = [8]byte{0x5E, 0x2A, 0x4D, 0x18, 0x20, 0x00, 0x00, 0x00}

// The window limit's terms (H5, RFC 9842 §5).
const (
	minWindowLimit = 8 << 20
	maxWindowLimit = 128 << 20
)

// WindowLimit is the largest frame window H5 admits for a dictionary of
// dictLen bytes: max(8 MiB, 1.25 × dictLen), capped at 128 MiB.
func WindowLimit(dictLen uint64) uint64 {
	scaled := uint64(maxWindowLimit)
	if dictLen < maxWindowLimit { // no overflow: dictLen + dictLen/4 < 160 MiB
		scaled = min(dictLen+dictLen/4, maxWindowLimit)
	}
	return max(minWindowLimit, scaled)
}

// Encode writes the dcz coding of the bytes r yields against dict to w: the
// header and one frame that uses dict as a raw dictionary, coded by this
// package (encode.go): its window the largest H5's limit admits and its
// matches reaching across the whole predecessor within it. The successor
// is read as it is coded and each block written as it is made; of the
// successor, no more than 1.25 windows and two blocks are held.
func Encode(w io.Writer, dict []byte, r io.Reader) error {
	return EncodeSum(w, dict, sha256.Sum256(dict), r)
}

// EncodeSum is Encode for a caller that knows dict's SHA-256 (a server,
// whose sets are named by it): dictSum is written as the header's hash
// unchecked, which saves hashing the predecessor on every coding.
func EncodeSum(w io.Writer, dict []byte, dictSum [32]byte, r io.Reader) error {
	if _, err := w.Write(Magic[:]); err != nil {
		return err
	}
	if _, err := w.Write(dictSum[:]); err != nil {
		return err
	}
	return frame(w, dict, r)
}

// Decode reads a dcz body from r, coded against dict, whose SHA-256 is
// dictSum (the dictionary the request named), and writes the decoded bytes
// to w. It checks, in H5's order: the header (dcz_malformed), its hash
// (dcz_dictionary_mismatch), the frame's window (dcz_window_too_large), then
// that the body is exactly one frame that decodes (dcz_malformed). An error
// of w's is returned as it is.
func Decode(r io.Reader, dict []byte, dictSum [32]byte, w io.Writer) error {
	// H5: fewer than 40 bytes, or a first 8 other than the magic.
	var head [HeaderSize]byte
	if n, err := io.ReadFull(r, head[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return refusal.New(Malformed, "the body is %d bytes, shorter than the 40-byte dcz header", n)
		}
		return err
	}
	if !bytes.Equal(head[:8], Magic[:]) {
		return refusal.New(Malformed, "the body begins % x, not the dcz magic % x", head[:8], Magic[:])
	}
	if !bytes.Equal(head[8:], dictSum[:]) {
		return refusal.New(DictionaryMismatch, "the dcz header names dictionary %x, the request named %x", head[8:], dictSum)
	}
	br := bufio.NewReaderSize(r, 1<<16)
	fr := &frameReader{r: br}
	fh, err := fr.readHeader()
	if err != nil {
		return err
	}
	limit := WindowLimit(uint64(len(dict)))
	if fh.window > limit {
		return refusal.New(WindowTooLarge, "the frame's window is %d bytes, past the limit %d for a dictionary of %d bytes", fh.window, limit, len(dict))
	}
	dec, err := zstd.NewReader(fr, zstd.WithDecoderConcurrency(1), zstd.WithDecoderDictRaw(fh.dictID, dict),
		zstd.WithDecoderMaxWindow(limit), zstd.WithDecoderMaxMemory(limit), zstd.WithDecoderLowmem(true))
	if err != nil {
		return err
	}
	defer dec.Close()
	if _, err := io.Copy(markedWriter{w}, writerOnly{dec}); err != nil {
		var we writeError
		if errors.As(err, &we) {
			return we.err
		}
		if fr.err != nil { // the frame's structure, as read
			return fr.err
		}
		return refusal.New(Malformed, "the frame does not decode: %v", err)
	}
	if fr.err != nil {
		return fr.err
	}
	if !fr.done {
		return refusal.New(Malformed, "the body ends inside the frame")
	}
	if _, err := br.ReadByte(); err == nil {
		return refusal.New(Malformed, "the body holds bytes past its one frame")
	}
	return nil
}

// writerOnly hides the decoder's WriteTo, so that io.Copy calls w's Write
// and an error of w's can be told from the decoder's.
type writerOnly struct{ r io.Reader }

func (o writerOnly) Read(b []byte) (int, error) { return o.r.Read(b) }

// markedWriter marks its writer's errors as writeError, so that io.Copy's
// error says which side failed.
type markedWriter struct{ w io.Writer }

func (m markedWriter) Write(b []byte) (int, error) {
	n, err := m.w.Write(b)
	if err != nil {
		err = writeError{err}
	}
	return n, err
}

// writeError is an error of the caller's writer.
type writeError struct{ err error }

func (e writeError) Error() string { return e.err.Error() }

// frameHeader is what Decode needs of RFC 8878 §3.1.1.1's frame header.
type frameHeader struct {
	window   uint64
	dictID   uint32
	checksum bool
}

// zstdMagic is a Zstandard frame's magic number (RFC 8878 §3.1.1).
const zstdMagic = 0xFD2FB528

// frameReader passes exactly one Zstandard frame through to the decoder,
// reading its structure as it goes (RFC 8878 §3.1.1): the header, each
// block's 3-byte header and contents up to the block marked last, then the
// 4-byte checksum where the header says there is one. After the frame it
// yields io.EOF; a body that breaks the structure sets err.
type frameReader struct {
	r       *bufio.Reader
	pending []byte // header bytes read and not yet passed on
	left    uint64 // bytes of the current block (or the checksum) still to pass
	last    bool   // the current block is the frame's last
	sum     bool   // the frame ends with a checksum
	done    bool
	err     error
}

func (f *frameReader) malformed(format string, args ...any) error {
	f.err = refusal.New(Malformed, format, args...)
	return f.err
}

// take reads n bytes of the frame and keeps them to pass on.
func (f *frameReader) take(n int) ([]byte, error) {
	start := len(f.pending)
	for len(f.pending) < start+n {
		c, err := f.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				return nil, f.malformed("the body ends inside the frame's header")
			}
			return nil, err
		}
		f.pending = append(f.pending, c)
	}
	return f.pending[start:], nil
}

// readHeader reads the frame header, RFC 8878 §3.1.1.1, whose layout that
// section fixes byte for byte: the magic (4 bytes, little-endian), the
// Frame_Header_Descriptor (bits 7-6 Frame_Content_Size_Flag, bit 5
// Single_Segment_Flag, bit 3 reserved and 0, bit 2 Content_Checksum_Flag,
// bits 1-0 Dictionary_ID_Flag), the Window_Descriptor unless the frame is a
// single segment, the Dictionary_ID (0, 1, 2 or 4 bytes) and the
// Frame_Content_Size (0, 1, 2, 4 or 8 bytes; 256 is added to a 2-byte one).
func (f *frameReader) readHeader() (frameHeader, error) {
	var h frameHeader
	b, err := f.take(5)
	if err != nil {
		return h, err
	}
	if m := binary.LittleEndian.Uint32(b); m != zstdMagic {
		return h, f.malformed("the coded body holds no Zstandard frame after the dcz header (magic %#08x)", m)
	}
	fhd := b[4]
	fcsFlag, single := fhd>>6, fhd&0x20 != 0
	if fhd&0x08 != 0 {
		return h, f.malformed("the frame header's reserved bit is set")
	}
	h.checksum = fhd&0x04 != 0
	var wd byte
	if !single {
		b, err := f.take(1)
		if err != nil {
			return h, err
		}
		wd = b[0]
	}
	didSize := [4]int{0, 1, 2, 4}[fhd&3]
	b, err = f.take(didSize)
	if err != nil {
		return h, err
	}
	for i := didSize - 1; i >= 0; i-- {
		h.dictID = h.dictID<<8 | uint32(b[i])
	}
	fcsSize := [4]int{0, 2, 4, 8}[fcsFlag]
	if fcsFlag == 0 && single {
		fcsSize = 1
	}
	b, err = f.take(fcsSize)
	if err != nil {
		return h, err
	}
	var fcs uint64
	for i := fcsSize - 1; i >= 0; i-- {
		fcs = fcs<<8 | uint64(b[i])
	}
	if fcsSize == 2 {
		fcs += 256
	}
	if single {
		// §3.1.1.1.2: a single segment's window is its content size.
		h.window = fcs
	} else {
		// §3.1.1.1.2: windowLog = 10 + Exponent; Window_Size = windowBase +
		// windowBase / 8 × Mantissa.
		base := uint64(1) << (10 + wd>>3)
		h.window = base + base/8*uint64(wd&7)
	}
	f.sum = h.checksum
	return h, nil
}

func (f *frameReader) Read(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	for len(f.pending) == 0 && f.left == 0 {
		if f.done {
			return 0, io.EOF
		}
		if f.last {
			// The last block has passed: the checksum, then the end.
			f.done = true
			if f.sum {
				f.left = 4
			}
			continue
		}
		b, err := f.take(3)
		if err != nil {
			return 0, err
		}
		// §3.1.1.2: Last_Block (bit 0), Block_Type (bits 1-2), Block_Size
		// (bits 3-23); a Raw or Compressed block carries Block_Size bytes,
		// an RLE block one.
		bh := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		f.last = bh&1 != 0
		switch size := uint64(bh >> 3); (bh >> 1) & 3 {
		case 0, 2:
			f.left = size
		case 1:
			f.left = 1
		default:
			return 0, f.malformed("a block of the reserved type 3")
		}
	}
	if len(f.pending) > 0 {
		n := copy(p, f.pending)
		f.pending = f.pending[n:]
		return n, nil
	}
	n, err := f.r.Read(p[:min(uint64(len(p)), f.left)])
	f.left -= uint64(n)
	if err == io.EOF {
		if f.left > 0 {
			return n, f.malformed("the body ends inside the frame")
		}
		err = nil
	}
	return n, err
}
