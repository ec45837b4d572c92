package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// parquetFooterMax bounds the metadata a preview reads from a Parquet footer.
const parquetFooterMax = 16 << 20

// peekParquet previews a Parquet file from its footer alone: the columns,
// their types and the exact row count. Rows are compressed column chunks
// that code reads (pandas with pyarrow); the preview shows none.
func peekParquet(p *Preview, f file) {
	p.Format = Parquet
	p.Header = true
	p.RowCountKind = CountExact
	p.Note = "A Parquet file: its columns and row count come from the file's footer; the rows themselves are read by code (pandas needs pyarrow for Parquet; if the sandbox reports it missing, save the data as CSV)."
	if p.Size < 12 {
		p.Problems = append(p.Problems, "The Parquet file is cut short (smaller than its header and footer). Export it again.")
		return
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], p.Size-8); err != nil || string(tail[4:]) != "PAR1" {
		p.Problems = append(p.Problems, "The Parquet file has no footer: it was cut short while being written. Export it again.")
		p.ReadBytes = 8
		return
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n <= 0 || n > p.Size-12 || n > parquetFooterMax {
		p.Problems = append(p.Problems, fmt.Sprintf("The Parquet footer is %d bytes, which this preview does not read; code can still read the file.", n))
		p.ReadBytes = 8
		return
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, p.Size-8-n); err != nil {
		p.Problems = append(p.Problems, "The Parquet footer cannot be read: "+err.Error()+".")
		return
	}
	p.ReadBytes = n + 8 + 4
	meta, err := readParquetMeta(buf)
	if err != nil {
		p.Problems = append(p.Problems, "The Parquet footer is damaged ("+err.Error()+"). Export the file again.")
		return
	}
	p.RowCount = meta.rows
	for _, c := range meta.columns {
		p.Columns = append(p.Columns, Column{Name: c.name, Type: c.typ})
		if len(p.Columns) == maxColumns {
			p.Note = joinNote(p.Note, fmt.Sprintf("The file has %d columns; the preview lists the first %d.", len(meta.columns), maxColumns))
			break
		}
	}
}

type parquetColumn struct {
	name string
	typ  Type
}

type parquetMeta struct {
	rows    int64
	columns []parquetColumn
}

type schemaElement struct {
	name          string
	physical      int32 // -1 for groups
	converted     int32 // -1 when absent
	logical       int16 // the set field of the LogicalType union, 0 when absent
	numChildren   int32
	hasChildCount bool
}

// readParquetMeta decodes the parts of a FileMetaData (Thrift compact
// protocol) a preview needs: the schema and the row count.
func readParquetMeta(b []byte) (parquetMeta, error) {
	r := &thriftReader{b: b}
	var m parquetMeta
	var schema []schemaElement
	err := r.readStruct(func(id int16, typ byte) error {
		switch {
		case id == 2 && typ == tList:
			et, n, err := r.listHeader()
			if err != nil {
				return err
			}
			if et != tStruct {
				return errors.New("schema is not a list of structs")
			}
			for i := 0; i < n; i++ {
				el, err := r.schemaElement()
				if err != nil {
					return err
				}
				schema = append(schema, el)
			}
			return nil
		case id == 3 && typ == tI64:
			v, err := r.varint()
			m.rows = v
			return err
		}
		return r.skip(typ)
	})
	if err != nil {
		return m, err
	}
	if len(schema) == 0 {
		return m, errors.New("it has no schema")
	}
	m.columns, err = leafColumns(schema)
	return m, err
}

// schemaElement reads one SchemaElement: its name, physical, converted
// and logical types, and its number of children.
func (r *thriftReader) schemaElement() (schemaElement, error) {
	el := schemaElement{physical: -1, converted: -1}
	err := r.readStruct(func(id int16, typ byte) error {
		switch {
		case id == 1 && typ == tI32:
			v, err := r.varint()
			el.physical = int32(v)
			return err
		case id == 4 && typ == tBinary:
			s, err := r.binary()
			el.name = string(s)
			return err
		case id == 5 && typ == tI32:
			v, err := r.varint()
			el.numChildren, el.hasChildCount = int32(v), true
			return err
		case id == 6 && typ == tI32:
			v, err := r.varint()
			el.converted = int32(v)
			return err
		case id == 10 && typ == tStruct:
			return r.readStruct(func(id int16, typ byte) error {
				el.logical = id
				return r.skip(typ)
			})
		}
		return r.skip(typ)
	})
	return el, err
}

