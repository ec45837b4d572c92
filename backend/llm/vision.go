package llm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Plots shown to a model that reads images: the loop sends the figures a
// cell drew on the next turn, as image_url content parts with data: URLs
// (OpenAI's shape, which Ollama's /v1, llama-server with an mmproj, LM
// Studio and vLLM take). A model that does not read images gets only
// "plot saved: NAME (shown to the user)". Bounded so that a cell drawing
// many figures does not fill the context.
const (
	// MaxImagesPerCell is how many of a cell's figures are shown (the first).
	MaxImagesPerCell = 2
	// MaxImagesPerQuestion is how many figures one question shows in all.
	MaxImagesPerQuestion = 4
	// MaxImageBytes is the largest PNG shown; a bigger one is named only.
	MaxImageBytes = 1 << 20
)

// contentPart is one part of a message's content on the wire.
type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// plainMessage is Message without its JSON methods (every field as
// tagged).
type plainMessage Message

// MarshalJSON sends the content as a string, or, with images, as a text
// part followed by one image_url part per image.
func (m Message) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(plainMessage(m))
	if err != nil || len(m.Images) == 0 {
		return data, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	parts := []contentPart{{Type: "text", Text: m.Content}}
	for _, u := range m.Images {
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: u}})
	}
	if obj["content"], err = json.Marshal(parts); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// UnmarshalJSON reads content as a string or as parts (text parts joined,
// image_url parts into Images), for tests and tools that read requests.
func (m *Message) UnmarshalJSON(data []byte) error {
	var w struct {
		plainMessage
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = Message(w.plainMessage)
	m.Content = ""
	if len(w.Content) == 0 || string(w.Content) == "null" {
		return nil
	}
	if json.Unmarshal(w.Content, &m.Content) == nil {
		return nil
	}
	var parts []contentPart
	if err := json.Unmarshal(w.Content, &parts); err != nil {
		return fmt.Errorf("message content is neither text nor parts: %w", err)
	}
	var text []string
	for _, p := range parts {
		switch {
		case p.Type == "text":
			text = append(text, p.Text)
		case p.Type == "image_url" && p.ImageURL != nil:
			m.Images = append(m.Images, p.ImageURL.URL)
		}
	}
	m.Content = strings.Join(text, "\n")
	return nil
}

// plotImages returns the data: URLs of a cell's figures to show a model
// that reads images, within the bounds (left says how many the question
// may still show), and the names of those shown.
func plotImages(files []OutFile, left int) (urls, names []string) {
	for _, f := range files {
		if f.Kind != "plot" || len(urls) >= MaxImagesPerCell || len(urls) >= left {
			continue
		}
		u := f.DataURL
		if u == "" && f.Path != "" && f.Size <= MaxImageBytes {
			if data, err := os.ReadFile(f.Path); err == nil && len(data) <= MaxImageBytes {
				u = "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
			}
		}
		if u == "" || base64.StdEncoding.DecodedLen(len(u)) > MaxImageBytes+64 {
			continue
		}
		urls = append(urls, u)
		names = append(names, f.Name)
	}
	return urls, names
}
