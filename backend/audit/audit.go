package audit

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// withDefaults fills the economics defaults, so a stored record shows the
// figures it used.
func (r Request) withDefaults() Request {
	if r.HourlyValue == nil {
		v := float64(DefaultHourlyValue)
		r.HourlyValue = &v
	}
	if r.SubscriptionPerMonth == nil {
		v := float64(DefaultSubscription)
		r.SubscriptionPerMonth = &v
	}
	if r.AssistantIDs == nil {
		r.AssistantIDs = []string{}
	}
	if r.Features == nil {
		r.Features = []string{}
	}
	return r
}

// check rejects inputs that cannot be right.
func (r Request) check() error {
	switch {
	case r.VRAMBytes != nil && *r.VRAMBytes < 0:
		return errors.New("VRAM cannot be negative: give it as 8GiB, or 0 for no GPU")
	case r.RAMBytes != nil && *r.RAMBytes < 0:
		return errors.New("RAM cannot be negative: give it as 32GiB")
	case r.HoursAvailable != nil && (*r.HoursAvailable < 0 || math.IsNaN(*r.HoursAvailable)):
		return errors.New("hours available cannot be negative")
	case r.HourlyValue != nil && (*r.HourlyValue < 0 || math.IsNaN(*r.HourlyValue)):
		return errors.New("the value of an hour cannot be negative")
	case r.SubscriptionPerMonth != nil && (*r.SubscriptionPerMonth < 0 || math.IsNaN(*r.SubscriptionPerMonth)):
		return errors.New("the subscription price cannot be negative")
	}
	return nil
}

// Build evaluates the catalog for each subject on machine with model (nil
// when none fits) and returns the record without id and time. It is pure:
// the same inputs give the same record.
func Build(cat *Catalog, req Request, machine Machine, model *Model, subjects []Subject) (Record, error) {
	var candidates []Model
	if model != nil {
		candidates = []Model{*model}
	}
	return BuildChoosing(cat, req, machine, candidates, subjects)
}

// BuildChoosing is Build with the text models that fit this machine (best
// first): each subject gets the one that suits its needs (see choose),
// with the alternatives and what each costs.
func BuildChoosing(cat *Catalog, req Request, machine Machine, candidates []Model, subjects []Subject) (Record, error) {
	req = req.withDefaults()
	if err := req.check(); err != nil {
		return Record{}, err
	}
	if len(subjects) == 0 {
		return Record{}, errors.New("nothing to audit: pick an assistant or tick the features it uses")
	}
	for _, s := range subjects {
		for _, id := range s.Features {
			if _, ok := cat.Lookup(id); !ok {
				return Record{}, fmt.Errorf("capability %s has no catalog entry", id)
			}
		}
	}
	rec := Record{
		Schema: SchemaVersion, Request: req, Machine: machine,
		CatalogVersion: cat.Version, Assistants: []AssistantAudit{}, Across: []CapabilityUse{},
	}
	for i, s := range subjects {
		model, choice := choose(cat, req, machine, s, candidates)
		if i == 0 {
			rec.TextModel = model
		}
		aa := AssistantAudit{Subject: s, TextModel: model, Choice: &choice, Capabilities: evaluateSubject(cat, req, machine, model, s)}
		aa.Economics = economics(aa.Capabilities, req)
		aa.Verdict = verdict(aa, req, model)
		aa.MCP = mcpTools(s, req)
		rec.Assistants = append(rec.Assistants, aa)
	}
	rec.Across = across(cat, rec.Assistants)
	rec.Summary = summarize(rec.Assistants)
	return rec, nil
}

// evaluateSubject answers for each of s's features with model as the text
// model, and says what must be brought for it.
func evaluateSubject(cat *Catalog, req Request, machine Machine, model *Model, s Subject) []Result {
	f := Facts{
		AirGapped: req.AirGapped, DataMustStayLocal: req.DataMustStayLocal,
		VRAMBytes: machine.VRAMBytes, RAMBytes: machine.RAMBytes, TextModel: model,
		ActionHosts: s.ActionHosts, ActionUnknownURL: s.ActionUnknownURL, ActionOAuth: s.ActionOAuth,
		Libraries: machine.Browsing.Libraries, Engine: machine.Browsing.Engine, ZIM: zimWords(s),
	}
	out := []Result{}
	for _, id := range s.Features {
		cp, ok := cat.Lookup(id)
		if !ok {
			continue
		}
		r := Evaluate(cp, f)
		if r.Category != DoesNotPort {
			r.Bring = bring(s, id)
		}
		r.OnChatGPT = onChatGPT(s, id)
		out = append(out, r)
	}
	return out
}

