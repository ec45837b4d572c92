package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"rehome/backend/chatgptexport"
	"rehome/backend/llm"
	"rehome/backend/store"
)

// ImportProgress is how far an import of the data export is.
type ImportProgress struct {
	// Read and Size are bytes of conversations.json (Size 0: not known).
	Read int64 `json:"read"`
	Size int64 `json:"size"`
	// Seen counts the conversations read so far; Imported, Unchanged and
	// Skipped what became of them.
	Seen      int    `json:"seen"`
	Imported  int    `json:"imported"`
	Unchanged int    `json:"unchanged"`
	Skipped   int    `json:"skipped"`
	Title     string `json:"title"`
	Done      bool   `json:"done"`
}

// ImportSkip is one conversation that was not imported, and why.
type ImportSkip struct {
	Title string `json:"title"`
	ID    string `json:"id"`
	Why   string `json:"why"`
}

// ImportFiled counts the conversations held with one GPT.
type ImportFiled struct {
	GizmoID       string `json:"gizmo_id"`
	AssistantID   string `json:"assistant_id,omitempty"`
	AssistantName string `json:"assistant_name,omitempty"`
	Conversations int    `json:"conversations"`
}

// ImportReport says what an import did, in numbers and words.
type ImportReport struct {
	File   string `json:"file"`
	Format string `json:"format"`
	ImportProgress
	// Replaced counts the imported conversations that were there from an
	// earlier import and have changed since (the rest of Imported are new).
	Replaced int          `json:"replaced"`
	Skips    []ImportSkip `json:"skips"`
	// Filed are the GPT conversations by gizmo id; PlainChats the rest.
	Filed      []ImportFiled `json:"filed"`
	PlainChats int           `json:"plain_chats"`
	Branches   int           `json:"branches"`
	Dropped    int           `json:"dropped_branches"`
	Hidden     int           `json:"hidden_messages"`
	Files      int           `json:"files"`
	FileBytes  int64         `json:"file_bytes"`
	// Stopped says why the import ended before the export did ("" when it
	// read it all); what was imported before stays.
	Stopped string `json:"stopped,omitempty"`
}

// maxSkips bounds the skipped conversations a report lists by name.
const maxSkips = 200

// importBatch bounds one transaction of an import: this many
// conversations or bytes, whichever comes first.
const (
	importBatch      = 64
	importBatchBytes = 16 << 20
)

// Import reads ChatGPT's data export at path (its .zip, conversations.json
// or one conversation) into the kept conversations, streaming it under
// chatgptexport's default bounds. progress, when set, is called as it goes.
// Each batch of conversations is one transaction: an import stopped by a
// bound, a broken file or ctx keeps the conversations before it, whole,
// and its report says so along with the error.
func (s *Conversations) Import(ctx context.Context, path string, progress func(ImportProgress)) (*ImportReport, error) {
	return s.ImportWith(ctx, path, chatgptexport.Limits{}, progress)
}

// ImportWith is Import under other bounds (zero fields: the defaults).
func (s *Conversations) ImportWith(ctx context.Context, path string, lim chatgptexport.Limits, progress func(ImportProgress)) (*ImportReport, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	exp, err := chatgptexport.Open(path, lim)
	if err != nil {
		return nil, err
	}
	defer exp.Close()
	if progress == nil {
		progress = func(ImportProgress) {}
	}
	im := &importer{s: s, st: st, exp: exp, lim: lim, gizmos: s.gizmos(), filed: map[string]*ImportFiled{},
		rep: &ImportReport{File: path, Format: exp.Format(), Skips: []ImportSkip{}, Filed: []ImportFiled{}}, progress: progress,
		budget: chatgptexport.DefaultLimits().MaxFilesBytes}
	if lim.MaxFilesBytes > 0 {
		im.budget = lim.MaxFilesBytes
	}
	err = im.run(ctx)
	if ferr := im.flush(); ferr != nil && err == nil {
		err = ferr
	}
	im.finish(err)
	return im.rep, err
}

type importer struct {
	s        *Conversations
	st       *store.Store
	exp      *chatgptexport.Export
	lim      chatgptexport.Limits
	gizmos   map[string]gizmoAssistant
	filed    map[string]*ImportFiled
	rep      *ImportReport
	progress func(ImportProgress)
	budget   int64
	batch    []store.Record
	dirs     []string // files written for the batch's new conversations
	bytes    int
	counts   struct{ imported, replaced int }
	last     time.Time
}

func (im *importer) run(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, err := im.exp.Next()
		if err == io.EOF {
			return nil
		}
		im.rep.Seen++
		if errors.Is(err, chatgptexport.ErrBadConversation) {
			im.skip("", "", err)
			continue
		}
		if err != nil {
			return err
		}
		if err := im.one(raw); err != nil {
			return err
		}
		if len(im.batch) >= importBatch || im.bytes >= importBatchBytes {
			if err := im.flush(); err != nil {
				return err
			}
		}
		im.tick(raw.TitleText())
	}
}