// leafColumns are the schema's leaves, named by their path ("a.b"):
// schema[0] is the root; the rest is a depth-first tree.
func leafColumns(schema []schemaElement) ([]parquetColumn, error) {
	var cols []parquetColumn
	i := 1
	var walk func(prefix string, children int32) error
	walk = func(prefix string, children int32) error {
		for c := int32(0); c < children; c++ {
			if i >= len(schema) {
				return errors.New("the schema tree is cut short")
			}
			el := schema[i]
			i++
			name := el.name
			if prefix != "" {
				name = prefix + "." + name
			}
			if el.hasChildCount && el.numChildren > 0 {
				if err := walk(name, el.numChildren); err != nil {
					return err
				}
				continue
			}
			cols = append(cols, parquetColumn{name: name, typ: parquetType(el)})
		}
		return nil
	}
	err := walk("", schema[0].numChildren)
	return cols, err
}

// parquetType maps a leaf's physical and logical types to a column type.
func parquetType(el schemaElement) Type {
	switch el.logical { // LogicalType union members
	case 1, 4, 12, 14: // STRING, ENUM, JSON, UUID
		return String
	case 5: // DECIMAL
		return Float
	case 6: // DATE
		return Date
	case 8: // TIMESTAMP
		return DateTime
	}
	switch el.converted {
	case 0, 4, 19: // UTF8, ENUM, JSON
		return String
	case 5:
		return Float
	case 6:
		return Date
	case 9, 10:
		return DateTime
	}
	switch el.physical {
	case 0:
		return Bool
	case 1, 2:
		return Integer
	case 3:
		return DateTime // INT96: legacy timestamps
	case 4, 5:
		return Float
	}
	return String
}

// Thrift compact protocol types.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
)

// thriftReader reads the Thrift compact protocol from a byte slice.
type thriftReader struct {
	b     []byte
	i     int
	depth int
}

func (r *thriftReader) byte() (byte, error) {
	if r.i >= len(r.b) {
		return 0, errShort
	}
	c := r.b[r.i]
	r.i++
	return c, nil
}

func (r *thriftReader) uvarint() (uint64, error) {
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		return 0, errShort
	}
	r.i += n
	return v, nil
}

// varint reads a zigzag-encoded integer.
func (r *thriftReader) varint() (int64, error) {
	u, err := r.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

func (r *thriftReader) binary() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.b)-r.i) {
		return nil, errShort
	}
	s := r.b[r.i : r.i+int(n)]
	r.i += int(n)
	return s, nil
}

func (r *thriftReader) listHeader() (elemType byte, n int, err error) {
	h, err := r.byte()
	if err != nil {
		return 0, 0, err
	}
	size := int(h >> 4)
	if size == 15 {
		u, err := r.uvarint()
		if err != nil {
			return 0, 0, err
		}
		if u > uint64(len(r.b)) {
			return 0, 0, errShort
		}
		size = int(u)
	}
	return h & 0x0f, size, nil
}

// readStruct calls field for each field of a struct until its stop byte.
func (r *thriftReader) readStruct(field func(id int16, typ byte) error) error {
	r.depth++
	defer func() { r.depth-- }()
	if r.depth > 64 {
		return errors.New("nested too deep")
	}
	var last int16
	for {
		h, err := r.byte()
		if err != nil {
			return err
		}
		if h == tStop {
			return nil
		}
		typ := h & 0x0f
		id := last + int16(h>>4)
		if h>>4 == 0 {
			v, err := r.varint()
			if err != nil {
				return err
			}
			id = int16(v)
		}
		last = id
		if err := field(id, typ); err != nil {
			return err
		}
	}
}

// skipElem passes over an element of a list, set or map, where a boolean
// takes a byte (in a struct it lives in the field header).
func (r *thriftReader) skipElem(typ byte) error {
	if typ == tTrue || typ == tFalse {
		_, err := r.byte()
		return err
	}
	return r.skip(typ)
}

// skip passes over a value of type typ.
func (r *thriftReader) skip(typ byte) error {
	switch typ {
	case tTrue, tFalse:
		return nil
	case tByte:
		_, err := r.byte()
		return err
	case tI16, tI32, tI64:
		_, err := r.uvarint()
		return err
	case tDouble:
		if len(r.b)-r.i < 8 {
			return errShort
		}
		r.i += 8
		return nil
	case tBinary:
		_, err := r.binary()
		return err
	case tList, tSet:
		et, n, err := r.listHeader()
		if err != nil {
			return err
		}
		for k := 0; k < n; k++ {
			if err := r.skipElem(et); err != nil {
				return err
			}
		}
		return nil
	case tMap:
		n, err := r.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := r.byte()
		if err != nil {
			return err
		}
		for k := uint64(0); k < n; k++ {
			if err := r.skipElem(kv >> 4); err != nil {
				return err
			}
			if err := r.skipElem(kv & 0x0f); err != nil {
				return err
			}
		}
		return nil
	case tStruct:
		return r.readStruct(func(_ int16, t byte) error { return r.skip(t) })
	}
	return fmt.Errorf("unknown field type %d", typ)
}
