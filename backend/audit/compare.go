package audit

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"rehome/backend/bytesize"
)

// Change is one input or figure that differs between two audits.
type Change struct {
	Field string `json:"field"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// CapabilityChange is a capability whose answer changed.
type CapabilityChange struct {
	ID   string   `json:"id"`
	Name string   `json:"name"`
	From Category `json:"from"` // "" when the older audit did not have it
	To   Category `json:"to"`   // "" when the newer audit does not have it
	// Reason is the newer audit's reason; Why says what made it change.
	Reason string `json:"reason"`
	Why    string `json:"why"`
}

// AssistantChange is what changed for one assistant.
type AssistantChange struct {
	AssistantID string `json:"assistant_id,omitempty"`
	Name        string `json:"name"`
	// Status is "changed", "same", "added" (only in the newer audit) or
	// "removed" (only in the older).
	Status       string             `json:"status"`
	VerdictFrom  Decision           `json:"verdict_from,omitempty"`
	VerdictTo    Decision           `json:"verdict_to,omitempty"`
	VerdictWhy   string             `json:"verdict_why,omitempty"`
	Capabilities []CapabilityChange `json:"capabilities"`
}

// AuditRef names one side of a comparison.
type AuditRef struct {
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
}

// Comparison says what changed between an older and a newer audit, and why.
type Comparison struct {
	Older      AuditRef          `json:"older"`
	Newer      AuditRef          `json:"newer"`
	Inputs     []Change          `json:"inputs"`
	Assistants []AssistantChange `json:"assistants"`
	Summary    string            `json:"summary"`
}

// Compare compares two audits; whichever was created first is the older.
func Compare(a, b Record) Comparison {
	if b.Created.Before(a.Created) || (b.Created.Equal(a.Created) && b.ID < a.ID) {
		a, b = b, a
	}
	c := Comparison{
		Older: AuditRef{ID: a.ID, Created: a.Created}, Newer: AuditRef{ID: b.ID, Created: b.Created},
		Inputs: inputChanges(a, b), Assistants: []AssistantChange{},
	}
	key := func(s Subject) string {
		if s.AssistantID != "" {
			return "id:" + s.AssistantID
		}
		return "name:" + s.Name
	}
	older := map[string]AssistantAudit{}
	for _, aa := range a.Assistants {
		older[key(aa.Subject)] = aa
	}
	seen := map[string]bool{}
	inputsWhy := describeChanges(c.Inputs)
	changed := 0
	for _, nb := range b.Assistants {
		k := key(nb.Subject)
		seen[k] = true
		oa, ok := older[k]
		if !ok {
			c.Assistants = append(c.Assistants, AssistantChange{AssistantID: nb.Subject.AssistantID, Name: nb.Subject.Name, Status: "added", VerdictTo: nb.Verdict.Decision, Capabilities: []CapabilityChange{}})
			changed++
			continue
		}
		ac := AssistantChange{AssistantID: nb.Subject.AssistantID, Name: nb.Subject.Name, Status: "same", VerdictFrom: oa.Verdict.Decision, VerdictTo: nb.Verdict.Decision, Capabilities: capabilityChanges(oa, nb, inputsWhy)}
		if ac.VerdictFrom != ac.VerdictTo {
			ac.VerdictWhy = verdictWhy(nb.Verdict)
		}
		if ac.VerdictFrom != ac.VerdictTo || len(ac.Capabilities) > 0 {
			ac.Status = "changed"
			changed++
		}
		c.Assistants = append(c.Assistants, ac)
	}
	for _, oa := range a.Assistants {
		if !seen[key(oa.Subject)] {
			c.Assistants = append(c.Assistants, AssistantChange{AssistantID: oa.Subject.AssistantID, Name: oa.Subject.Name, Status: "removed", VerdictFrom: oa.Verdict.Decision, Capabilities: []CapabilityChange{}})
			changed++
		}
	}
	switch {
	case changed == 0 && len(c.Inputs) == 0:
		c.Summary = "Nothing changed between these audits."
	case changed == 0:
		c.Summary = fmt.Sprintf("The inputs changed (%s) but no answer did.", inputsWhy)
	default:
		c.Summary = plural(changed, "assistant") + " changed"
		if inputsWhy != "" {
			c.Summary += " after " + inputsWhy
		}
		c.Summary += "."
	}
	return c
}

func capabilityChanges(a, b AssistantAudit, inputsWhy string) []CapabilityChange {
	out := []CapabilityChange{}
	find := func(rs []Result, id string) (Result, bool) {
		i := slices.IndexFunc(rs, func(r Result) bool { return r.ID == id })
		if i < 0 {
			return Result{}, false
		}
		return rs[i], true
	}
	for _, id := range CapabilityIDs {
		ra, inA := find(a.Capabilities, id)
		rb, inB := find(b.Capabilities, id)
		switch {
		case !inA && !inB:
			continue
		case !inA:
			out = append(out, CapabilityChange{ID: id, Name: rb.Name, To: rb.Category, Reason: rb.Reason, Why: "the assistant now uses it"})
		case !inB:
			out = append(out, CapabilityChange{ID: id, Name: ra.Name, From: ra.Category, Why: "the assistant no longer uses it"})
		case ra.Category != rb.Category || ra.Rule != rb.Rule:
			why := ruleWhy(ra, rb, inputsWhy)
			if ra.Category == rb.Category {
				why = "same answer, new reason: " + why
			}
			out = append(out, CapabilityChange{ID: id, Name: rb.Name, From: ra.Category, To: rb.Category, Reason: rb.Reason, Why: why})
		}
	}
	return out
}

// ruleWhy explains a changed answer from the rules that decided it.
func ruleWhy(a, b Result, inputsWhy string) string {
	var parts []string
	switch {
	case b.Rule != "" && len(b.Because) > 0:
		parts = append(parts, "now "+strings.Join(b.Because, " and "))
	case b.Rule == "" && a.Rule != "":
		parts = append(parts, "no longer: "+strings.Join(a.Because, " and "))
	}
	if a.Rule != "" && b.Rule != "" && a.Rule != b.Rule && len(a.Because) > 0 {
		parts = append(parts, "before: "+strings.Join(a.Because, " and "))
	}
	if len(parts) == 0 && inputsWhy != "" {
		parts = append(parts, "after "+inputsWhy)
	}
	if len(parts) == 0 {
		return "the catalog's rules changed"
	}
	return strings.Join(parts, "; ")
}

func verdictWhy(v Verdict) string {
	var d []string
	for _, r := range v.Reasons {
		if r.Deciding {
			d = append(d, r.Text)
		}
	}
	return strings.Join(d, " ")
}

func inputChanges(a, b Record) []Change {
	var out []Change
	add := func(field, from, to string) {
		if from != to {
			out = append(out, Change{Field: field, From: from, To: to})
		}
	}
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	optNum := func(p *float64, unit string) string {
		if p == nil {
			return "not set"
		}
		return num(*p) + unit
	}
	model := func(m *Model) string {
		if m == nil {
			return "none fits"
		}
		where := "GPU"
		if m.OnCPU {
			where = "CPU"
		}
		return fmt.Sprintf("%s on the %s", m.Name, where)
	}
	add("VRAM", bytesize.Format(a.Machine.VRAMBytes), bytesize.Format(b.Machine.VRAMBytes))
	add("RAM", bytesize.Format(a.Machine.RAMBytes), bytesize.Format(b.Machine.RAMBytes))
	add("Text model", model(a.TextModel), model(b.TextModel))
	add("Air-gapped", yes(a.Request.AirGapped), yes(b.Request.AirGapped))
	add("Data must stay local", yes(a.Request.DataMustStayLocal), yes(b.Request.DataMustStayLocal))
	add("Hours available", optNum(a.Request.HoursAvailable, " h"), optNum(b.Request.HoursAvailable, " h"))
	add("Value of an hour", optNum(a.Request.HourlyValue, ""), optNum(b.Request.HourlyValue, ""))
	add("Subscription per month", optNum(a.Request.SubscriptionPerMonth, ""), optNum(b.Request.SubscriptionPerMonth, ""))
	if a.CatalogVersion != b.CatalogVersion {
		add("Rules version", fmt.Sprint(a.CatalogVersion), fmt.Sprint(b.CatalogVersion))
	}
	if out == nil {
		out = []Change{}
	}
	return out
}

func describeChanges(cs []Change) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %s → %s", c.Field, c.From, c.To))
	}
	return strings.Join(parts, ", ")
}
