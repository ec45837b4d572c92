package audit

import (
	"fmt"
	"strings"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/bytesize"
)

// Step is one step of a migration checklist.
type Step struct {
	N          int      `json:"n"`
	Title      string   `json:"title"`
	Detail     string   `json:"detail"`
	Commands   []string `json:"commands"`
	Capability string   `json:"capability,omitempty"`
	Category   Category `json:"category,omitempty"`
	Link       string   `json:"link,omitempty"` // the rehome screen that does it
}

// Checklist is the ordered steps to move one assistant, generated from its
// latest audit.
type Checklist struct {
	AssistantID string    `json:"assistant_id"`
	Name        string    `json:"name"`
	AuditID     string    `json:"audit_id"`
	Audited     time.Time `json:"audited"`
	Decision    Decision  `json:"decision"`
	Headline    string    `json:"headline"`
	Steps       []Step    `json:"steps"`
}

// Checklist returns the migration checklist of a stored assistant from its
// newest audit.
func (s *Service) Checklist(assistantID string) (Checklist, error) {
	rec, aa, err := s.Latest(assistantID)
	if err != nil {
		return Checklist{}, err
	}
	a, err := s.assistants.Get(assistantID)
	if err != nil {
		return Checklist{}, err
	}
	return BuildChecklist(rec, aa, a), nil
}

// BuildChecklist orders the steps to move a: the weights first, then what
// ports, then what is rebuilt, then what stays behind, then testing and a
// portable copy. A "keep" verdict gives the reasons and when to look again.
func BuildChecklist(rec Record, aa AssistantAudit, a assistant.Assistant) Checklist {
	c := &Checklist{
		AssistantID: a.ID, Name: a.Name, AuditID: rec.ID, Audited: rec.Created,
		Decision: aa.Verdict.Decision, Headline: aa.Verdict.Headline, Steps: []Step{},
	}
	m := rec.ModelFor(aa)
	if aa.Verdict.Decision == Keep || m == nil {
		c.keepSteps(aa, a)
		return *c
	}
	hw := fmt.Sprintf("%s of VRAM and %s of RAM", bytesize.Format(rec.Machine.VRAMBytes), bytesize.Format(rec.Machine.RAMBytes))
	where := "on the GPU"
	if m.OnCPU {
		where = "on the CPU, from system RAM"
	}
	c.add(Step{Title: "Check the machine", Detail: fmt.Sprintf("The audit of %s assumed %s; %s runs %s.", rec.Created.Format("2 Jan 2006"), hw, m.Name, where),
		Commands: []string{"rehome hw", "rehome fit"}})
	slug := assistant.Slug(a.Name)
	weights, ref := weightsStep(rec, m)
	c.add(weights)
	c.add(Step{Title: "Create the local assistant", Detail: "The Modelfile carries the instructions as the system prompt and the conversation starters; Ollama builds the assistant from it.",
		Commands: []string{
			fmt.Sprintf("rehome assistants export %s --format modelfile --model %s -o %s.Modelfile", a.ID, ref, slug),
			fmt.Sprintf("ollama create %s -f %s.Modelfile", slug, slug),
			fmt.Sprintf("ollama run %s", slug),
		}, Capability: Instructions, Category: Ports})
	c.add(Step{Title: "Or use it in Open WebUI", Detail: "Import the model file in Open WebUI (Workspace → Models → Import): the starters become prompt suggestions.",
		Commands: []string{fmt.Sprintf("rehome assistants export %s --format openwebui --model %s -o %s.openwebui.json", a.ID, ref, slug)}})
	if st, ok := conversationsStep(aa.Subject, a); ok {
		c.add(st)
	}
	for _, cat := range []Category{Ports, Hosts, Rebuild} {
		for _, r := range aa.Capabilities {
			if r.Category != cat || r.ID == Instructions || r.ID == ConversationStarters || contains(aa.Verdict.StaysBehind, r.ID) {
				continue
			}
			c.add(capabilityStep(r, a))
		}
	}
	c.leftBehindSteps(rec, aa, a)
	test := "Ask the local assistant what you used to ask ChatGPT and compare the answers before you switch."
	if len(a.Starters) > 0 {
		test = fmt.Sprintf("Run each conversation starter on both and compare: %s.", quoteList(a.Starters))
	}
	c.add(Step{Title: "Test side by side", Detail: test, Commands: []string{"ollama run " + slug}})
	c.add(Step{Title: "Keep a portable copy", Detail: "The bundle holds the assistant and its knowledge files, hashed, and imports back losslessly.",
		Commands: []string{fmt.Sprintf("rehome assistants export %s --format bundle -o %s.rehome.tar.gz", a.ID, slug)}})
	c.add(Step{Title: "Cancel the subscription last", Detail: "Only once no assistant, and no part of one, stays on ChatGPT: see the across-assistants view of your latest audit."})
	return *c
}