// one converts a conversation, takes its files and adds it to the batch.
func (im *importer) one(raw *chatgptexport.Raw) error {
	cv, err := chatgptexport.Convert(raw, im.lim)
	if err != nil {
		im.skip(raw.TitleText(), raw.SourceID(), err)
		return nil
	}
	c := cv.Conversation
	existing, unchanged := im.existing(c)
	if unchanged {
		im.rep.Unchanged++
		im.file(c)
		return nil
	}
	if len(cv.Assets) > 0 && im.exp.Format() == "zip" {
		fs, err := im.exp.SaveFiles(cv, im.s.filesDir(c.ID), &im.budget)
		im.rep.Files += fs.Saved
		im.rep.FileBytes += fs.Bytes
		if fs.Saved > 0 && !existing {
			im.dirs = append(im.dirs, im.s.filesDir(c.ID))
		}
		if err != nil {
			return fmt.Errorf("conversation %q: %w", c.Title, err)
		}
	} else if len(cv.Assets) > 0 {
		chatgptexport.Unlinked(cv)
	}
	if a, ok := im.gizmos[c.GizmoID]; ok && c.GizmoID != "" {
		c.AssistantID, c.AssistantName = a.ID, a.Name
	}
	data, err := llm.EncodeKept(c)
	if err != nil {
		im.skip(c.Title, c.SourceID, err)
		return nil
	}
	im.batch = append(im.batch, store.Record{ID: c.ID, Data: data})
	im.bytes += len(data)
	im.counts.imported++
	if existing {
		im.counts.replaced++
	}
	im.rep.Branches += cv.Branches
	im.rep.Dropped += cv.Dropped
	im.rep.Hidden += cv.Hidden
	im.file(c)
	return nil
}

// existing says whether the conversation is kept already, and whether
// unchanged since (the export's time of its last change is the same).
func (im *importer) existing(c *llm.Conversation) (bool, bool) {
	var old struct {
		SourceUpdated *time.Time `json:"source_updated"`
	}
	err := im.st.GetRaw(store.Conversations, c.ID, func(raw []byte) error { return json.Unmarshal(raw, &old) })
	if err != nil {
		return false, false
	}
	return true, old.SourceUpdated != nil && c.SourceUpdated != nil && old.SourceUpdated.Equal(*c.SourceUpdated)
}

func (im *importer) file(c *llm.Conversation) {
	if c.GizmoID == "" {
		im.rep.PlainChats++
		return
	}
	f := im.filed[c.GizmoID]
	if f == nil {
		a := im.gizmos[c.GizmoID]
		f = &ImportFiled{GizmoID: c.GizmoID, AssistantID: a.ID, AssistantName: a.Name}
		im.filed[c.GizmoID] = f
	}
	f.Conversations++
}

// flush keeps the batch in one transaction; when that fails, the files
// written for its new conversations are removed again.
func (im *importer) flush() error {
	if len(im.batch) == 0 {
		return nil
	}
	err := im.st.PutAll(store.Conversations, im.batch)
	if err != nil {
		for _, d := range im.dirs {
			os.RemoveAll(d)
		}
	} else {
		im.rep.Imported += im.counts.imported
		im.rep.Replaced += im.counts.replaced
	}
	im.batch, im.dirs, im.bytes = nil, nil, 0
	im.counts.imported, im.counts.replaced = 0, 0
	if err != nil {
		return fmt.Errorf("keep the imported conversations: %w", err)
	}
	return nil
}

func (im *importer) skip(title, id string, err error) {
	im.rep.Skipped++
	if len(im.rep.Skips) < maxSkips {
		im.rep.Skips = append(im.rep.Skips, ImportSkip{Title: title, ID: id, Why: err.Error()})
	}
}

func (im *importer) tick(title string) {
	if time.Since(im.last) < 200*time.Millisecond {
		return
	}
	im.last = time.Now()
	p := im.rep.ImportProgress
	p.Read, p.Size, p.Title = im.exp.Read(), im.exp.Size(), title
	p.Imported += im.counts.imported
	im.progress(p)
}

func (im *importer) finish(err error) {
	for _, f := range im.filed {
		im.rep.Filed = append(im.rep.Filed, *f)
	}
	im.rep.Read, im.rep.Size, im.rep.Done = im.exp.Read(), im.exp.Size(), true
	if err != nil {
		im.rep.Stopped = fmt.Sprintf("stopped after %d conversation(s): %v; the %d imported before stay", im.rep.Seen, err, im.rep.Imported)
	}
	im.progress(im.rep.ImportProgress)
}
