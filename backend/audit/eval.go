package audit

import (
	"fmt"
	"strings"

	"rehome/backend/bytesize"
)

// Model is the text model an assistant would run on, as the fit estimate
// picks it for the machine.
type Model struct {
	Name string `json:"name"`
	// Tag is the Ollama name (what `ollama pull` and FROM take), "" when
	// the estimate does not know one; ID and Quant name it in the catalog.
	Tag   string `json:"tag"`
	ID    string `json:"id,omitempty"`
	Quant string `json:"quant,omitempty"`
	// VRAMBytes is the VRAM the model takes with its context (0 on CPU):
	// the fit estimate's VRAM figure, without the token-embedding table
	// llama.cpp keeps in system RAM.
	VRAMBytes int64 `json:"vram_bytes"`
	// RAMBytes is the system RAM it takes: all of it on the CPU, the
	// token-embedding table beside a GPU.
	RAMBytes int64 `json:"ram_bytes"`
	// OnCPU is true when it does not fit in VRAM and runs from system RAM.
	OnCPU  bool `json:"on_cpu"`
	Vision bool `json:"vision"` // reads images itself
	Tools  bool `json:"tools"`  // supports tool calling
	Coder  bool `json:"coder"`  // trained for code
	// Score ranks the models that fit: the fit estimate's effective size
	// times the quality its quantization keeps (higher is better).
	Score float64 `json:"score,omitempty"`
	// Source says where the choice came from ("fit estimate", "fallback table").
	Source string `json:"source"`
}

// Footprint is the memory the model takes where it runs.
func (m Model) Footprint() int64 {
	if m.OnCPU {
		return m.RAMBytes
	}
	return m.VRAMBytes
}

// Facts are what the catalog's rules are evaluated against for one
// assistant on one machine.
type Facts struct {
	AirGapped         bool
	DataMustStayLocal bool
	VRAMBytes         int64
	RAMBytes          int64
	TextModel         *Model // nil when no model fits
	// Actions: the hosts outside this machine and network that the
	// assistant's actions call, whether one names no server (and is
	// assumed to call out), and whether one signs in with OAuth.
	ActionHosts      []string
	ActionUnknownURL bool
	ActionOAuth      bool
	// Browsing: the carried Kiwix libraries' titles, the search engine
	// set ("" none), the ZIM to carry for the subject, in words.
	Libraries []string
	Engine    string
	ZIM       string
}

// FreeVRAM is the VRAM left beside the text model.
func (f Facts) FreeVRAM() int64 {
	if f.TextModel == nil || f.TextModel.OnCPU {
		return f.VRAMBytes
	}
	return max(0, f.VRAMBytes-f.TextModel.VRAMBytes)
}

// ActionsExternal reports whether an action calls out of this machine and
// its network.
func (f Facts) ActionsExternal() bool { return len(f.ActionHosts) > 0 || f.ActionUnknownURL }

func (f Facts) modelName() string {
	if f.TextModel == nil {
		return "no model"
	}
	return f.TextModel.Name
}

func (f Facts) hosts() string {
	var h []string
	h = append(h, f.ActionHosts...)
	if f.ActionUnknownURL {
		h = append(h, "a server no schema names")
	}
	if len(h) == 0 {
		return "no outside host"
	}
	return strings.Join(h, ", ")
}

// fill replaces the placeholders of a reason or replacement.
func (f Facts) fill(s string) string {
	return strings.NewReplacer(
		"{text_model}", f.modelName(),
		"{vram}", bytesize.Format(f.VRAMBytes),
		"{ram}", bytesize.Format(f.RAMBytes),
		"{free_vram}", bytesize.Format(f.FreeVRAM()),
		"{action_hosts}", f.hosts(),
		"{libraries}", joinOr(f.Libraries, "no library"),
		"{engine}", orWord(f.Engine, "no search engine"),
		"{zim}", f.ZIM,
	).Replace(s)
}

// Result is the answer for one capability.
type Result struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Category    Category `json:"category"`
	Label       string   `json:"label"` // the category in the user's words
	Reason      string   `json:"reason"`
	Replacement string   `json:"replacement"`
	Link        string   `json:"link,omitempty"`
	Cost        Cost     `json:"cost"`
	// Bring says what must be brought onto this machine before the
	// capability works: files that stayed on OpenAI's servers ("" when
	// nothing).
	Bring string `json:"bring,omitempty"`
	// OnChatGPT says what the GPT had for this capability on ChatGPT,
	// for an assistant imported from ChatGPT's record ("" otherwise).
	OnChatGPT string `json:"on_chatgpt,omitempty"`
	// Rule is the id of the rule that decided, "" for the defaults.
	Rule string `json:"rule,omitempty"`
	// Because lists, in words, the conditions that made the rule hold.
	Because []string `json:"because"`
}

