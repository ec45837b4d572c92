package audit

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"rehome/backend/bytesize"
)

//go:embed catalog.json
var catalogJSON []byte

// Category is where a capability lands.
type Category string

// The four categories, in display order.
const (
	Ports Category = "ports" // ports as-is
	// Hosts: rehome itself provides it on this machine (the sandbox,
	// the knowledge index); what is left is a little work, said in Bring.
	Hosts       Category = "hosts"
	Rebuild     Category = "rebuild"       // you rebuild it and operate it
	DoesNotPort Category = "does_not_port" // does not port
)

// Categories lists the categories in display order.
var Categories = []Category{Ports, Hosts, Rebuild, DoesNotPort}

// Label is the category in the user's words.
func (c Category) Label() string {
	switch c {
	case Ports:
		return "Ports as-is"
	case Hosts:
		return "rehome hosts it"
	case Rebuild:
		return "You rebuild"
	case DoesNotPort:
		return "Does not port"
	}
	return string(c)
}

func (c Category) valid() bool { return slices.Contains(Categories, c) }

// The capability ids of a custom GPT.
const (
	Instructions         = "instructions"
	ConversationStarters = "conversation_starters"
	Knowledge            = "knowledge"
	CodeInterpreter      = "code_interpreter"
	WebBrowsing          = "web_browsing"
	ImageGeneration      = "image_generation"
	Actions              = "actions"
	Memory               = "memory"
	Voice                = "voice"
	Vision               = "vision"
	Canvas               = "canvas"
	FileUploads          = "file_uploads"
)

// CapabilityIDs lists every capability a custom GPT can use, in display
// order. The catalog must have exactly these.
var CapabilityIDs = []string{
	Instructions, ConversationStarters, Knowledge, CodeInterpreter, WebBrowsing, ImageGeneration,
	Actions, Memory, Voice, Vision, Canvas, FileUploads,
}

// Bytes is a size in the catalog: a number of bytes or a string such as
// "6GiB", read by package bytesize, in binary units only, so the figures
// match what drivers report.
type Bytes int64

// UnmarshalJSON accepts 6442450944 or "6GiB".
func (b *Bytes) UnmarshalJSON(data []byte) error {
	var n int64
	if err := json.Unmarshal(data, &n); err == nil {
		*b = Bytes(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("size %s: want a number of bytes or a string such as \"6GiB\"", data)
	}
	v, err := bytesize.Parse(s)
	if err != nil {
		return fmt.Errorf("size %q: %w", s, err)
	}
	// The catalog's figures are compared with what drivers report, in
	// binary units: a decimal GB there would be a slip.
	unit := strings.ToLower(strings.TrimLeft(s, "0123456789. "))
	if !slices.Contains([]string{"", "b", "kib", "mib", "gib", "tib"}, unit) {
		return fmt.Errorf("size %q: write the catalog's sizes in bytes or binary units (KiB, MiB, GiB, TiB), such as \"6GiB\"", s)
	}
	*b = Bytes(v)
	return nil
}

// Cost is what moving a capability takes.
type Cost struct {
	// Hours is the one-time work: evenings spent setting it up.
	Hours float64 `json:"hours"`
	// Ops says what you operate from then on ("" when nothing).
	Ops string `json:"ops"`
	// OpsHoursPerMonth is the upkeep that operating it takes.
	OpsHoursPerMonth float64 `json:"ops_hours_per_month"`
}

// When is the condition of a rule: every field that is set must hold.
type When struct {
	AirGapped           *bool  `json:"air_gapped,omitempty"`
	DataMustStayLocal   *bool  `json:"data_must_stay_local,omitempty"`
	VRAMBelow           *Bytes `json:"vram_below_bytes,omitempty"`      // total VRAM is below
	VRAMForSecondModel  *Bytes `json:"vram_for_second_model,omitempty"` // VRAM left beside the text model is below
	TextModelBelow      *Bytes `json:"text_model_below_bytes,omitempty"`
	TextModelOnCPU      *bool  `json:"text_model_on_cpu,omitempty"`
	TextModelVision     *bool  `json:"text_model_vision,omitempty"`
	TextModelTools      *bool  `json:"text_model_tools,omitempty"`
	NoTextModel         *bool  `json:"no_text_model,omitempty"`
	ActionCallsExternal *bool  `json:"action_calls_external,omitempty"`
	ActionAuthOAuth     *bool  `json:"action_auth_oauth,omitempty"`
	BrowsingLibrary     *bool  `json:"browsing_library,omitempty"` // a Kiwix library is carried
	BrowsingEngine      *bool  `json:"browsing_engine,omitempty"`  // a search engine is set
}

// Rule changes a capability's answer when its condition holds. Fields left
// empty keep the capability's defaults.
type Rule struct {
	ID          string   `json:"id"`
	When        When     `json:"when"`
	Category    Category `json:"category,omitempty"`
	Reason      string   `json:"reason,omitempty"`
	Replacement string   `json:"replacement,omitempty"`
	Cost        *Cost    `json:"cost,omitempty"`
}

// Capability is one catalog entry.
type Capability struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Category    Category `json:"category"`
	Reason      string   `json:"reason"`
	Replacement string   `json:"replacement"`
	// Link names the rehome screen that provides the replacement ("" when
	// rehome does not provide it).
	Link  string `json:"link,omitempty"`
	Cost  Cost   `json:"cost"`
	Rules []Rule `json:"rules"`
}

// FallbackModel is a text model the audit assumes when no fit estimate is
// wired in: the largest that fits is taken.
type FallbackModel struct {
	Name      string `json:"name"`
	Tag       string `json:"tag"`
	VRAMBytes Bytes  `json:"vram_bytes"`
	RAMBytes  Bytes  `json:"ram_bytes"`
	Vision    bool   `json:"vision"`
	Tools     bool   `json:"tools"`
}