// add numbers st and adds it to the checklist.
func (c *Checklist) add(st Step) {
	st.N = len(c.Steps) + 1
	if st.Commands == nil {
		st.Commands = []string{}
	}
	c.Steps = append(c.Steps, st)
}

// keepSteps are the checklist of an assistant that stays on ChatGPT: why,
// a portable copy, and when to audit again.
func (c *Checklist) keepSteps(aa AssistantAudit, a assistant.Assistant) {
	var why []string
	for _, r := range aa.Verdict.Reasons {
		if r.Deciding {
			why = append(why, r.Text)
		}
	}
	c.add(Step{Title: "Keep it on ChatGPT for now", Detail: strings.Join(why, " ")})
	c.add(Step{Title: "Keep a portable copy", Detail: "Export the assistant with its knowledge files, so it is ready when you move.",
		Commands: []string{fmt.Sprintf("rehome assistants export %s --format bundle -o %s.rehome.tar.gz", a.ID, assistant.Slug(a.Name))}})
	c.add(Step{Title: "Audit again when things change", Detail: "More VRAM, a new model, or data that may no longer leave the machine all change the answer.",
		Commands: []string{fmt.Sprintf("rehome audit --assistant %s", a.ID)}})
}

// weightsStep says how to get the model's weights (fetched, or carried
// onto an air-gapped machine), and ref, what FROM and --model take.
func weightsStep(rec Record, m *Model) (st Step, ref string) {
	ref = m.Tag
	file, carry, known := carryFile(m)
	switch {
	case rec.Request.AirGapped && known:
		// The one file to bring: rehome runs it with its own llama-server.
		detail := fmt.Sprintf("This machine is air-gapped and nothing is fetched on it: %s. Download the file on a connected machine (the model's GGUF builds on its publisher's page), bring it on removable media; rehome runs it itself with its own llama-server, no Ollama needed.", carry)
		cmds := []string{"rehome models add /media/usb/" + file + " --copy"}
		if m.Tag != "" {
			detail += fmt.Sprintf(" With Ollama on the connected machine, `ollama pull %s` and carrying its model store (~/.ollama/models) works too.%s", m.Tag, tagNote(m))
			cmds = append(cmds, "ollama pull "+m.Tag+"   # or: with Ollama, on the connected machine")
		}
		return Step{Title: "Bring the model's weights in", Detail: detail, Commands: cmds}, ref
	case m.Tag == "":
		detail := fmt.Sprintf("Download a GGUF file of %s from its publisher's page", m.Name)
		if known {
			detail = fmt.Sprintf("Download %s (%s) from its publisher's page", file, m.Name)
		}
		if rec.Request.AirGapped {
			detail += " on a connected machine and carry it across on removable media; nothing is fetched on this machine"
		}
		return Step{Title: "Get the model's weights", Detail: detail + ". The Modelfile's FROM line points at the file."}, "/path/to/model.gguf"
	case rec.Request.AirGapped:
		return Step{Title: "Bring the model's weights in", Detail: fmt.Sprintf("This machine is air-gapped: on a connected machine pull %s, then carry the Ollama model store (~/.ollama/models) or the GGUF file across on removable media. Nothing is fetched on this machine.%s", m.Tag, tagNote(m)),
			Commands: []string{"ollama pull " + m.Tag + "   # on the connected machine"}}, ref
	default:
		return Step{Title: "Get the model's weights", Detail: fmt.Sprintf("Download %s once; after that it runs offline.%s", m.Name, tagNote(m)),
			Commands: []string{"ollama pull " + m.Tag}}, ref
	}
}