// bring says which files a stored assistant's capability still needs
// brought onto this machine: knowledge that came without its files, and
// files code interpreter works on that stayed on OpenAI's servers.
func bring(s Subject, id string) string {
	if s.AssistantID == "" {
		return ""
	}
	if id == Knowledge {
		if b := bringGPTFiles(s); b != "" {
			return b
		}
		if len(gptFiles(s.RemoteFiles, false)) > 0 && s.KnowledgeFiles > 0 {
			return "" // every file the GPT listed is here
		}
	}
	var files, stores []string
	for _, rf := range s.RemoteFiles {
		if string(rf.Tool) != id || rf.Kind == gptFileKind {
			continue
		}
		if rf.Kind == "vector_store" {
			stores = append(stores, rf.ID)
		} else {
			files = append(files, rf.ID)
		}
	}
	var where []string
	if len(stores) > 0 {
		where = append(where, "vector store "+strings.Join(stores, ", "))
	}
	if len(files) > 0 {
		where = append(where, "file "+strings.Join(files, ", "))
	}
	how := "download them (OpenAI dashboard → Storage, or the Files API) and attach them when you import the assistant (`rehome assistants import FILE --knowledge PATH`, or the Import panel)"
	switch {
	case id == Knowledge && s.KnowledgeFiles == 0 && len(where) > 0:
		return fmt.Sprintf("Bring the files first: they are still on OpenAI's servers (%s); %s.", strings.Join(where, "; "), how)
	case id == Knowledge && s.KnowledgeFiles == 0:
		return "Bring the files first: file search is on but no knowledge files came with the assistant; collect the files it searched (from the GPT editor's Knowledge section) and attach them when you import it."
	case id == Knowledge && len(where) > 0:
		return fmt.Sprintf("Bring the rest of its files: some are still on OpenAI's servers (%s); %s.", strings.Join(where, "; "), how)
	case len(where) > 0:
		return fmt.Sprintf("Bring the files it works on: they are still on OpenAI's servers (%s); %s.", strings.Join(where, "; "), how)
	}
	return ""
}

func economics(results []Result, req Request) Economics {
	e := Economics{HourlyValue: *req.HourlyValue, SubscriptionPerMonth: *req.SubscriptionPerMonth, HoursAvailable: req.HoursAvailable}
	for _, r := range results {
		if r.Category == DoesNotPort {
			continue
		}
		e.Hours += r.Cost.Hours
		e.OpsHoursPerMonth += r.Cost.OpsHoursPerMonth
	}
	e.FirstYearHours = e.Hours + 12*e.OpsHoursPerMonth
	e.FirstYearCost = e.FirstYearHours * e.HourlyValue
	e.SubscriptionPerYear = 12 * e.SubscriptionPerMonth
	e.OverHours = req.HoursAvailable != nil && e.Hours > *req.HoursAvailable
	e.Sum = fmt.Sprintf("%s h of work + %s h/month upkeep × 12 = %s h in the first year × %s/h = %s, against a subscription of %s/month × 12 = %s",
		num(e.Hours), num(e.OpsHoursPerMonth), num(e.FirstYearHours), num(e.HourlyValue), num(e.FirstYearCost),
		num(e.SubscriptionPerMonth), num(e.SubscriptionPerYear))
	return e
}

