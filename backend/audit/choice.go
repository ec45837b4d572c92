package audit

import (
	"fmt"
	"slices"
	"strings"

	"rehome/backend/bytesize"
)

// The needs an assistant has of its text model.
const (
	NeedVision = "vision" // it is asked about images: a model that reads them
	NeedTools  = "tools"  // it has actions: a model that calls tools
	NeedCode   = "code"   // it uses code interpreter: a model trained for code
)

// needWords says each need in the user's words.
var needWords = map[string]string{
	NeedVision: "reads images",
	NeedTools:  "calls tools",
	NeedCode:   "is trained for code",
}

// NeedText says a need and what it is for ("calls tools (for the
// actions)").
func NeedText(need string) string {
	switch need {
	case NeedVision:
		return needWords[need] + " (for vision)"
	case NeedTools:
		return needWords[need] + " (for the actions)"
	case NeedCode:
		return needWords[need] + " (for code interpreter)"
	}
	return need
}

// missWords says a missed need.
var missWords = map[string]string{
	NeedVision: "does not read images",
	NeedTools:  "has no tool calling",
	NeedCode:   "is not trained for code",
}

// Alternative is one text model the assistant could run on, with what it
// costs the assistant: the capabilities that would not port, and the work.
type Alternative struct {
	Model Model `json:"model"`
	// Why names what the model is the best of ("the best model that
	// fits", "the best that reads images").
	Why []string `json:"why"`
	// Meets and Misses are the assistant's needs the model meets and
	// misses.
	Meets  []string `json:"meets"`
	Misses []string `json:"misses"`
	// DoesNotPort lists the capabilities that would not port with it.
	DoesNotPort      []string `json:"does_not_port"`
	Hours            float64  `json:"hours"`
	OpsHoursPerMonth float64  `json:"ops_hours_per_month"`
	FirstYearHours   float64  `json:"first_year_hours"`
	Chosen           bool     `json:"chosen"`
	// Summary says it all in one line.
	Summary string `json:"summary"`
}

// ModelChoice is how the text model of one assistant was chosen: its
// needs, the alternatives with their costs, and the ruling.
type ModelChoice struct {
	Needs        []string      `json:"needs"`
	Alternatives []Alternative `json:"alternatives"`
	Reason       string        `json:"reason"`
}

// needsOf reads an assistant's needs of its text model from its features.
func needsOf(s Subject) []string {
	needs := []string{}
	if slices.Contains(s.Features, Vision) {
		needs = append(needs, NeedVision)
	}
	if slices.Contains(s.Features, Actions) {
		needs = append(needs, NeedTools)
	}
	if slices.Contains(s.Features, CodeInterpreter) {
		needs = append(needs, NeedCode)
	}
	return needs
}

func meets(m Model, need string) bool {
	switch need {
	case NeedVision:
		return m.Vision
	case NeedTools:
		return m.Tools
	case NeedCode:
		return m.Coder
	}
	return false
}

// choose picks the text model for subject s from the candidates that fit
// (best first): the best overall, and the best that meets each need (and
// all of them together) are the alternatives. Each is costed by running
// the rules with it; the one that leaves the fewest capabilities behind
// wins, then the least work in the first year, then the one meeting more
// needs, then the better model.
func choose(cat *Catalog, req Request, machine Machine, s Subject, candidates []Model) (*Model, ModelChoice) {
	ch := ModelChoice{Needs: needsOf(s), Alternatives: []Alternative{}}
	if len(candidates) == 0 {
		ch.Reason = "No text model fits this machine."
		return nil, ch
	}
	add := func(why string, ok func(Model) bool) {
		i := slices.IndexFunc(candidates, ok)
		if i < 0 {
			return
		}
		m := candidates[i]
		for k := range ch.Alternatives {
			if sameModel(ch.Alternatives[k].Model, m) {
				ch.Alternatives[k].Why = append(ch.Alternatives[k].Why, why)
				return
			}
		}
		ch.Alternatives = append(ch.Alternatives, Alternative{Model: m, Why: []string{why}})
	}
	add("the best model that fits", func(Model) bool { return true })
	all := func(m Model) bool {
		for _, n := range ch.Needs {
			if !meets(m, n) {
				return false
			}
		}
		return true
	}
	if len(ch.Needs) > 1 {
		add("the best that meets every need", all)
	}
	for _, n := range ch.Needs {
		add("the best that "+needWords[n], func(m Model) bool { return meets(m, n) })
	}
	if len(ch.Needs) > 2 {
		// Vision, tools and code: a coder model that calls tools is worth
		// weighing against one that reads images.
		add("the best trained for code that calls tools", func(m Model) bool { return m.Coder && m.Tools })
	}
	for i := range ch.Alternatives {
		costAlternative(cat, req, machine, s, &ch.Alternatives[i])
	}
	best := 0
	for i := 1; i < len(ch.Alternatives); i++ {
		if better(ch.Alternatives[i], ch.Alternatives[best]) {
			best = i
		}
	}
	ch.Alternatives[best].Chosen = true
	ch.Reason = choiceReason(cat, ch, best)
	m := ch.Alternatives[best].Model
	return &m, ch
}