// capabilityStep is the step that sets up, hosts or rebuilds one of the
// assistant's capabilities locally.
func capabilityStep(r Result, a assistant.Assistant) Step {
	cat := r.Category
	st := Step{Capability: r.ID, Category: r.Category, Link: r.Link, Title: "Set up " + lower(r.Name), Detail: r.Replacement + "."}
	if cat == Hosts || cat == Rebuild {
		st.Title = "Let rehome host " + lower(r.Name)
		if cat == Rebuild {
			st.Title = "Rebuild " + lower(r.Name)
		}
		st.Detail = fmt.Sprintf("%s. About %s h of work", r.Replacement, num(r.Cost.Hours))
		if r.Cost.Ops != "" {
			st.Detail += "; then: " + r.Cost.Ops
		} else {
			st.Detail += "."
		}
	}
	switch r.ID {
	case Knowledge:
		var files []string
		for _, k := range a.Knowledge {
			files = append(files, fmt.Sprintf("%s (%s, sha256 %.12s…)", k.Name, bytesize.Format(k.Size), k.SHA256))
		}
		if len(files) > 0 {
			st.Detail += " Index these files: " + strings.Join(files, "; ") + "."
		}
		if cat == Hosts {
			st.Commands = []string{fmt.Sprintf("rehome knowledge add %s FILE…", a.ID), fmt.Sprintf("rehome knowledge list %s", a.ID)}
		}
	case CodeInterpreter:
		st.Commands = []string{"rehome sandbox doctor"}
	case WebBrowsing:
		zim, _ := SuggestZIM(a.Name, a.Description+"\n"+a.Instructions)
		st.Commands = []string{"rehome library add /media/usb/" + ZIMFile(zim) + " --copy", "rehome library settings searxng=http://127.0.0.1:8888"}
		if cat == Hosts {
			st.Commands = []string{"rehome library list", fmt.Sprintf("rehome ask --assistant %s --browse \"…\"", a.ID)}
		}
	}
	if r.Bring != "" {
		st.Detail = r.Bring + " " + st.Detail
	}
	if r.OnChatGPT != "" {
		st.Detail = r.OnChatGPT + " " + st.Detail
	}
	if r.ID == Actions {
		if steps, cmds := importedActions(a); len(steps) > 0 {
			st.Detail += " " + steps
			st.Commands = cmds
		} else if r.Category == Hosts {
			st.Detail += " Paste each action's schema from the GPT editor and enter its key again; the key stays on this machine."
			st.Commands = []string{fmt.Sprintf("rehome actions add %s schema.yaml --auth bearer --key-stdin", a.ID), fmt.Sprintf("rehome actions list %s", a.ID)}
		} else {
			st.Detail += " Import each action's OpenAPI schema as a tool server and enter its credentials again."
		}
	}
	return st
}

// leftBehindSteps say what stays behind, and why, where the data allows
// ChatGPT no more.
func (c *Checklist) leftBehindSteps(rec Record, aa AssistantAudit, a assistant.Assistant) {
	for _, id := range aa.Verdict.StaysBehind {
		for _, r := range aa.Capabilities {
			if r.ID != id {
				continue
			}
			where := "Keep using it on ChatGPT, or do without it."
			if rec.Request.DataMustStayLocal || rec.Request.AirGapped {
				where = "With this data it cannot go to ChatGPT either: it is given up until the machine or the rules change."
			}
			st := Step{Title: "Leave behind: " + lower(r.Name), Detail: r.Reason + " " + where, Capability: r.ID, Category: r.Category}
			if id == WebBrowsing { // it ports once a library is carried
				zim, _ := SuggestZIM(a.Name, a.Description+"\n"+a.Instructions)
				st.Commands = []string{"rehome library add /media/usb/" + ZIMFile(zim) + " --copy"}
			}
			c.add(st)
		}
	}
}

// tagNote says when the Ollama tag holds a smaller build than the
// quantization the audit sized: the tag's 4-bit build fits too.
func tagNote(m *Model) string {
	switch m.Quant {
	case "", "Q4_K_M", "MXFP4":
		return ""
	}
	return fmt.Sprintf(" %s is Ollama's default 4-bit build, smaller than the %s sized here (which fits too): take it, or the %s build's own tag on the model's Ollama page.", m.Tag, m.Quant, m.Quant)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func lower(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = "“" + s + "”"
	}
	return strings.Join(q, ", ")
}

// conversationsStep is a GPT's history: how many of its conversations
// moved from ChatGPT's data export, or how to bring them (ok false for an
// assistant that did not come from ChatGPT and has none).
func conversationsStep(sub Subject, a assistant.Assistant) (Step, bool) {
	if sub.Conversations > 0 {
		return Step{Title: "Its conversations moved", Detail: fmt.Sprintf("%s with this GPT came from ChatGPT's data export; they are under it on the Ask screen. Import a newer export to bring the rest (nothing is copied twice).",
			plural(sub.Conversations, "conversation")),
			Commands: []string{"rehome conversations list", "rehome conversations import EXPORT.zip"}, Link: "ask"}, true
	}
	if a.GizmoID == "" {
		return Step{}, false
	}
	return Step{Title: "Bring its conversations", Detail: "None of this GPT's conversations is here yet. On ChatGPT: Settings → Data controls → Export; the .zip it mails you holds them, filed by the GPT's id, so they land under this assistant.",
		Commands: []string{"rehome conversations import EXPORT.zip"}, Link: "ask"}, true
}
