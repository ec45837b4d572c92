package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"rehome/backend/assistant"
	"rehome/backend/bytesize"
	"rehome/backend/hardware"
	"rehome/backend/store"
)

// FitAdvisor lists the text models an assistant could run on: every one
// that fits vramBytes of VRAM (or, when none does, ramBytes of system RAM
// on the CPU), best first; none when nothing fits. The audit then chooses
// per assistant, for its needs. ModelsAdvisor adapts the hardware/models
// fit estimate; FallbackAdvisor stands in where that is not wired.
type FitAdvisor interface {
	Candidates(vramBytes, ramBytes int64) []Model
}

// Detector reports this machine's memory.
type Detector interface {
	Detect(ctx context.Context) (Machine, error)
}

// DetectorFunc adapts a function to Detector.
type DetectorFunc func(ctx context.Context) (Machine, error)

// Detect calls f.
func (f DetectorFunc) Detect(ctx context.Context) (Machine, error) { return f(ctx) }

// Assistants is where the audited assistants come from.
type Assistants interface {
	Get(id string) (assistant.Assistant, error)
	List() ([]assistant.Assistant, error)
}

// FallbackAdvisor picks from the catalog's short fallback list: the largest
// model that fits in VRAM, else the largest that fits in RAM (on the CPU).
type FallbackAdvisor struct{ Catalog *Catalog }

// Candidates implements FitAdvisor.
func (f FallbackAdvisor) Candidates(vram, ram int64) []Model {
	var out []Model
	n := float64(len(f.Catalog.FallbackModels))
	for i, m := range f.Catalog.FallbackModels {
		if int64(m.VRAMBytes) <= vram {
			out = append(out, Model{Name: m.Name, Tag: m.Tag, VRAMBytes: int64(m.VRAMBytes), Vision: m.Vision, Tools: m.Tools, Score: n - float64(i), Source: "rehome's fallback table"})
		}
	}
	if len(out) > 0 {
		return out
	}
	for i, m := range f.Catalog.FallbackModels {
		if int64(m.RAMBytes) <= ram {
			out = append(out, Model{Name: m.Name, Tag: m.Tag, RAMBytes: int64(m.RAMBytes), OnCPU: true, Vision: m.Vision, Tools: m.Tools, Score: n - float64(i), Source: "rehome's fallback table"})
		}
	}
	return out
}

// MachineFromReport turns a hardware detection into the audit's snapshot.
// VRAM that the driver does not expose leaves the GPU out of the total and
// says so in Notes; a machine with no GPU has 0 VRAM, which is known.
func MachineFromReport(r hardware.Report) (Machine, bool) {
	vram, unified, _ := r.TotalVRAM()
	m := Machine{
		VRAMBytes: vram, RAMBytes: r.Memory.TotalBytes, VRAMSource: "detected", RAMSource: "detected",
		Unified: unified, GPUs: []string{}, Notes: slices.Clone(r.Notes),
	}
	if m.Notes == nil {
		m.Notes = []string{}
	}
	known := true
	for _, g := range r.GPUs {
		desc := fmt.Sprintf("%s %s", g.Vendor, g.Product)
		if g.VRAMKnown() {
			desc += fmt.Sprintf(" (%s, %s)", bytesize.Format(g.VRAMTotalBytes), g.VRAMSource)
		} else {
			desc += " (VRAM unknown)"
			known = false
		}
		m.GPUs = append(m.GPUs, desc)
	}
	if r.Memory.TotalBytes == 0 {
		m.RAMSource = "unknown"
	}
	// A GPU whose memory cannot be read makes the total a guess: only
	// a machine where every GPU (or none) is measured counts as known.
	return m, known
}

// HardwareDetector adapts a hardware.Cache to Detector.
func HardwareDetector(c *hardware.Cache) Detector {
	return DetectorFunc(func(ctx context.Context) (Machine, error) {
		r, err := c.Report(ctx)
		if err != nil {
			return Machine{}, err
		}
		m, known := MachineFromReport(r)
		if !known {
			return m, &NeedVRAMError{GPUs: m.GPUs, Why: fmt.Sprintf("rehome found %v but cannot read its memory (it is on the card's box, or in `nvidia-smi`)", m.GPUs)}
		}
		return m, nil
	})
}

