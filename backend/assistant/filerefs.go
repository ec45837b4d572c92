package assistant

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// A GPT record from ChatGPT lists its knowledge files by id and MIME type
// (their names only in the owner's view) but not their bytes: each is a
// RemoteFile of Kind GPTFile, a file to bring. A knowledge file the user
// attaches later (a drop, --knowledge, `rehome knowledge add`) fills the
// reference it matches, so the audit's "bring these N files" counts down.

// mimeByExt are the types ChatGPT gives knowledge files, by extension.
var mimeByExt = map[string][]string{
	".pdf":  {"application/pdf"},
	".txt":  {"text/plain"},
	".md":   {"text/markdown", "text/plain"},
	".csv":  {"text/csv", "application/csv", "text/plain"},
	".json": {"application/json"},
	".html": {"text/html"},
	".htm":  {"text/html"},
	".zip":  {"application/zip", "application/x-zip-compressed"},
	".docx": {"application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	".doc":  {"application/msword"},
	".pptx": {"application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	".xlsx": {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	".xls":  {"application/vnd.ms-excel"},
	".py":   {"text/x-script.python", "text/x-python"},
	".js":   {"text/javascript"},
	".ts":   {"text/x-typescript"},
	".tex":  {"text/x-tex"},
	".png":  {"image/png"},
	".jpg":  {"image/jpeg"},
	".jpeg": {"image/jpeg"},
	".webp": {"image/webp"},
	".gif":  {"image/gif"},
}

// FillFileRefs marks each GPT file reference that one of a's knowledge
// files answers: by name where the record named it, else by type, else
// (the record said neither) any file not already counted. A reference
// whose file is gone from the knowledge is open again. Each knowledge
// file fills one reference at most.
func FillFileRefs(a *Assistant) {
	have := map[string]KnowledgeFile{}
	for _, k := range a.Knowledge {
		if k.SHA256 != "" {
			have[k.SHA256] = k
		}
	}
	used := map[string]bool{}
	for i := range a.RemoteFiles {
		rf := &a.RemoteFiles[i]
		if rf.Kind != GPTFile || rf.Filled == "" {
			continue
		}
		if _, ok := have[rf.Filled]; !ok || used[rf.Filled] {
			rf.Filled = ""
			continue
		}
		used[rf.Filled] = true
	}
	// Named references first, then typed, then the rest: a file fills the
	// most specific reference it can.
	for pass := 0; pass < 3; pass++ {
		for i := range a.RemoteFiles {
			rf := &a.RemoteFiles[i]
			if rf.Kind != GPTFile || rf.Filled != "" || refPass(*rf) != pass {
				continue
			}
			for _, k := range a.Knowledge {
				if k.SHA256 == "" || used[k.SHA256] || !answers(*rf, k) {
					continue
				}
				rf.Filled, used[k.SHA256] = k.SHA256, true
				break
			}
		}
	}
}

func refPass(rf RemoteFile) int {
	switch {
	case rf.Name != "":
		return 0
	case rf.Type != "":
		return 1
	}
	return 2
}

func answers(rf RemoteFile, k KnowledgeFile) bool {
	switch {
	case rf.Name != "":
		return strings.EqualFold(rf.Name, k.Name)
	case rf.Type != "":
		for _, t := range mimeByExt[strings.ToLower(filepath.Ext(k.Name))] {
			if strings.EqualFold(t, rf.Type) {
				return true
			}
		}
		return false
	}
	return true
}

// FilesToBring are a's GPT file references no knowledge file fills yet.
func FilesToBring(a Assistant) []RemoteFile {
	var out []RemoteFile
	for _, rf := range a.RemoteFiles {
		if rf.Kind == GPTFile && rf.Filled == "" {
			out = append(out, rf)
		}
	}
	return out
}

// DescribeFiles says files to bring by count and type ("3 files: 2 PDF,
// 1 of unknown type"), with the names where the record gave them.
func DescribeFiles(refs []RemoteFile) string {
	if len(refs) == 0 {
		return ""
	}
	byType := map[string]int{}
	var names []string
	for _, rf := range refs {
		byType[typeWord(rf.Type)]++
		if rf.Name != "" {
			names = append(names, rf.Name)
		}
	}
	kinds := make([]string, 0, len(byType))
	for t := range byType {
		kinds = append(kinds, t)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, t := range kinds {
		parts[i] = fmt.Sprintf("%d %s", byType[t], t)
	}
	s := counted(len(refs), "file", "files") + ": " + strings.Join(parts, ", ")
	if len(names) > 0 {
		s += " (" + strings.Join(names, ", ") + ")"
	}
	return s
}

// typeWord is a MIME type as a user names it.
func typeWord(mime string) string {
	switch strings.ToLower(mime) {
	case "":
		return "of unknown type"
	case "application/pdf":
		return "PDF"
	case "text/plain":
		return "text"
	case "text/markdown":
		return "Markdown"
	case "text/csv", "application/csv":
		return "CSV"
	case "application/json":
		return "JSON"
	case "application/zip", "application/x-zip-compressed":
		return "zip"
	case "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/msword":
		return "Word"
	case "application/vnd.openxmlformats-officedocument.presentationml.presentation":
		return "PowerPoint"
	case "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.ms-excel":
		return "Excel"
	}
	return mime
}

// counted says "1 file", "3 files": a count in words, not "file(s)".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
