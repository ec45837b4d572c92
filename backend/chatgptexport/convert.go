package chatgptexport

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"rehome/backend/ids"
	"rehome/backend/llm"
)

// Source names an imported conversation's origin in its record.
const Source = "chatgpt"

// Converted is one conversation ready to keep, and what became of it.
type Converted struct {
	Conversation *llm.Conversation
	// Assets are the file ids it points at (images, uploads, plots), to
	// take from the zip with SaveFiles.
	Assets []string
	// Branches is how many other branches were kept as alternatives;
	// Dropped how many were not (branches of branches, past the bound).
	Branches, Dropped int
	// Hidden counts the messages left out as ChatGPT hides them.
	Hidden int
}

// Convert turns one exported conversation into rehome's: its id is
// stable (from the export's conversation id and its creation time), so a
// second import finds the same record.
func Convert(r *Raw, lim Limits) (*Converted, error) {
	lim = lim.orDefault()
	if len(r.Mapping) > lim.MaxNodes {
		return nil, fmt.Errorf("%w: it holds %d messages, over the %d rehome reads of one conversation", ErrBadConversation, len(r.Mapping), lim.MaxNodes)
	}
	src := r.SourceID()
	created, updated := r.CreateTime.Time(), r.UpdateTime.Time()
	if src == "" {
		if created.IsZero() {
			return nil, fmt.Errorf("%w: it has neither an id nor a time", ErrBadConversation)
		}
		src = "untitled:" + r.TitleText() + ":" + created.Format(time.RFC3339Nano)
	}
	seen := map[string]bool{}
	path, note, err := r.mainPath(lim.MaxNodes, seen)
	if err != nil {
		return nil, err
	}
	assets := &assetSet{seen: map[string]bool{}}
	main := r.build(path, assets)
	if updated.Before(created) {
		updated = created
	}
	c := &llm.Conversation{Schema: llm.ConversationSchema, ID: ids.At(created, Source+":"+src), Title: strings.TrimSpace(r.TitleText()),
		GizmoID: gizmoOf(r), Source: Source, SourceID: src, Model: string(r.ModelSlug),
		Created: created, Updated: updated, Files: []llm.FileInfo{}, Exchanges: main.out}
	if !updated.IsZero() {
		c.SourceUpdated = &updated
	}
	if c.Title == "" && len(c.Exchanges) > 0 {
		c.Title = llm.TitleOf(c.Exchanges[0].Question)
	}
	if note != "" {
		c.Notes = append(c.Notes, note)
	}
	out := &Converted{Conversation: c, Hidden: main.hidden}
	out.Branches, out.Dropped = r.alternatives(c, path, main.sigs, seen, assets, lim)
	if out.Dropped > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d more branch(es) of this conversation (edits and regenerations off other branches) were not imported", out.Dropped))
	}
	if s := skippedNote(main.skipped); s != "" {
		c.Notes = append(c.Notes, s)
	}
	if c.Model == "" {
		for _, t := range c.Exchanges {
			if t.Model != "" {
				c.Model = t.Model
			}
		}
	}
	c.Questions = len(c.Exchanges)
	out.Assets = assets.ids
	return out, nil
}

// build converts the messages of one branch.
func (r *Raw) build(path []string, assets *assetSet) *builder {
	b := &builder{assets: assets, skipped: map[string]int{}, out: []llm.Transcript{}}
	for _, id := range path {
		if n := r.Mapping[id]; n != nil {
			b.add(id, n.Message)
		}
	}
	return b
}

// alternatives keeps the other branches off the main path: each child of
// a node on it that the user did not follow, down its newest leaf.
func (r *Raw) alternatives(c *llm.Conversation, path, sigs []string, seen map[string]bool, assets *assetSet, lim Limits) (kept, dropped int) {
	for i, id := range path {
		for _, kid := range r.kids(r.Mapping[id]) {
			if i+1 < len(path) && kid == path[i+1] {
				continue
			}
			if kept >= lim.MaxAlternatives {
				dropped++
				continue
			}
			tail, more, err := r.branch(kid, lim.MaxNodes-len(path), seen)
			if err != nil {
				dropped++
				continue
			}
			dropped += more
			alt := r.build(append(append([]string{}, path[:i+1]...), tail...), assets)
			from := 0
			for from < len(alt.sigs) && from < len(sigs) && alt.sigs[from] == sigs[from] {
				from++
			}
			if from >= len(alt.out) {
				dropped++ // it held nothing shown (a hidden message)
				continue
			}
			c.Alternatives = append(c.Alternatives, llm.Alternative{From: from, Exchanges: alt.out[from:]})
			kept++
		}
	}
	return kept, dropped
}

// gizmoOf is the GPT the conversation was held with: its gizmo_id, else
// the one its messages name (older exports set it there only).
func gizmoOf(r *Raw) string {
	if g := string(r.GizmoID); g != "" {
		return g
	}
	for _, n := range r.Mapping {
		if n != nil && n.Message != nil && n.Message.Metadata.GizmoID != "" {
			return string(n.Message.Metadata.GizmoID)
		}
	}
	return ""
}

func skippedNote(kinds map[string]int) string {
	if len(kinds) == 0 {
		return ""
	}
	var parts []string
	for k, n := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(parts)
	return "left out, as rehome has no place for them yet: " + strings.Join(parts, ", ")
}