// Options configure a Service. Zero fields take defaults: the embedded
// catalog, the fallback advisor, no detection.
type Options struct {
	Catalog  *Catalog
	Advisor  FitAdvisor
	Detector Detector
	Now      func() time.Time
	// Browsing says what the machine browses with (nil: nothing).
	Browsing func() Browsing
	// MCP lists an assistant's MCP servers (nil: none).
	MCP func(assistantID string) []MCPServer
	// Conversations counts, by assistant id, the conversations moved from
	// ChatGPT that are filed under each (nil: none known); read once per
	// audit, whatever the number of assistants.
	Conversations func() map[string]int
}

// Service runs audits and keeps their history in the store.
type Service struct {
	st         *store.Store
	assistants Assistants
	catalog    *Catalog
	advisor    FitAdvisor
	detector   Detector
	now        func() time.Time
	browsing   func() Browsing
	mcp        func(assistantID string) []MCPServer
	convs      func() map[string]int
}

// NewService returns a Service storing audits in st and reading assistants
// from as.
func NewService(st *store.Store, as Assistants, opts Options) *Service {
	s := &Service{st: st, assistants: as, catalog: opts.Catalog, advisor: opts.Advisor, detector: opts.Detector, now: opts.Now, browsing: opts.Browsing, mcp: opts.MCP, convs: opts.Conversations}
	if s.catalog == nil {
		s.catalog = DefaultCatalog()
	}
	if s.advisor == nil {
		s.advisor = FallbackAdvisor{Catalog: s.catalog}
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Catalog returns the rules the service audits with.
func (s *Service) Catalog() *Catalog { return s.catalog }

// Machine resolves the memory an audit reasons about: what the request
// gives, the rest detected when it asks for that. Unknown VRAM is an error
// wrapping ErrNeedVRAM.
func (s *Service) Machine(ctx context.Context, req Request) (Machine, error) {
	m := Machine{VRAMSource: "given", RAMSource: "given", GPUs: []string{}, Notes: []string{}}
	needDetect := req.VRAMBytes == nil || req.RAMBytes == nil
	if needDetect && req.Detect {
		if s.detector == nil {
			return Machine{}, &NeedVRAMError{Why: "hardware detection is not available here"}
		}
		d, err := s.detector.Detect(ctx)
		if err != nil {
			if req.VRAMBytes == nil {
				return Machine{}, err
			}
		} else {
			m = d
		}
	}
	if req.VRAMBytes != nil {
		// The detected GPUs and their notes describe this machine, not the
		// one the user asks about.
		m.VRAMBytes, m.VRAMSource, m.GPUs, m.Notes, m.Unified = *req.VRAMBytes, "given", []string{}, []string{}, false
	} else if !req.Detect {
		return Machine{}, &NeedVRAMError{Why: "it was neither given nor detected, and the audit says nothing before it knows"}
	}
	if req.RAMBytes != nil {
		m.RAMBytes, m.RAMSource = *req.RAMBytes, "given"
	} else if m.RAMSource != "detected" {
		m.RAMSource = "unknown"
		m.Notes = append(m.Notes, "RAM was not given, so running the model on the CPU was not considered.")
	}
	return m, nil
}

// Subjects resolves what req audits: the named or all stored assistants,
// then the hand-ticked features as one more subject.
func (s *Service) Subjects(req Request) ([]Subject, error) {
	var out []Subject
	var moved map[string]int
	if s.convs != nil && (req.All || len(req.AssistantIDs) > 0) {
		moved = s.convs()
	}
	switch {
	case req.All:
		if s.assistants == nil {
			return nil, errors.New("no assistants are available to audit")
		}
		all, err := s.assistants.List()
		if err != nil {
			return nil, err
		}
		if len(all) == 0 && len(req.Features) == 0 {
			return nil, errors.New("there are no stored assistants: import one with `rehome assistants import FILE`, or tick features by hand")
		}
		// Oldest first reads like the list the user built.
		for i := len(all) - 1; i >= 0; i-- {
			out = append(out, s.subjectFor(all[i], moved))
		}
	default:
		for _, id := range req.AssistantIDs {
			if s.assistants == nil {
				return nil, errors.New("no assistants are available to audit")
			}
			a, err := s.assistants.Get(id)
			if err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return nil, fmt.Errorf("assistant %q not found: see `rehome assistants list` for the ids", id)
				}
				return nil, err
			}
			out = append(out, s.subjectFor(a, moved))
		}
	}
	if len(req.Features) > 0 {
		m, err := ManualSubject(req.Label, req.Features, req.ActionsLocal)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// subjectFor is SubjectFor with the assistant's MCP servers and the
// conversations moved from ChatGPT under it (moved, by assistant id).
func (s *Service) subjectFor(a assistant.Assistant, moved map[string]int) Subject {
	sub := SubjectFor(a)
	if s.mcp != nil {
		sub.MCP = s.mcp(a.ID)
	}
	sub.Conversations = moved[a.ID]
	return sub
}

// Evaluate runs an audit without storing it.
func (s *Service) Evaluate(ctx context.Context, req Request) (Record, error) {
	if err := req.check(); err != nil {
		return Record{}, err
	}
	subjects, err := s.Subjects(req)
	if err != nil {
		return Record{}, err
	}
	if req.Features, err = NormalizeFeatures(req.Features); err != nil {
		return Record{}, err
	}
	if len(subjects) == 0 {
		return Record{}, errors.New("nothing to audit: pick an assistant or tick the features it uses")
	}
	m, err := s.Machine(ctx, req)
	if err != nil {
		return Record{}, err
	}
	if s.browsing != nil {
		m.Browsing = s.browsing()
	}
	return BuildChoosing(s.catalog, req, m, s.advisor.Candidates(m.VRAMBytes, m.RAMBytes), subjects)
}

// Run audits req and stores the record.
func (s *Service) Run(ctx context.Context, req Request) (Record, error) {
	rec, err := s.Evaluate(ctx, req)
	if err != nil {
		return Record{}, err
	}
	rec.ID = store.NewID()
	rec.Created = s.now().UTC()
	if err := s.st.Put(store.Audits, rec.ID, rec); err != nil {
		return Record{}, fmt.Errorf("store the audit: %w", err)
	}
	return rec, nil
}

// List returns up to limit stored audits (all when limit <= 0), newest
// first.
func (s *Service) List(limit int) ([]Record, error) {
	return store.List[Record](s.st, store.Audits, limit)
}

// Get returns the stored audit id.
func (s *Service) Get(id string) (Record, error) {
	var r Record
	if err := s.st.Get(store.Audits, id, &r); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Record{}, fmt.Errorf("audit %q not found: see `rehome audit list` for the ids: %w", id, store.ErrNotFound)
		}
		return Record{}, err
	}
	if err := store.CheckSchema(store.Audits, id, r.Schema, SchemaVersion); err != nil {
		return Record{}, err
	}
	return r, nil
}

