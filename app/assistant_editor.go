package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"rehome/backend/core"
)

// The assistant editor's calls beside the record's own (assistants.go):
// a picture readied, an action's schema fetched from a URL, a preview
// answer, and several knowledge files chosen at once.

// multiFileDialog is the window's dialog for several files (the window
// implements it; a test's window may not).
type multiFileDialog interface {
	OpenFilesDialog(title, dir string, filters []FileFilter) ([]string, error)
}

// AssistantPicture readies a picture file's bytes (base64, as the page
// read them) for an assistant's Picture field: a PNG or JPEG data: URL,
// scaled and stripped (see core.Assistants.Picture).
func (svc *AssistantService) AssistantPicture(name, data string) (string, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return "", err
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "", fmt.Errorf("%s did not arrive whole (%v): choose it again", name, err)
	}
	return a.core.Assistants().Picture(name, raw)
}

// FetchActionSchema reads an action's schema from a URL the user typed
// and asked for (see core.Assistants.FetchSchema).
func (svc *AssistantService) FetchActionSchema(url string) (string, error) {
	a := svc.app
	return onStore(a, func(c *core.Core) (string, error) { return c.Assistants().FetchSchema(a.ctx, url) })
}

// PreviewEvent is a step of a preview's answer, for the editor.
type PreviewEvent struct {
	ID string `json:"id"` // the preview's, as the editor named it
	core.Event
}

// PreviewAssistant answers a question of the editor's preview with the
// instructions as typed; nothing is kept (see core.Asks.Preview). Its
// steps go out as "preview:event" (PreviewEvent) while it answers.
func (svc *AssistantService) PreviewAssistant(req core.PreviewRequest) (core.Transcript, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return core.Transcript{}, err
	}
	req.OnEvent = func(ev core.Event) { a.emit("preview:event", PreviewEvent{ID: req.ID, Event: ev}) }
	req.Progress = func(msg string) {
		a.emit("preview:event", PreviewEvent{ID: req.ID, Event: core.Event{Type: "note", Text: msg}})
	}
	// StopAsk("preview:ID") stops it, as it stops a conversation's answer.
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	if key := "preview:" + req.ID; req.ID != "" {
		if !a.asks.begin(key, cancel) {
			return core.Transcript{}, errors.New("that preview is answering already: wait for it, or press Stop")
		}
		defer a.asks.end(key)
	}
	return value(a.core.Asks().Preview(ctx, req))
}

// PickKnowledgeFiles opens the native dialog to choose one or more files
// for the assistant's knowledge, in the folder last chosen from (else
// Documents, else the home folder); none when the user cancels.
func (svc *AssistantService) PickKnowledgeFiles() ([]string, error) {
	a := svc.app
	w := a.window()
	if w == nil {
		return nil, errNoWindow
	}
	filters := []FileFilter{KnowledgeFilter, {Name: "All files", Patterns: "*"}}
	var paths []string
	var err error
	if m, ok := w.(multiFileDialog); ok {
		paths, err = m.OpenFilesDialog("Choose files for the assistant's knowledge", a.core.KnowledgeFolder(), filters)
	} else {
		var p string
		if p, err = w.OpenFileDialog("Choose a file for the assistant's knowledge", filters); p != "" {
			paths = []string{p}
		}
	}
	if err != nil || len(paths) == 0 {
		return []string{}, err
	}
	GrantRead(a, paths...)
	if err := a.core.SetKnowledgeFolder(filepath.Dir(paths[0])); err != nil {
		a.log.Warn("keep the knowledge folder", "err", err)
	}
	return paths, nil
}

// ActionSchemaFile reads an action's schema from a file the user gave
// rehome (dropped on the window, or chosen), within the schema's bounds.
func (svc *AssistantService) ActionSchemaFile(path string) (string, error) {
	a := svc.app
	p, err := a.readyFile(path)
	if err != nil {
		return "", err
	}
	return a.core.Assistants().ReadSchemaFile(p)
}

// PickPictureFile opens the native dialog to choose an assistant's
// picture; "" when the user cancels (in a browser: the page's file input).
func (svc *AssistantService) PickPictureFile() (string, error) {
	a := svc.app
	return a.pickGiven("Choose the assistant's picture", FileFilter{Name: "Pictures (PNG, JPEG, WebP)", Patterns: "*.png;*.jpg;*.jpeg;*.webp"})
}

// PickSchemaFile opens the native dialog to choose an action's schema
// file; "" when the user cancels.
func (svc *AssistantService) PickSchemaFile() (string, error) {
	a := svc.app
	return a.pickGiven("Choose the action's OpenAPI schema", FileFilter{Name: "OpenAPI schemas (JSON, YAML)", Patterns: "*.json;*.yaml;*.yml"})
}

// AssistantPictureFile readies a picture file the user gave rehome (the
// window's dialog) for an assistant's Picture field, as AssistantPicture.
func (svc *AssistantService) AssistantPictureFile(path string) (string, error) {
	a := svc.app
	p, err := a.readyFile(path)
	if err != nil {
		return "", err
	}
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, core.MaxPictureFile+1))
	if err != nil {
		return "", err
	}
	return a.core.Assistants().Picture(filepath.Base(p), data)
}