// num prints a figure without needless decimals.
func num(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

func names(results []Result, keep func(Result) bool) (ids []string, list string) {
	var n []string
	ids = []string{}
	for _, r := range results {
		if keep(r) {
			ids = append(ids, r.ID)
			n = append(n, strings.ToLower(r.Name[:1])+r.Name[1:])
		}
	}
	return ids, strings.Join(n, ", ")
}

// verdict weighs the categories and the economics. Data that must stay on
// the machine, or a machine with no network, rule ChatGPT out, so only the
// hardware can argue for keeping; otherwise the hours and their value are
// weighed against the subscription.
func verdict(aa AssistantAudit, req Request, model *Model) Verdict {
	e := aa.Economics
	v := Verdict{StaysBehind: []string{}, Reasons: []Reason{}}
	add := func(side, text string, deciding bool) {
		v.Reasons = append(v.Reasons, Reason{Side: side, Text: text, Deciding: deciding})
	}
	hoursSaid := false // whether a reason already weighs the hours
	blocked, blockedNames := names(aa.Capabilities, func(r Result) bool { return r.Category == DoesNotPort })
	rebuild, rebuildNames := names(aa.Capabilities, func(r Result) bool { return r.Category == Rebuild })
	mustMove := req.DataMustStayLocal || req.AirGapped

	switch {
	case model == nil:
		v.Decision = Keep
		v.StaysBehind = blocked
		add("against", "No text model fits this machine: there is nothing to run the assistant on. Add VRAM or RAM, then audit again.", true)
		if mustMove {
			add("for", "The data may not go to ChatGPT either, so until the hardware changes this assistant cannot be used on that data.", false)
		}
	case mustMove:
		if req.DataMustStayLocal {
			add("for", "The data may not leave this machine, so ChatGPT is not an option for it.", true)
		}
		if req.AirGapped {
			add("for", "The machine is air-gapped: ChatGPT cannot be reached from it at all.", true)
		}
		if e.OverHours {
			add("against", fmt.Sprintf("Rebuilding takes about %s h and you set %s h; with the data bound to this machine that is the price of using it.", num(e.Hours), num(*e.HoursAvailable)), false)
			hoursSaid = true
		}
		v.Decision, v.StaysBehind = Move, blocked
		if len(blocked) > 0 {
			v.Decision = MoveInPart
			add("against", "Does not port here, so it is given up: "+blockedNames+".", true)
		}
	default:
		add("for", "Local weights do not change under you: the model, its behaviour and its cost stay as you pinned them, while ChatGPT retires models and features on its own schedule.", false)
		switch {
		case e.OverHours && len(rebuild) > 0:
			// Move only what needs no rebuilding; the rest stays on ChatGPT.
			add("against", fmt.Sprintf("Rebuilding %s takes about %s h, more than the %s h you set.", rebuildNames, num(e.Hours), num(*e.HoursAvailable)), true)
			hoursSaid = true
			v.Decision = MoveInPart
			v.StaysBehind = append(append([]string{}, blocked...), rebuild...)
			if len(v.StaysBehind) >= len(aa.Capabilities)-1 {
				// Only the instructions would move: not worth calling a move.
				v.Decision = Keep
			}
		case e.SubscriptionPerYear > 0 && e.FirstYearCost > e.SubscriptionPerYear:
			add("against", fmt.Sprintf("The work costs more than the subscription in the first year: %s.", e.Sum), true)
			hoursSaid = true
			v.Decision, v.StaysBehind = Keep, blocked
		default:
			if e.SubscriptionPerYear > 0 {
				add("for", fmt.Sprintf("The work costs less than the subscription in the first year: %s.", e.Sum), true)
				hoursSaid = true
			} else {
				add("for", "No subscription price is set, so there is nothing to weigh the hours against.", false)
			}
			v.Decision, v.StaysBehind = Move, blocked
			if len(blocked) > 0 {
				v.Decision = MoveInPart
				add("against", "Does not port here and stays on ChatGPT: "+blockedNames+".", true)
			}
		}
	}
	if model != nil && e.Hours > 0 && !hoursSaid {
		add("against", fmt.Sprintf("Moving takes about %s h of work and %s h a month of upkeep.", num(e.Hours), num(e.OpsHoursPerMonth)), false)
	}
	v.Label = v.Decision.Label()
	v.Headline = headline(v, aa.Capabilities, len(rebuild) > 0, rebuildNames)
	return v
}

// headline is the verdict in one line: what moves, after what, and what
// stays behind.
func headline(v Verdict, caps []Result, toRebuild bool, rebuildNames string) string {
	h := ""
	switch v.Decision {
	case Move:
		h = "Move: everything it uses runs on this machine."
		if toRebuild {
			h = fmt.Sprintf("Move: everything it uses runs here, after you rebuild %s.", rebuildNames)
		}
		if filesBehind(caps) {
			h = strings.TrimSuffix(h, ".") + ", once you bring the files that stayed on OpenAI."
		}
	case MoveInPart:
		_, behind := names(caps, func(r Result) bool { return slices.Contains(v.StaysBehind, r.ID) })
		h = fmt.Sprintf("Move in part: %s stays behind.", behind)
	case Keep:
		h = "Keep it on ChatGPT for now."
	}
	return h
}

func across(cat *Catalog, audits []AssistantAudit) []CapabilityUse {
	out := []CapabilityUse{}
	for _, id := range CapabilityIDs {
		cp, _ := cat.Lookup(id)
		row := CapabilityUse{ID: id, Name: cp.Name, Users: []Use{}}
		for _, aa := range audits {
			for _, r := range aa.Capabilities {
				if r.ID == id {
					row.Users = append(row.Users, Use{AssistantID: aa.Subject.AssistantID, Name: aa.Subject.Name, Category: r.Category, Decision: aa.Verdict.Decision})
				}
			}
		}
		if len(row.Users) > 0 {
			out = append(out, row)
		}
	}
	return out
}

func summarize(audits []AssistantAudit) Summary {
	var s Summary
	for _, aa := range audits {
		switch aa.Verdict.Decision {
		case Move:
			s.Move++
		case MoveInPart:
			s.MoveInPart++
		case Keep:
			s.Keep++
		}
	}
	parts := []string{}
	if s.Move > 0 {
		parts = append(parts, fmt.Sprintf("%d to move", s.Move))
	}
	if s.MoveInPart > 0 {
		parts = append(parts, fmt.Sprintf("%d to move in part", s.MoveInPart))
	}
	if s.Keep > 0 {
		parts = append(parts, fmt.Sprintf("%d to keep", s.Keep))
	}
	s.Headline = strings.Join(parts, ", ") + "."
	if s.Keep+s.MoveInPart > 0 && len(audits) > 1 {
		s.Headline += " The subscription stays while any assistant, or any part of one, stays on ChatGPT."
	}
	return s
}
