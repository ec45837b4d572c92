package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"rehome/backend/atomicfile"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// A session's folder: its cell records, its lock, its JSON files.

// ReadCells returns a session's recorded cells in order.
func ReadCells(dir string) ([]CellResult, error) {
	names, err := filepath.Glob(filepath.Join(dir, "cells", "[0-9][0-9][0-9][0-9]*.json"))
	if err != nil {
		return nil, err
	}
	sort.Slice(names, func(i, j int) bool { return cellNumber(names[i]) < cellNumber(names[j]) })
	var out []CellResult
	for _, n := range names {
		var c CellResult
		if err := readJSON(n, &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func cellNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(name), ".json"))
	return n
}

func countCells(dir string) int {
	names, _ := filepath.Glob(filepath.Join(dir, "cells", "[0-9][0-9][0-9][0-9]*.json"))
	m := 0
	for _, n := range names {
		m = max(m, cellNumber(n))
	}
	return m
}

// lockDir takes the session folder's lock (flock), across processes.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the session: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock the session: %w", err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func writeJSON(name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(name, data, 0o600); err != nil {
		return fmt.Errorf("save %s: %w", filepath.Base(name), err)
	}
	return nil
}

func readJSON(name string, v any) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
