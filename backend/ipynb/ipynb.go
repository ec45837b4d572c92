package ipynb

import "strings"

// Lines splits text as Jupyter keeps it in a notebook: each line keeps
// its newline, and no empty line follows the last newline.
func Lines(s string) []string {
	if s == "" {
		return []string{}
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// Document is an nbformat 4.5 notebook of cells, for a Python 3 kernel.
func Document(cells any) map[string]any {
	return map[string]any{
		"nbformat":       4,
		"nbformat_minor": 5,
		"metadata": map[string]any{
			"kernelspec":    map[string]any{"name": "python3", "display_name": "Python 3", "language": "python"},
			"language_info": map[string]any{"name": "python"},
		},
		"cells": cells,
	}
}
