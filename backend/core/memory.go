package core

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"rehome/backend/llm"
	"rehome/backend/memory"
)

// Memory is what the user asked models to remember, the same for every
// face: Settings → Memory in the window, `rehome memory` in the terminal,
// and the memory tool of each chat (Tool).
type Memory struct{ c *Core }

// Memory is the memory service.
func (c *Core) Memory() *Memory { return &Memory{c: c} }

func (m *Memory) svc() (*memory.Service, error) {
	if err := m.c.Ready(); err != nil {
		return nil, err
	}
	return memory.NewService(m.c.st), nil
}

// List returns the memories f picks, newest first.
func (m *Memory) List(f memory.Filter) ([]memory.Memory, error) {
	s, err := m.svc()
	if err != nil {
		return nil, err
	}
	return s.List(f)
}

// Add keeps a memory the user typed, shared or the assistant's own
// (assistant "" shares it); added is false when it was kept already.
func (m *Memory) Add(text, assistantID string) (memory.Memory, bool, error) {
	s, err := m.svc()
	if err != nil {
		return memory.Memory{}, false, err
	}
	if assistantID, err = m.owner(assistantID); err != nil {
		return memory.Memory{}, false, err
	}
	return s.Add(memory.Memory{Text: text, Assistant: assistantID, Source: memory.SourceUser})
}

// Edit replaces a memory's text.
func (m *Memory) Edit(id, text string) (memory.Memory, error) {
	s, err := m.svc()
	if err != nil {
		return memory.Memory{}, err
	}
	return s.Edit(id, text)
}

// Delete removes a memory for good.
func (m *Memory) Delete(id string) error {
	s, err := m.svc()
	if err != nil {
		return err
	}
	return s.Delete(id)
}

// MemoryImport is what an import kept.
type MemoryImport struct {
	Added   int      `json:"added"`
	Already int      `json:"already"` // kept before, not added twice
	Skipped []string `json:"skipped"` // lines left out, with why
}

// Import keeps the memories of a list ChatGPT showed (see memory.Parse),
// shared or the assistant's own.
func (m *Memory) Import(text, assistantID string) (MemoryImport, error) {
	s, err := m.svc()
	if err != nil {
		return MemoryImport{}, err
	}
	if assistantID, err = m.owner(assistantID); err != nil {
		return MemoryImport{}, err
	}
	p, err := memory.Parse(text)
	if err != nil {
		return MemoryImport{}, err
	}
	out := MemoryImport{Skipped: p.Skipped}
	if len(p.Texts) == 0 {
		return out, fmt.Errorf("no memories found in the text: paste the list ChatGPT shows under Settings → Personalization → Manage memories, one memory a line")
	}
	if out.Added, out.Already, err = s.AddAll(p.Texts, assistantID, memory.SourceImport); err != nil {
		return out, err
	}
	return out, nil
}

// Settings returns the memory choices.
func (m *Memory) Settings() (memory.Settings, error) {
	s, err := m.svc()
	if err != nil {
		return memory.Settings{}, err
	}
	return s.Settings()
}

// SetOff turns memory off everywhere (true) or on again.
func (m *Memory) SetOff(off bool) (memory.Settings, error) {
	s, err := m.svc()
	if err != nil {
		return memory.Settings{}, err
	}
	return s.SetOff(off)
}

// SetMode sets what an assistant's chats do with memory: on (the shared
// memories), off, or own.
func (m *Memory) SetMode(assistantID, mode string) (memory.Settings, error) {
	s, err := m.svc()
	if err != nil {
		return memory.Settings{}, err
	}
	if assistantID == "" {
		return memory.Settings{}, fmt.Errorf("name the assistant whose memory is %s", mode)
	}
	if assistantID, err = m.owner(assistantID); err != nil {
		return memory.Settings{}, err
	}
	return s.SetMode(assistantID, mode)
}

// owner is the id of the assistant ref names (its id or its name); ""
// stays "" (the shared memories).
func (m *Memory) owner(ref string) (string, error) {
	if ref == "" {
		return "", nil
	}
	a, err := m.c.Knowledge().Resolve(ref)
	return a.ID, err
}

// Scope is the Filter.Scope for ref: "" all, "shared", else the id of the
// assistant ref names.
func (m *Memory) Scope(ref string) (string, error) {
	if ref == "" || ref == memory.ScopeShared {
		return ref, nil
	}
	return m.owner(ref)
}

