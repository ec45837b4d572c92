package chatgptexport

import (
	"bytes"
	"encoding/json"
	"strings"

	"rehome/backend/llm"
)

// maxCitations bounds the sources kept of one answer.
const maxCitations = 64

// assetPrefix marks, in an OutFile's Path, a file of the export not yet
// taken from the zip (see Export.SaveFiles).
const assetPrefix = "chatgpt-asset:"

// assetSet is the files a conversation points at, each once.
type assetSet struct {
	ids  []string
	seen map[string]bool
}

func (a *assetSet) want(id, kind string, size int64) llm.OutFile {
	if !a.seen[id] {
		a.seen[id] = true
		a.ids = append(a.ids, id)
	}
	return llm.OutFile{Name: id, Kind: kind, Size: size, Path: assetPrefix + id}
}

// assetID is the file id of an asset pointer (file-service://file-XXX,
// sediment://file_XXX).
func assetID(ptr string) string {
	if i := strings.Index(ptr, "://"); i >= 0 {
		ptr = ptr[i+3:]
	}
	if strings.HasPrefix(ptr, "file-") || strings.HasPrefix(ptr, "file_") {
		if i := strings.IndexAny(ptr, "/?#"); i >= 0 {
			ptr = ptr[:i]
		}
		return ptr
	}
	return ""
}

// parts reads a message's parts: its words, and the images and audio it
// holds (as files wanted from the zip).
func (b *builder) parts(c content) (string, []llm.OutFile) {
	var words []string
	var files []llm.OutFile
	for _, p := range c.Parts {
		p = bytes.TrimSpace(p)
		if len(p) == 0 {
			continue
		}
		if p[0] == '"' {
			var s string
			if json.Unmarshal(p, &s) == nil && s != "" {
				words = append(words, s)
			}
			continue
		}
		var obj struct {
			Type  text `json:"content_type"`
			Ptr   text `json:"asset_pointer"`
			Size  text `json:"size_bytes"`
			Text  text `json:"text"`
			Audio *struct {
				Ptr text `json:"asset_pointer"`
			} `json:"audio_asset_pointer"`
		}
		if json.Unmarshal(p, &obj) != nil {
			continue
		}
		switch string(obj.Type) {
		case "image_asset_pointer":
			if id := assetID(string(obj.Ptr)); id != "" {
				files = append(files, b.assets.want(id, "image", 0))
			}
		case "audio_transcription":
			if s := string(obj.Text); s != "" {
				words = append(words, s)
			}
		case "audio_asset_pointer", "real_time_user_audio_video_asset_pointer":
			b.skipped["voice recordings"]++
		default:
			if s := string(obj.Text); s != "" {
				words = append(words, s)
			}
		}
	}
	return strings.Join(words, "\n"), files
}

// attachments are the files the user uploaded with a question (metadata
// attachments: id, name, size), beside the images already in its parts.
func (b *builder) attachments(raw json.RawMessage, have []llm.OutFile) []llm.OutFile {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var list []struct {
		ID   text `json:"id"`
		Name text `json:"name"`
		Size text `json:"size"`
		Mime text `json:"mime_type"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []llm.OutFile
	for _, a := range list {
		id := string(a.ID)
		if id == "" {
			continue
		}
		dup := false
		for i := range have {
			if have[i].Name == id {
				have[i].Name = firstOf(string(a.Name), id)
				dup = true
			}
		}
		if dup {
			continue
		}
		kind := "file"
		if strings.HasPrefix(string(a.Mime), "image/") {
			kind = "image"
		}
		f := b.assets.want(id, kind, 0)
		f.Name = firstOf(string(a.Name), id)
		out = append(out, f)
	}
	return out
}

// citations are the web sources an answer cites: metadata.citations
// (older exports) and metadata.content_references (newer ones).
func citations(md metadata) []llm.Citation {
	type ref struct {
		Title   text `json:"title"`
		URL     text `json:"url"`
		Text    text `json:"text"`
		Snippet text `json:"snippet"`
	}
	var out []llm.Citation
	seen := map[string]bool{}
	add := func(r ref) {
		key := firstOf(string(r.URL), string(r.Title))
		if key == "" || seen[key] || len(out) >= maxCitations {
			return
		}
		seen[key] = true
		out = append(out, llm.Citation{N: len(out) + 1, File: key, Section: string(r.Title),
			Quote: cutText(strings.TrimSpace(firstOf(string(r.Text), string(r.Snippet))), 1000)})
	}
	var old []struct {
		Metadata *ref `json:"metadata"`
	}
	if len(md.Citations) > 0 && json.Unmarshal(md.Citations, &old) == nil {
		for _, c := range old {
			if c.Metadata != nil {
				add(*c.Metadata)
			}
		}
	}
	var refs []struct {
		ref
		Items []ref `json:"items"`
	}
	if len(md.ContentReferences) > 0 && json.Unmarshal(md.ContentReferences, &refs) == nil {
		for _, r := range refs {
			add(r.ref)
			for _, it := range r.Items {
				add(it)
			}
		}
	}
	return out
}
