package tinymodel

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// GGUF value types (gguf.h's gguf_type).
const (
	ggufUint8   = 0
	ggufInt8    = 1
	ggufUint16  = 2
	ggufInt16   = 3
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
	ggufUint64  = 10
	ggufInt64   = 11
	ggufFloat64 = 12
)

// ggml tensor types written here.
const (
	ggmlF32 = 0
	ggmlF16 = 1
)

const ggufMagic = 0x46554747 // "GGUF", little-endian

const ggufAlign = 32

// kv is one metadata entry, in file order. Value holds a Go value of the
// entry's type: uint8…float64, bool, string, or an array.
type kv struct {
	Key   string
	Type  uint32
	Value any
}

// array is a GGUF array: its element type and the elements.
type array struct {
	Type  uint32
	Items []any
}

// readMetadata reads the metadata of a GGUF file (the tensors are not
// needed: the vocab-only files hold none).
func readMetadata(path string) ([]kv, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &reader{r: bufio.NewReaderSize(f, 1<<20)}
	if m := r.u32(); m != ggufMagic {
		return nil, fmt.Errorf("%s is not a GGUF file", path)
	}
	if v := r.u32(); v < 2 || v > 3 {
		return nil, fmt.Errorf("%s: GGUF version %d is not supported", path, v)
	}
	r.u64() // tensor count
	n := r.u64()
	if r.err != nil {
		return nil, r.err
	}
	if n > 1<<16 {
		return nil, fmt.Errorf("%s: %d metadata entries is not plausible", path, n)
	}
	out := make([]kv, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		key := r.str()
		t := r.u32()
		out = append(out, kv{Key: key, Type: t, Value: r.value(t)})
	}
	if r.err != nil {
		return nil, fmt.Errorf("%s: %w", path, r.err)
	}
	return out, nil
}

type reader struct {
	r   *bufio.Reader
	err error
}

func (r *reader) read(n int) []byte {
	if r.err != nil {
		return make([]byte, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.err = err
	}
	return b
}

func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.read(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.read(8)) }

func (r *reader) str() string {
	n := r.u64()
	if n > 1<<24 {
		r.err = errors.New("string too long")
		return ""
	}
	return string(r.read(int(n)))
}

func (r *reader) value(t uint32) any {
	switch t {
	case ggufUint8:
		return r.read(1)[0]
	case ggufInt8:
		return int8(r.read(1)[0])
	case ggufUint16:
		return binary.LittleEndian.Uint16(r.read(2))
	case ggufInt16:
		return int16(binary.LittleEndian.Uint16(r.read(2)))
	case ggufUint32:
		return r.u32()
	case ggufInt32:
		return int32(r.u32())
	case ggufFloat32:
		return math.Float32frombits(r.u32())
	case ggufBool:
		return r.read(1)[0] != 0
	case ggufString:
		return r.str()
	case ggufUint64:
		return r.u64()
	case ggufInt64:
		return int64(r.u64())
	case ggufFloat64:
		return math.Float64frombits(r.u64())
	case ggufArray:
		et := r.u32()
		n := r.u64()
		if n > 1<<22 {
			r.err = errors.New("array too long")
			return nil
		}
		a := array{Type: et, Items: make([]any, 0, n)}
		for i := uint64(0); i < n && r.err == nil; i++ {
			a.Items = append(a.Items, r.value(et))
		}
		return a
	}
	r.err = fmt.Errorf("unknown GGUF value type %d", t)
	return nil
}

// tensor is one tensor to write: its ggml shape (ne[0] varies fastest:
// a matrix of out×in is {in, out}) and its values, row-major.
type tensor struct {
	Name  string
	Shape []uint64
	Type  uint32 // ggmlF32 or ggmlF16
	Data  []float32
}

func (t *tensor) size() uint64 {
	n := uint64(len(t.Data))
	if t.Type == ggmlF16 {
		return n * 2
	}
	return n * 4
}

// writeGGUF writes a GGUF v3 file of the metadata and tensors.
func writeGGUF(w io.Writer, meta []kv, tensors []*tensor) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	wr := &writer{w: bw}
	wr.u32(ggufMagic)
	wr.u32(3)
	wr.u64(uint64(len(tensors)))
	wr.u64(uint64(len(meta)))
	for _, e := range meta {
		wr.str(e.Key)
		wr.u32(e.Type)
		wr.value(e.Type, e.Value)
	}
	off := uint64(0)
	for _, t := range tensors {
		var n uint64 = 1
		for _, d := range t.Shape {
			n *= d
		}
		if n != uint64(len(t.Data)) {
			return fmt.Errorf("tensor %s: shape %v holds %d values, not %d", t.Name, t.Shape, n, len(t.Data))
		}
		wr.str(t.Name)
		wr.u32(uint32(len(t.Shape)))
		for _, d := range t.Shape {
			wr.u64(d)
		}
		wr.u32(t.Type)
		wr.u64(off)
		off = alignUp(off+t.size(), ggufAlign)
	}
	wr.pad()
	for _, t := range tensors {
		buf := make([]byte, 0, t.size())
		for _, v := range t.Data {
			if t.Type == ggmlF16 {
				buf = binary.LittleEndian.AppendUint16(buf, f16(v))
			} else {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			}
		}
		wr.bytes(buf)
		wr.pad()
	}
	if wr.err != nil {
		return wr.err
	}
	return bw.Flush()
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) / a * a }

type writer struct {
	w   io.Writer
	n   uint64
	err error
}

func (w *writer) bytes(b []byte) {
	if w.err != nil {
		return
	}
	m, err := w.w.Write(b)
	w.n += uint64(m)
	w.err = err
}

func (w *writer) u32(v uint32) { w.bytes(binary.LittleEndian.AppendUint32(nil, v)) }
func (w *writer) u64(v uint64) { w.bytes(binary.LittleEndian.AppendUint64(nil, v)) }
func (w *writer) str(s string) { w.u64(uint64(len(s))); w.bytes([]byte(s)) }
func (w *writer) pad()         { w.bytes(make([]byte, alignUp(w.n, ggufAlign)-w.n)) }

func (w *writer) value(t uint32, v any) {
	switch t {
	case ggufUint8:
		w.bytes([]byte{v.(uint8)})
	case ggufInt8:
		w.bytes([]byte{uint8(v.(int8))})
	case ggufUint16:
		w.bytes(binary.LittleEndian.AppendUint16(nil, v.(uint16)))
	case ggufInt16:
		w.bytes(binary.LittleEndian.AppendUint16(nil, uint16(v.(int16))))
	case ggufUint32:
		w.u32(v.(uint32))
	case ggufInt32:
		w.u32(uint32(v.(int32)))
	case ggufFloat32:
		w.u32(math.Float32bits(v.(float32)))
	case ggufBool:
		b := byte(0)
		if v.(bool) {
			b = 1
		}
		w.bytes([]byte{b})
	case ggufString:
		w.str(v.(string))
	case ggufUint64:
		w.u64(v.(uint64))
	case ggufInt64:
		w.u64(uint64(v.(int64)))
	case ggufFloat64:
		w.u64(math.Float64bits(v.(float64)))
	case ggufArray:
		a := v.(array)
		w.u32(a.Type)
		w.u64(uint64(len(a.Items)))
		for _, it := range a.Items {
			w.value(a.Type, it)
		}
	default:
		if w.err == nil {
			w.err = fmt.Errorf("unknown GGUF value type %d", t)
		}
	}
}

// f16 converts to IEEE half precision, rounding to nearest even;
// magnitudes past the half range become infinities, tiny ones zero.
func f16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		h := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent, which is right
	}
	return sign | uint16(h)
}