// Evaluate answers for capability cp under f: the first rule whose
// condition holds overrides the defaults it names.
func Evaluate(cp Capability, f Facts) Result {
	r := Result{
		ID: cp.ID, Name: cp.Name, Category: cp.Category, Reason: cp.Reason,
		Replacement: cp.Replacement, Link: cp.Link, Cost: cp.Cost, Because: []string{},
	}
	for _, rule := range cp.Rules {
		ok, because := rule.When.holds(f)
		if !ok {
			continue
		}
		r.Rule, r.Because = rule.ID, because
		if rule.Category != "" {
			r.Category = rule.Category
		}
		if rule.Reason != "" {
			r.Reason = rule.Reason
		}
		if rule.Replacement != "" {
			r.Replacement = rule.Replacement
		}
		if rule.Cost != nil {
			r.Cost = *rule.Cost
		}
		break
	}
	r.Label = r.Category.Label()
	r.Reason, r.Replacement = f.fill(r.Reason), f.fill(r.Replacement)
	return r
}

// holds reports whether every condition of w holds under f, and says each
// one in words.
func (w When) holds(f Facts) (bool, []string) {
	var because []string
	check := func(want *bool, got bool, yes, no string) bool {
		if want == nil {
			return true
		}
		if got != *want {
			return false
		}
		if got {
			because = append(because, yes)
		} else {
			because = append(because, no)
		}
		return true
	}
	model := f.modelName()
	onCPU := f.TextModel != nil && f.TextModel.OnCPU
	vision := f.TextModel != nil && f.TextModel.Vision
	tools := f.TextModel != nil && f.TextModel.Tools
	ok := check(w.AirGapped, f.AirGapped, "the machine is air-gapped", "the machine is online") &&
		check(w.DataMustStayLocal, f.DataMustStayLocal, "the data must stay on this machine", "the data may leave the machine") &&
		check(w.NoTextModel, f.TextModel == nil, "no text model fits", "a text model fits") &&
		check(w.TextModelOnCPU, onCPU, model+" runs on the CPU", model+" runs on the GPU") &&
		check(w.TextModelVision, vision, model+" reads images", model+" does not read images") &&
		check(w.TextModelTools, tools, model+" calls tools", model+" has no tool calling") &&
		check(w.ActionCallsExternal, f.ActionsExternal(), "an action calls "+f.hosts(), "every action stays on this machine or network") &&
		check(w.ActionAuthOAuth, f.ActionOAuth, "an action signs in with OAuth", "no action uses OAuth") &&
		check(w.BrowsingLibrary, len(f.Libraries) > 0, "a Kiwix library is carried ("+joinOr(f.Libraries, "")+")", "no Kiwix library is carried") &&
		check(w.BrowsingEngine, f.Engine != "", "a search engine is set ("+f.Engine+")", "no search engine is set")
	if !ok {
		return false, nil
	}
	if w.VRAMBelow != nil {
		if f.VRAMBytes >= int64(*w.VRAMBelow) {
			return false, nil
		}
		because = append(because, fmt.Sprintf("%s of VRAM is below %s", bytesize.Format(f.VRAMBytes), bytesize.Format(int64(*w.VRAMBelow))))
	}
	if w.VRAMForSecondModel != nil {
		free := f.FreeVRAM()
		if free >= int64(*w.VRAMForSecondModel) {
			return false, nil
		}
		because = append(because, fmt.Sprintf("%s of VRAM left beside %s, below the %s a second model needs", bytesize.Format(free), model, bytesize.Format(int64(*w.VRAMForSecondModel))))
	}
	if w.TextModelBelow != nil {
		if f.TextModel == nil || f.TextModel.Footprint() >= int64(*w.TextModelBelow) {
			return false, nil
		}
		because = append(because, fmt.Sprintf("%s takes %s, below %s", model, bytesize.Format(f.TextModel.Footprint()), bytesize.Format(int64(*w.TextModelBelow))))
	}
	return true, because
}

func orWord(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