// Catalog is the rules table.
type Catalog struct {
	Version        int             `json:"version"`
	Capabilities   []Capability    `json:"capabilities"`
	FallbackModels []FallbackModel `json:"fallback_models"`
}

// Lookup returns the capability with id.
func (c *Catalog) Lookup(id string) (Capability, bool) {
	for _, cp := range c.Capabilities {
		if cp.ID == id {
			return cp, true
		}
	}
	return Capability{}, false
}

// DefaultCatalog returns the embedded catalog. It panics if the embedded
// file is broken, which the package's tests rule out.
func DefaultCatalog() *Catalog {
	c, err := ParseCatalog(catalogJSON)
	if err != nil {
		panic("audit: embedded catalog.json: " + err.Error())
	}
	return c
}

// ParseCatalog decodes and checks a catalog: unknown keys, unknown or
// missing capabilities, bad categories and placeholders are errors.
func ParseCatalog(data []byte) (*Catalog, error) {
	// The doc string at the top is for people reading the file; every other
	// key must be known, so a typo in a rule is an error, not a no-op.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	delete(top, "conditions_doc")
	clean, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	var c Catalog
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return &c, c.check()
}

var placeholderRE = regexp.MustCompile(`\{[a-z_]+\}`)

func (c *Catalog) check() error {
	var errs []error
	seen := map[string]bool{}
	for i, cp := range c.Capabilities {
		where := fmt.Sprintf("capabilities[%d] (%s)", i, cp.ID)
		if !slices.Contains(CapabilityIDs, cp.ID) {
			errs = append(errs, fmt.Errorf("%s: unknown capability id", where))
		}
		if seen[cp.ID] {
			errs = append(errs, fmt.Errorf("%s: listed twice", where))
		}
		seen[cp.ID] = true
		if cp.Name == "" || cp.Reason == "" || cp.Replacement == "" {
			errs = append(errs, fmt.Errorf("%s: name, reason and replacement are required", where))
		}
		if !cp.Category.valid() {
			errs = append(errs, fmt.Errorf("%s: category %q is not one of ports, rebuild, does_not_port", where, cp.Category))
		}
		errs = append(errs, checkText(where, cp.Reason, cp.Replacement)...)
		rules := map[string]bool{}
		for j, r := range cp.Rules {
			rw := fmt.Sprintf("%s rules[%d] (%s)", where, j, r.ID)
			if r.ID == "" || rules[r.ID] {
				errs = append(errs, fmt.Errorf("%s: every rule needs an id unique within its capability", rw))
			}
			rules[r.ID] = true
			if r.Category != "" && !r.Category.valid() {
				errs = append(errs, fmt.Errorf("%s: category %q is not one of ports, rebuild, does_not_port", rw, r.Category))
			}
			if r.When == (When{}) {
				errs = append(errs, fmt.Errorf("%s: empty when: a rule must have a condition", rw))
			}
			if r.Category == "" && r.Reason == "" && r.Replacement == "" && r.Cost == nil {
				errs = append(errs, fmt.Errorf("%s: the rule changes nothing", rw))
			}
			errs = append(errs, checkText(rw, r.Reason, r.Replacement)...)
		}
		errs = append(errs, checkSecondModel(where, cp)...)
	}
	for _, id := range CapabilityIDs {
		if !seen[id] {
			errs = append(errs, fmt.Errorf("capability %s has no catalog entry", id))
		}
	}
	return errors.Join(errs...)
}

func checkText(where string, texts ...string) []error {
	var errs []error
	for _, t := range texts {
		for _, p := range placeholderRE.FindAllString(t, -1) {
			if !slices.Contains(placeholders, p) {
				errs = append(errs, fmt.Errorf("%s: unknown placeholder %s (known: %s)", where, p, strings.Join(placeholders, " ")))
			}
		}
		if strings.TrimFunc(t, unicode.IsSpace) != t {
			errs = append(errs, fmt.Errorf("%s: text has leading or trailing space", where))
		}
	}
	return errs
}

// placeholders may appear in reasons and replacements.
var placeholders = []string{"{text_model}", "{vram}", "{ram}", "{free_vram}", "{action_hosts}", "{libraries}", "{engine}", "{zim}"}

// checkSecondModel holds every capability that needs a second model beside
// the text model (vision, image generation) to one rule. When the VRAM left
// beside the text model is too small for the second model, the two take
// turns in VRAM: slower, but it works, so that rule is "you rebuild", never
// "does not port". The second model does not port only when the GPU cannot
// hold it even alone: a rule on the total VRAM, below the same size, that
// comes first.
func checkSecondModel(where string, cp Capability) []error {
	var errs []error
	for j, r := range cp.Rules {
		if r.When.VRAMForSecondModel == nil {
			continue
		}
		need := *r.When.VRAMForSecondModel
		rw := fmt.Sprintf("%s rules[%d] (%s)", where, j, r.ID)
		if cat := r.Category; cat == DoesNotPort || (cat == "" && cp.Category == DoesNotPort) {
			errs = append(errs, fmt.Errorf("%s: no room beside the text model means taking turns in VRAM, not does_not_port", rw))
		}
		alone := slices.IndexFunc(cp.Rules[:j], func(o Rule) bool {
			return o.When.VRAMBelow != nil && *o.When.VRAMBelow == need
		})
		if alone < 0 {
			errs = append(errs, fmt.Errorf("%s: needs an earlier rule for a GPU below %s in all, where the second model cannot run even alone", rw, bytesize.Format(int64(need))))
		}
	}
	return errs
}
