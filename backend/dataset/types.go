package dataset

import (
	"strconv"
	"strings"
	"time"
)

// Type is the inferred type of a column.
type Type string

// The column types a preview infers, from the narrowest to text.
const (
	Integer  Type = "int"      // whole numbers
	Float    Type = "float"    // decimal numbers
	Bool     Type = "bool"     // true/false, yes/no
	Date     Type = "date"     // calendar dates
	DateTime Type = "datetime" // dates with a time of day
	String   Type = "text"     // anything else
	Empty    Type = "empty"    // no values in the rows sampled
)

// missing reports whether a cell means "no value" to pandas and people.
func missing(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "na", "n/a", "nan", "null", "none", "nil", "-", "#n/a", "<na>":
		return true
	}
	return false
}

// typeSet tracks which types every value of a column still fits.
type typeSet struct {
	any                                          bool
	isInt, isFloat, isBool, isDate, isDT, isTime bool
	empty                                        int
}

func newTypeSet() *typeSet {
	return &typeSet{isInt: true, isFloat: true, isBool: true, isDate: true, isDT: true, isTime: true}
}

func (t *typeSet) add(v string) {
	if missing(v) {
		t.empty++
		return
	}
	v = strings.TrimSpace(v)
	t.any = true
	if t.isInt && !isInt(v) {
		t.isInt = false
	}
	if t.isFloat && !isFloat(v) {
		t.isFloat = false
	}
	if t.isBool && !isBool(v) {
		t.isBool = false
	}
	if t.isTime {
		d := isDate(v)
		dt := !d && isDateTime(v)
		t.isDate = t.isDate && d
		t.isDT = t.isDT && dt
		t.isTime = d || dt
	}
}

func (t *typeSet) result() Type {
	switch {
	case !t.any:
		return Empty
	case t.isInt:
		return Integer
	case t.isFloat:
		return Float
	case t.isBool:
		return Bool
	case t.isDate:
		return Date
	case t.isDT, t.isTime: // datetimes, or dates mixed with datetimes
		return DateTime
	}
	return String
}

func isInt(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if s == "" || len(s) > 19 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isFloat(s string) bool {
	if isInt(s) {
		return true
	}
	switch strings.ToLower(s) {
	case "inf", "-inf", "+inf", "infinity", "-infinity":
		return true
	}
	// A decimal point or an exponent; strconv also accepts "0x1p-2", "1_000"
	// and so on, which pandas does not.
	if strings.ContainsAny(s, "xX_pP") {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func isBool(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no":
		return true
	}
	return false
}

var dateLayouts = []string{
	"2006-01-02", "2006/01/02", "02.01.2006", "01/02/2006", "1/2/2006", "2.1.2006", "02-Jan-2006", "2 Jan 2006", "Jan 2, 2006",
}

var dateTimeLayouts = []string{
	time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "01/02/2006 15:04", "01/02/2006 15:04:05",
	"02.01.2006 15:04", "02.01.2006 15:04:05", "2006/01/02 15:04:05",
}

func isDate(s string) bool {
	if len(s) < 6 || len(s) > 12 || s[0] < '0' || (s[0] > '9' && !strings.ContainsAny(s[:1], "ADFJMNOS")) {
		return false
	}
	for _, l := range dateLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

func isDateTime(s string) bool {
	if len(s) < 12 || len(s) > 40 || s[0] < '0' || s[0] > '9' {
		return false
	}
	for _, l := range dateTimeLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

// inferColumns returns the columns of rows named by names.
func inferColumns(names []string, rows [][]string) []Column {
	sets := make([]*typeSet, len(names))
	for i := range sets {
		sets[i] = newTypeSet()
	}
	for _, r := range rows {
		for i := range sets {
			if i < len(r) {
				sets[i].add(r[i])
			} else {
				sets[i].empty++
			}
		}
	}
	cols := make([]Column, len(names))
	for i, n := range names {
		cols[i] = Column{Name: n, Type: sets[i].result(), Empty: sets[i].empty}
	}
	return cols
}