// Undo takes back what a memory tool call changed (its ToolUse.Ref): a
// memory saved is deleted, memories forgotten come back.
func (m *Memory) Undo(ref string) error {
	s, err := m.svc()
	if err != nil {
		return err
	}
	kind, ids, _ := strings.Cut(ref, ":")
	for _, id := range strings.Split(ids, ",") {
		switch {
		case id == "":
			return fmt.Errorf("nothing to undo in %q", ref)
		case kind == "remember":
			err = s.Delete(id)
		case kind == "forget":
			_, err = s.Restore(id)
		default:
			return fmt.Errorf("nothing to undo in %q", ref)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// MemoryToolName is the memory tool's name on the wire.
const MemoryToolName = "memory"

// Tool is the memory tool of a chat of conv's assistant, with the
// memories it reads in its Prompt within the budget of contextTokens, and
// notes for the user; ok is false when the chat has no memory (a
// temporary chat, memory off, the assistant's memory off).
func (m *Memory) Tool(conv *llm.Conversation, contextTokens int) (t llm.LoopTool, notes []string, ok bool) {
	s, err := m.svc()
	if err != nil || conv.Temporary {
		return t, nil, false
	}
	set, err := s.Settings()
	if err != nil {
		m.c.log.Warn("memory settings", "err", err)
		return t, nil, false
	}
	owner := ""
	switch set.Mode(conv.AssistantID) {
	case memory.ModeOff:
		return t, nil, false
	case memory.ModeOwn:
		owner = conv.AssistantID
	}
	scope := memory.ScopeShared
	if owner != "" {
		scope = owner
	}
	mems, err := s.List(memory.Filter{Scope: scope})
	if err != nil {
		m.c.log.Warn("read memories", "err", err)
		return t, nil, false
	}
	budget := memory.Budget(contextTokens)
	block := memory.Prompt(mems, budget, llm.EstimateTokens)
	if block.LeftOut > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d memories are left out of this question: they do not fit the %d tokens memory may take of the model's context (Settings → Memory lists them all).", block.LeftOut, len(mems), budget))
	}
	t = llm.LoopTool{Name: MemoryToolName, Description: memoryToolDescription, Parameters: memoryToolSchema, Prompt: block.Text,
		Call: func(ctx context.Context, in llm.ToolInput) llm.ToolOutput {
			return memoryCall(s, owner, conv.ID, in.Arguments)
		}}
	return t, notes, true
}

const memoryToolDescription = "Saves or forgets a memory: something to remember across the user's chats. " +
	"Call it with action \"remember\" and text, a short note about the user written in the third person (\"Prefers metric units.\"), " +
	"when the user asks you to remember something or states a lasting preference or fact about themselves; " +
	"with action \"forget\" and the memory's id (or its text) when the user asks you to forget it. " +
	"Never save passwords, keys or other secrets. The user sees each change and can undo it."

var memoryToolSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"action": map[string]any{"type": "string", "enum": []string{"remember", "forget"}, "description": "remember saves text; forget removes the memory named by id or text."},
		"text":   map[string]any{"type": "string", "description": "What to remember (remember), or the memory's text (forget)."},
		"id":     map[string]any{"type": "string", "description": "The id of the memory to forget, as the saved memories list it."},
	},
	"required": []string{"action"},
}

// memoryCall runs one call of the memory tool.
func memoryCall(s *memory.Service, owner, conversationID, args string) llm.ToolOutput {
	var in struct{ Action, Text, ID string }
	raw := strings.TrimSpace(args)
	var str string
	if json.Unmarshal([]byte(raw), &str) == nil {
		raw = str // encoded twice
	}
	if err := json.Unmarshal([]byte(raw), &in); err != nil {
		return failed(`the arguments were not a JSON object: call memory with {"action": "remember", "text": "..."}`)
	}
	switch strings.ToLower(strings.TrimSpace(in.Action)) {
	case "remember", "save", "add":
		got, added, err := s.Add(memory.Memory{Text: in.Text, Assistant: owner, Source: memory.SourceModel, Conversation: conversationID})
		if err != nil {
			return failed("not saved: " + err.Error())
		}
		if !added {
			return llm.ToolOutput{Text: fmt.Sprintf("Already remembered (id %s): %q. Nothing changed.", got.ID, got.Text)}
		}
		return llm.ToolOutput{Text: fmt.Sprintf("Memory updated: saved %q (id %s). The user sees it and can undo it.", got.Text, got.ID), Ref: "remember:" + got.ID}
	case "forget", "delete", "remove":
		return memoryForget(s, owner, in.ID, in.Text)
	}
	return failed(`the action is "remember" or "forget"`)
}

func memoryForget(s *memory.Service, owner, id, text string) llm.ToolOutput {
	key := id
	if strings.TrimSpace(key) == "" {
		key = text
	}
	found, err := s.Match(owner, key)
	if err != nil {
		return failed("not forgotten: name the memory by its id or its text")
	}
	switch {
	case len(found) == 0:
		return failed(fmt.Sprintf("no saved memory matches %q: the saved memories are listed with their ids in the system prompt", key))
	case len(found) > 3:
		return failed(fmt.Sprintf("%d memories match %q: forget them one at a time, by id", len(found), key))
	}
	var ids, texts []string
	for _, f := range found {
		if _, err := s.Forget(f.ID); err != nil {
			return failed("not forgotten: " + err.Error())
		}
		ids, texts = append(ids, f.ID), append(texts, fmt.Sprintf("%q", f.Text))
	}
	return llm.ToolOutput{Text: "Memory updated: forgot " + strings.Join(texts, ", ") + ". The user can undo it.", Ref: "forget:" + strings.Join(ids, ",")}
}

func failed(msg string) llm.ToolOutput { return llm.ToolOutput{Text: msg, Error: msg} }
