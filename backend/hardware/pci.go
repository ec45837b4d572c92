package hardware

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/jaypipes/ghw"
	"github.com/jaypipes/ghw/pkg/gpu"
	"github.com/jaypipes/ghw/pkg/pci"
	"github.com/jaypipes/pcidb"
)

// pciIDsPaths are where distributions install pci.ids, relative to the
// root (the same list pcidb searches, minus its network fallback).
var pciIDsPaths = []string{
	"usr/share/hwdata/pci.ids",
	"usr/share/misc/pci.ids",
	"usr/share/hwdata/pci.ids.gz",
	"usr/share/misc/pci.ids.gz",
}

// pciDB loads pci.ids from the root once and keeps it while the file is
// unchanged: parsing it is most of a detection's cost.
type pciDB struct {
	mu    sync.Mutex
	path  string
	stamp string
	db    *pcidb.PCIDB
}

// load returns the parsed database and its path, or an empty database and
// "" when the root has no pci.ids. With parse false it only finds the file:
// names are needed for display devices alone, so a machine without one
// skips the parse. It never touches the network: the path is always given
// to pcidb explicitly.
func (p *pciDB) load(root string, parse bool) (*pcidb.PCIDB, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, rel := range pciIDsPaths {
		path := filepath.Join(root, rel)
		st, err := os.Stat(path)
		if err != nil || st.IsDir() {
			continue
		}
		if !parse {
			return emptyDB(), path
		}
		stamp := st.ModTime().String() + "/" + strconv.FormatInt(st.Size(), 10)
		if p.db != nil && p.path == path && p.stamp == stamp {
			return p.db, path
		}
		db, err := pcidb.New(pcidb.WithPath(path))
		if err != nil {
			continue
		}
		p.db, p.path, p.stamp = db, path, stamp
		return db, path
	}
	return emptyDB(), ""
}

func emptyDB() *pcidb.PCIDB {
	return &pcidb.PCIDB{
		Classes:  map[string]*pcidb.Class{},
		Vendors:  map[string]*pcidb.Vendor{},
		Products: map[string]*pcidb.Product{},
	}
}

// hasDisplayDevice reports whether any PCI device under root is of class
// 0x03 (display controller), reading only the small class files.
func hasDisplayDevice(root string) bool {
	dir := filepath.Join(root, "sys", "bus", "pci", "devices")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "class"))
		if err == nil && strings.HasPrefix(strings.TrimSpace(string(data)), "0x03") {
			return true
		}
	}
	return false
}

// display is a PCI display controller found by ghw.
type display struct {
	address   string // canonical dddd:bb:dd.f, lower case
	vendorID  string
	vendor    string // from pci.ids, "" when unknown
	productID string
	product   string // from pci.ids, "" when unknown
	subclass  string
	class     string
	driver    string
	drmCard   string
}

// enumerateDisplays lists PCI class 0x03 devices (VGA, 3D and other display
// controllers) under root, with the DRM card the kernel made for each.
// Datacenter GPUs are 3D controllers and often have no DRM card, so the PCI
// bus is the primary source and /sys/class/drm only adds card names.
func enumerateDisplays(root string, db *pcidb.PCIDB) ([]display, error) {
	opts := []any{ghw.WithChroot(root), ghw.WithPCIDB(db), ghw.WithDisableTopology(),
		// ghw logs to stderr; what matters ends up in the report's notes.
		ghw.WithLogger(slog.New(slog.DiscardHandler))}
	info, err := pci.New(opts...)
	if err != nil {
		return nil, err
	}
	if len(info.Devices) == 0 && dirHasEntries(filepath.Join(root, "sys", "bus", "pci", "devices")) {
		// ghw gives up on the whole bus when one device lacks a modalias
		// file; read the display devices' own files instead.
		return scanDisplays(root, db), nil
	}
	var out []display
	for _, d := range info.Devices {
		if d.Class == nil || d.Class.ID != "03" {
			continue
		}
		ds := display{
			address: strings.ToLower(d.Address),
			driver:  d.Driver,
		}
		if d.Vendor != nil {
			ds.vendorID = strings.ToLower(d.Vendor.ID)
			ds.vendor = known(d.Vendor.Name)
		}
		if d.Product != nil {
			ds.productID = strings.ToLower(d.Product.ID)
			ds.product = known(d.Product.Name)
		}
		if d.Subclass != nil {
			ds.subclass = d.Subclass.ID
			ds.class = pciClassName(d.Subclass.ID, known(d.Subclass.Name))
		} else {
			ds.class = pciClassName("", "")
		}
		out = append(out, ds)
	}
	// DRM cards: ghw follows /sys/class/drm/cardN to its PCI address.
	if cards, err := gpu.New(opts...); err == nil {
		for _, c := range cards.GraphicsCards {
			for i := range out {
				if out[i].address == strings.ToLower(c.Address) && c.Index >= 0 {
					out[i].drmCard = "card" + strconv.Itoa(c.Index)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].address < out[j].address })
	return out, nil
}

// scanDisplays reads class, vendor and device of each PCI device directly.
func scanDisplays(root string, db *pcidb.PCIDB) []display {
	dir := filepath.Join(root, "sys", "bus", "pci", "devices")
	entries, _ := os.ReadDir(dir)
	var out []display
	for _, e := range entries {
		dev := filepath.Join(dir, e.Name())
		class, ok := readSysfsUint(filepath.Join(dev, "class"))
		if !ok || class>>16 != 0x03 {
			continue
		}
		vid, _ := readSysfsUint(filepath.Join(dev, "vendor"))
		pid, _ := readSysfsUint(filepath.Join(dev, "device"))
		ds := display{
			address:   strings.ToLower(e.Name()),
			vendorID:  fmt.Sprintf("%04x", vid),
			productID: fmt.Sprintf("%04x", pid),
			subclass:  fmt.Sprintf("%02x", (class>>8)&0xff),
		}
		if v := db.Vendors[ds.vendorID]; v != nil {
			ds.vendor = v.Name
		}
		if p := db.Products[ds.vendorID+ds.productID]; p != nil {
			ds.product = p.Name
		}
		ds.class = pciClassName(ds.subclass, "")
		if link, err := os.Readlink(filepath.Join(dev, "driver")); err == nil {
			ds.driver = filepath.Base(link)
		}
		out = append(out, ds)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].address < out[j].address })
	return out
}

func known(name string) string {
	if name == "unknown" {
		return ""
	}
	return name
}

// normalizePCIAddress turns the forms vendors print ("00000000:0B:00.0" from
// nvidia-smi and NVML, "0b:00.0" from lspci) into sysfs's "0000:0b:00.0".
func normalizePCIAddress(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	parts := strings.Split(s, ":")
	switch len(parts) {
	case 2:
		return "0000:" + s
	case 3:
		dom := parts[0]
		if len(dom) > 4 {
			dom = dom[len(dom)-4:]
		}
		for len(dom) < 4 {
			dom = "0" + dom
		}
		return dom + ":" + parts[1] + ":" + parts[2]
	}
	return s
}

// readSysfsUint reads a decimal or 0x-prefixed number from a sysfs file.
func readSysfsUint(path string) (int64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 0, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
