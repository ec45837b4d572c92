package canvas

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// extensions of code textdocs by language (others: .txt).
var extensions = map[string]string{"python": ".py", "javascript": ".js", "typescript": ".ts", "html": ".html",
	"java": ".java", "cpp": ".cpp", "c": ".c", "go": ".go", "rust": ".rs", "sql": ".sql", "bash": ".sh", "r": ".r", "react": ".jsx"}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._ -]+`)

// FileName is the textdoc's name as a file: safe characters only, with
// its extension (.md for a document, .py for Python …).
func (d *Doc) FileName(format string) string {
	base := strings.Trim(unsafeName.ReplaceAllString(d.Name, "_"), " ._")
	if base == "" {
		base = "canvas"
	}
	if len(base) > 80 {
		base = base[:80]
	}
	return base + d.ext(format)
}

func (d *Doc) ext(format string) string {
	switch {
	case format == "ipynb":
		return ".ipynb"
	case !d.IsCode():
		return ".md"
	case extensions[d.Language()] != "":
		return extensions[d.Language()]
	}
	return ".txt"
}

// Export is the textdoc as a file: format "" is its own kind (.md, .py,
// …), "ipynb" a Jupyter notebook (a code textdoc one code cell, a
// document one Markdown cell).
func (d *Doc) Export(format string) ([]byte, error) {
	switch format {
	case "", "md", "py":
		return []byte(d.Content), nil
	case "ipynb":
		kind := "markdown"
		if d.IsCode() {
			kind = "code"
		}
		cell := map[string]any{"cell_type": kind, "metadata": map[string]any{}, "source": splitKeep(d.Content)}
		if kind == "code" {
			cell["outputs"], cell["execution_count"] = []any{}, nil
		}
		lang := "python"
		if d.IsCode() {
			lang = d.Language()
		}
		nb := map[string]any{"nbformat": 4, "nbformat_minor": 5, "cells": []any{cell},
			"metadata": map[string]any{"language_info": map[string]any{"name": lang}, "rehome": map[string]any{"canvas": d.Name, "version": d.Versions[len(d.Versions)-1].N}}}
		return json.MarshalIndent(nb, "", " ")
	}
	return nil, fmt.Errorf("the format is md, py or ipynb, not %q", format)
}

// splitKeep splits s into lines that keep their newline (a notebook's
// source).
func splitKeep(s string) []string {
	out := []string{}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