func sameModel(a, b Model) bool {
	return a.ID == b.ID && a.Name == b.Name && a.Quant == b.Quant && a.OnCPU == b.OnCPU
}

// costAlternative runs the assistant's capabilities with alternative a's
// model and fills in what it costs.
func costAlternative(cat *Catalog, req Request, machine Machine, s Subject, a *Alternative) {
	a.Meets, a.Misses, a.DoesNotPort = []string{}, []string{}, []string{}
	for _, need := range needsOf(s) {
		if meets(a.Model, need) {
			a.Meets = append(a.Meets, need)
		} else {
			a.Misses = append(a.Misses, need)
		}
	}
	m := a.Model
	results := evaluateSubject(cat, req, machine, &m, s)
	e := economics(results, req)
	for _, r := range results {
		if r.Category == DoesNotPort {
			a.DoesNotPort = append(a.DoesNotPort, r.ID)
		}
	}
	a.Hours, a.OpsHoursPerMonth, a.FirstYearHours = e.Hours, e.OpsHoursPerMonth, e.FirstYearHours
	where := bytesize.Format(m.VRAMBytes) + " of VRAM"
	if m.OnCPU {
		where = bytesize.Format(m.RAMBytes) + " of RAM, on the CPU"
	}
	var parts []string
	parts = append(parts, fmt.Sprintf("%s: %s", m.Name, where))
	for _, n := range a.Meets {
		parts = append(parts, needWords[n])
	}
	for _, n := range a.Misses {
		parts = append(parts, missWords[n])
	}
	cost := fmt.Sprintf("%s h of work + %s h/month", num(a.Hours), num(a.OpsHoursPerMonth))
	if len(a.DoesNotPort) > 0 {
		_, names := names(results, func(r Result) bool { return r.Category == DoesNotPort })
		cost += "; does not port: " + names
	} else {
		cost += "; everything ports or is rebuilt"
	}
	a.Summary = strings.Join(parts, "; ") + " — " + cost
}

// better reports whether a is a better choice than b.
func better(a, b Alternative) bool {
	if len(a.DoesNotPort) != len(b.DoesNotPort) {
		return len(a.DoesNotPort) < len(b.DoesNotPort)
	}
	if a.FirstYearHours != b.FirstYearHours {
		return a.FirstYearHours < b.FirstYearHours
	}
	if len(a.Meets) != len(b.Meets) {
		return len(a.Meets) > len(b.Meets)
	}
	return a.Model.Score > b.Model.Score
}

// choiceReason says why the chosen alternative won.
func choiceReason(cat *Catalog, ch ModelChoice, best int) string {
	c := ch.Alternatives[best]
	if len(ch.Alternatives) == 1 {
		if len(ch.Needs) == 0 {
			return fmt.Sprintf("%s is the best model that fits; the assistant needs nothing particular of it.", c.Model.Name)
		}
		if len(c.Misses) == 0 {
			return fmt.Sprintf("%s is the best model that fits and it meets every need: it %s.", c.Model.Name, needList(c.Meets))
		}
		var miss []string
		for _, n := range c.Misses {
			miss = append(miss, missWords[n])
		}
		return fmt.Sprintf("%s is the best model that fits, though it %s: no model that fits does better.", c.Model.Name, strings.Join(miss, " and "))
	}
	var against []string
	for i, a := range ch.Alternatives {
		if i == best {
			continue
		}
		switch {
		case len(a.DoesNotPort) > len(c.DoesNotPort):
			against = append(against, fmt.Sprintf("%s would leave %s behind", a.Model.Name, capList(cat, a.DoesNotPort)))
		case a.FirstYearHours > c.FirstYearHours:
			against = append(against, fmt.Sprintf("%s would take %s h more work in the first year", a.Model.Name, num(a.FirstYearHours-c.FirstYearHours)))
		case len(a.Meets) < len(c.Meets):
			var miss []string
			for _, n := range missing(c.Meets, a.Meets) {
				miss = append(miss, missWords[n])
			}
			against = append(against, fmt.Sprintf("%s costs the same but %s", a.Model.Name, strings.Join(miss, " and ")))
		default:
			against = append(against, fmt.Sprintf("%s costs the same and is the smaller model", a.Model.Name))
		}
	}
	why := fmt.Sprintf("%s (%s)", c.Model.Name, strings.Join(c.Why, ", "))
	return fmt.Sprintf("Chose %s: %s.", why, strings.Join(against, "; "))
}

func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}

func needList(needs []string) string {
	w := make([]string, len(needs))
	for i, n := range needs {
		w[i] = needWords[n]
	}
	return strings.Join(w, " and ")
}

func capList(cat *Catalog, ids []string) string {
	w := make([]string, len(ids))
	for i, id := range ids {
		w[i] = id
		if cp, ok := cat.Lookup(id); ok {
			w[i] = lower(cp.Name)
		}
	}
	return strings.Join(w, ", ")
}
