package assistant

import (
	"fmt"
	"slices"
	"strings"
)

// byGizmo finds the stored assistant imported from the GPT id.
func (s *Service) byGizmo(id string) (Assistant, bool, error) {
	if id == "" {
		return Assistant{}, false, nil
	}
	all, err := s.List()
	if err != nil {
		return Assistant{}, false, err
	}
	for _, a := range all {
		if a.GizmoID == id {
			return a, true, nil
		}
	}
	return Assistant{}, false, nil
}

// mergeGPT updates old, an assistant imported from a GPT before, with
// the GPT as the new record describes it. What ChatGPT describes is
// taken; what the user did here stays: the knowledge files brought, the
// model chosen, the actions' names, credentials and "Always allow", the
// actions added by hand. Instructions missing from the new record (the
// store's view) keep the ones the owner's view brought. It returns what
// the user should know.
func mergeGPT(old *Assistant, in Assistant) []string {
	var warns []string
	old.Name, old.Description, old.WelcomeMessage = in.Name, in.Description, in.WelcomeMessage
	old.Starters, old.Capabilities = in.Starters, in.Capabilities
	if strings.TrimSpace(in.Instructions) != "" {
		old.Instructions = in.Instructions
	} else if strings.TrimSpace(old.Instructions) != "" {
		warns = append(warns, "instructions: not in this record: the ones imported before are kept")
	}
	old.Notes = mergeNotes(old.Notes, in.Notes)
	old.Actions, warns = mergeActions(old.Actions, in.Actions, warns)
	old.RemoteFiles = mergeFiles(old.RemoteFiles, in.RemoteFiles)
	for _, k := range in.Knowledge {
		if !slices.ContainsFunc(old.Knowledge, func(o KnowledgeFile) bool { return o.SHA256 != "" && o.SHA256 == k.SHA256 }) {
			old.Knowledge = append(old.Knowledge, k)
		}
	}
	return warns
}

// mergeNotes replaces the block an earlier import wrote and keeps the
// user's own notes.
func mergeNotes(old, fresh string) string {
	if i := strings.Index(old, "Imported from ChatGPT ("); i >= 0 {
		end := strings.Index(old[i:], "\n\n")
		rest := ""
		if end >= 0 {
			rest = old[i+end:]
		}
		old = strings.TrimSpace(old[:i] + rest)
	}
	if old == "" {
		return fresh
	}
	return fresh + "\n\n" + old
}

func mergeActions(old, fresh []Action, warns []string) ([]Action, []string) {
	var out []Action
	for _, f := range fresh {
		i := slices.IndexFunc(old, func(o Action) bool {
			return o.Source != "" && o.Source == f.Source || o.Source == "" && f.Source == "" && o.Domain != "" && o.Domain == f.Domain
		})
		if i >= 0 {
			o := old[i]
			f.ID, f.Name, f.AlwaysAllow = o.ID, o.Name, o.AlwaysAllow
			if o.OAuth != nil && f.OAuth != nil && o.OAuth.ClientID != "" {
				f.OAuth.ClientID = o.OAuth.ClientID
			}
			old = slices.Delete(slices.Clone(old), i, i+1)
		} else {
			f.Name = uniqueActionName(f.Name, append(slices.Clone(out), old...))
		}
		out = append(out, f)
	}
	for _, o := range old {
		if o.Source == "" && o.Domain == "" {
			out = append(out, o) // added here, by hand
			continue
		}
		warns = append(warns, fmt.Sprintf("action %s (%s) is no longer in the GPT: removed", o.Name, orWord(o.Domain, o.Source)))
	}
	return out, warns
}

func mergeFiles(old, fresh []RemoteFile) []RemoteFile {
	var out []RemoteFile
	for _, o := range old {
		if o.Kind != GPTFile {
			out = append(out, o)
		}
	}
	for _, f := range fresh {
		if i := slices.IndexFunc(old, func(o RemoteFile) bool { return o.Kind == GPTFile && o.ID == f.ID }); i >= 0 {
			f.Filled = old[i].Filled
		}
		out = append(out, f)
	}
	return out
}
