package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"rehome/backend/bytesize"
	"rehome/backend/llm"
	"rehome/backend/store"
	"rehome/backend/vision"
)

// What the assistant editor asks of the core beside the record itself:
// a picture readied, an action's schema fetched from a URL, and a preview
// answer with the instructions being written.

// Bounds on a schema fetched from a URL (the user clicked Import).
const (
	MaxSchemaBytes = 1 << 20
	SchemaTimeout  = 15 * time.Second
)

// MaxPictureFile is the largest picture file an assistant takes.
const MaxPictureFile = vision.MaxPictureFile

// Picture readies a picture file's bytes for an assistant (see
// vision.Picture): the data: URL to keep in its Picture field.
func Picture(name string, data []byte) (string, error) {
	return vision.Picture(name, data)
}

// Picture is core.Picture, for a face that holds the service.
func (a *Assistants) Picture(name string, data []byte) (string, error) {
	return Picture(name, data)
}

// FetchSchema reads an action's OpenAPI schema from an http(s) URL, once,
// when the user asks: at most MaxSchemaBytes, within SchemaTimeout (and
// ctx), a 200 answer of UTF-8 text. Each failure says what to do.
func (a *Assistants) FetchSchema(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http or https address: paste the schema's URL, e.g. https://api.example.com/openapi.json", raw)
	}
	ctx, cancel := context.WithTimeout(ctx, SchemaTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json, application/yaml, text/yaml, text/plain;q=0.8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("%s did not answer within %s: check the address, or save the schema to a file and import that", u.Host, SchemaTimeout)
		}
		return "", fmt.Errorf("fetch the schema from %s: %v: check the address and the network, or import it from a file", u.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s answered HTTP %d for the schema: check the address (it must be the schema itself, not a page about it)", u.Host, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxSchemaBytes+1))
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("%s did not send the whole schema within %s: try again, or import it from a file", u.Host, SchemaTimeout)
	case err != nil:
		return "", fmt.Errorf("read the schema from %s: %v", u.Host, err)
	}
	return schemaText(body, "the schema at "+u.Host, "is it the right address?")
}

// ReadSchemaFile reads an action's schema from a file the user gave
// (chosen or dropped): at most MaxSchemaBytes of UTF-8 text.
func (a *Assistants) ReadSchemaFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open the schema: %w", err)
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, MaxSchemaBytes+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return schemaText(body, filepath.Base(path), "is it the right file?")
}

// schemaText checks what was read as a schema: within MaxSchemaBytes, UTF-8
// text, not empty; what names it in the error, hint ends a wrong one's.
func schemaText(body []byte, what, hint string) (string, error) {
	switch {
	case len(body) > MaxSchemaBytes:
		return "", fmt.Errorf("%s is over %s: a schema is at most that; %s", what, bytesize.Format(MaxSchemaBytes), hint)
	case !utf8.Valid(body) || strings.ContainsRune(string(body), 0):
		return "", fmt.Errorf("%s is binary data, not a schema (JSON or YAML text): %s", what, hint)
	case strings.TrimSpace(string(body)) == "":
		return "", fmt.Errorf("%s is empty: %s", what, hint)
	}
	return string(body), nil
}

// PreviewTurn is an earlier question of a preview and its answer.
type PreviewTurn struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// PreviewRequest is one question of the editor's preview: the
// instructions as being written, not as saved.
type PreviewRequest struct {
	// ID is the face's name for this preview (echoed in its events).
	ID string `json:"id"`
	// AssistantID lends the saved assistant's knowledge ("" for none).
	AssistantID  string        `json:"assistant_id"`
	Instructions string        `json:"instructions"`
	Server       string        `json:"server"`
	Model        string        `json:"model"`
	History      []PreviewTurn `json:"history"`
	Question     string        `json:"question"`
	// Progress is told what starting a carried model waits for.
	Progress func(msg string) `json:"-"`
	// OnEvent sees each step of the answer as it streams (may be nil).
	OnEvent func(Event) `json:"-"`
}

// Preview answers a question with the instructions given, as a new chat
// with the assistant would, but keeps nothing: no conversation, no
// memory, no model choice remembered. Code is not run in a preview (no
// sandbox is started for it): the answer says so where the model tried.
func (s *Asks) Preview(ctx context.Context, req PreviewRequest) (*llm.Transcript, error) {
	if err := s.c.Ready(); err != nil {
		return nil, err
	}
	q := strings.TrimSpace(req.Question)
	if q == "" {
		return nil, ErrNoQuestion
	}
	suggested := ""
	if req.AssistantID != "" {
		as, err := s.c.Assistants().Get(req.AssistantID)
		if err != nil {
			return nil, err
		}
		suggested = as.Model
	}
	// A carried model starts with the context its saved settings give.
	ctxWant := s.c.ModelSettings().forAsk(req.Model, ModelSettings{}).Context
	conn, err := s.c.LocalModels().PickServer(ctx, req.Server, req.Model, suggested, ctxWant, req.Progress)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	var tools []llm.LoopTool
	if t, ok := s.c.Knowledge().Tool(req.AssistantID); ok && req.AssistantID != "" {
		tools = append(tools, t)
	}
	var hist []llm.Message
	for _, t := range req.History {
		if t.Answer != "" {
			hist = append(hist, llm.Message{Role: "user", Content: t.Question}, llm.Message{Role: "assistant", Content: t.Answer})
		}
	}
	client := conn.Client
	loop := &llm.Loop{Client: client, Model: conn.Model, Instructions: req.Instructions, Tools: tools,
		Context: client.ContextLength(ctx, conn.Model), History: hist, MaxSteps: 2, OnEvent: req.OnEvent}
	t := loop.Ask(ctx, q)
	s.c.log.Info("assistant preview", "assistant", req.AssistantID, "model", conn.Model, "stopped", t.Stopped)
	return t, nil
}

// knowledgeFolderKey is where the folder knowledge files were last chosen
// from is kept (Settings), for the next dialog to start in.
const knowledgeFolderKey = "knowledge-folder"

type knowledgeFolder struct {
	Schema int    `json:"schema"`
	Folder string `json:"folder"`
}

// KnowledgeFolder is the folder the knowledge dialog starts in: the one
// last chosen from while it still exists, else ~/Documents, else home.
func (c *Core) KnowledgeFolder() string {
	var rec knowledgeFolder
	_ = c.db(func(st *store.Store) error { return st.Get(store.Settings, knowledgeFolderKey, &rec) })
	home, _ := os.UserHomeDir()
	for _, d := range []string{rec.Folder, filepath.Join(home, "Documents")} {
		if st, err := os.Stat(d); d != "" && err == nil && st.IsDir() {
			return d
		}
	}
	return home
}

// SetKnowledgeFolder keeps dir as the folder knowledge files were last
// chosen from.
func (c *Core) SetKnowledgeFolder(dir string) error {
	return c.db(func(st *store.Store) error {
		return st.Put(store.Settings, knowledgeFolderKey, knowledgeFolder{Schema: 1, Folder: dir})
	})
}