// Delete removes the stored audit id.
func (s *Service) Delete(id string) error { return s.st.Delete(store.Audits, id) }

// Compare compares two stored audits, a the older by default.
func (s *Service) Compare(a, b string) (Comparison, error) {
	ra, err := s.Get(a)
	if err != nil {
		return Comparison{}, err
	}
	rb, err := s.Get(b)
	if err != nil {
		return Comparison{}, err
	}
	return Compare(ra, rb), nil
}

// NotAuditedError is Latest's error for an assistant no audit covers yet;
// it matches store.ErrNotFound. Each face adds how to audit it.
type NotAuditedError struct {
	// AssistantID is the assistant's id.
	AssistantID string
}

// Error names the assistant and says it has no audit yet.
func (e *NotAuditedError) Error() string {
	return fmt.Sprintf("assistant %q has not been audited yet", e.AssistantID)
}

// Unwrap makes the error match store.ErrNotFound.
func (e *NotAuditedError) Unwrap() error { return store.ErrNotFound }

// Latest returns the newest stored audit that covers assistant id.
func (s *Service) Latest(assistantID string) (Record, AssistantAudit, error) {
	var found Record
	var aa AssistantAudit
	ok := false
	err := s.st.Each(store.Audits, func(_ string, raw []byte) (bool, error) {
		var r Record
		if err := json.Unmarshal(raw, &r); err != nil {
			return false, err
		}
		for _, x := range r.Assistants {
			if x.Subject.AssistantID == assistantID {
				found, aa, ok = r, x, true
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return Record{}, AssistantAudit{}, err
	}
	if !ok {
		return Record{}, AssistantAudit{}, &NotAuditedError{AssistantID: assistantID}
	}
	return found, aa, nil
}
