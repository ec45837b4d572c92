package audit

import (
	"time"
)

// SchemaVersion is the version of the audit Record this build writes.
const SchemaVersion = 1

// Defaults for the economics when the user sets none: an hour of their
// time, and ChatGPT Plus per month (in the user's currency; rehome does no
// conversion).
const (
	DefaultHourlyValue  = 50
	DefaultSubscription = 20
)

// Request is what the user asks an audit about and the context that
// changes the answer. Pointers are "not given".
type Request struct {
	// AssistantIDs are stored assistants to audit; All audits every one.
	AssistantIDs []string `json:"assistant_ids"`
	All          bool     `json:"all"`
	// Features are capabilities ticked by hand, audited as one more column
	// named Label. ActionsLocal says hand-ticked actions stay on this
	// machine or network.
	Features     []string `json:"features"`
	Label        string   `json:"label,omitempty"`
	ActionsLocal bool     `json:"actions_local,omitempty"`
	// VRAMBytes and RAMBytes are given by hand; nil means unknown. Detect
	// fills unknown ones from the detected hardware.
	VRAMBytes *int64 `json:"vram_bytes"`
	RAMBytes  *int64 `json:"ram_bytes"`
	Detect    bool   `json:"detect"`
	// AirGapped: the machine has no network. DataMustStayLocal: the data
	// the assistant works on may not leave the machine.
	AirGapped         bool `json:"air_gapped"`
	DataMustStayLocal bool `json:"data_must_stay_local"`
	// HoursAvailable is the work the user is willing to put in (nil: no
	// limit given). HourlyValue is what an hour of it is worth, and
	// SubscriptionPerMonth what ChatGPT costs them; nil takes the defaults.
	HoursAvailable       *float64 `json:"hours_available"`
	HourlyValue          *float64 `json:"hourly_value"`
	SubscriptionPerMonth *float64 `json:"subscription_per_month"`
}

// Machine is the hardware snapshot an audit reasoned about.
type Machine struct {
	VRAMBytes int64 `json:"vram_bytes"`
	RAMBytes  int64 `json:"ram_bytes"`
	// VRAMSource and RAMSource are "given" or "detected" ("unknown" for RAM
	// that was neither).
	VRAMSource string   `json:"vram_source"`
	RAMSource  string   `json:"ram_source"`
	Unified    bool     `json:"unified"`
	GPUs       []string `json:"gpus"`
	Notes      []string `json:"notes"`
	// Browsing is what the machine browses with (browsing.go).
	Browsing Browsing `json:"browsing"`
}

// NeedVRAMError is an audit that cannot start because the VRAM is unknown,
// with why; it wraps ErrNeedVRAM. Each face says how to give the figure
// (the CLI its --vram flag, the UI its VRAM field).
type NeedVRAMError struct {
	// GPUs are the GPUs found whose memory cannot be read (none when
	// nothing was detected).
	GPUs []string
	// Why says what is missing, in the domain's words.
	Why string
}

// Error says that the VRAM is unknown, and why.
func (e *NeedVRAMError) Error() string { return ErrNeedVRAM.Error() + ": " + e.Why }

// Unwrap returns ErrNeedVRAM.
func (e *NeedVRAMError) Unwrap() error { return ErrNeedVRAM }

// Decision is a verdict for one assistant.
type Decision string

// The verdicts.
const (
	Move       Decision = "move"
	MoveInPart Decision = "move_in_part"
	Keep       Decision = "keep"
)

// Label is the decision in the user's words.
func (d Decision) Label() string {
	switch d {
	case Move:
		return "Move"
	case MoveInPart:
		return "Move in part"
	case Keep:
		return "Keep on ChatGPT"
	}
	return string(d)
}

// Reason is one argument for or against moving.
type Reason struct {
	Side     string `json:"side"` // "for" or "against"
	Text     string `json:"text"`
	Deciding bool   `json:"deciding"`
}

// Verdict is the answer for one assistant.
type Verdict struct {
	Decision Decision `json:"decision"`
	Label    string   `json:"label"`
	Headline string   `json:"headline"`
	// StaysBehind lists the capabilities that do not port (or, when the
	// work is over budget, that would need rebuilding) and stay on ChatGPT.
	StaysBehind []string `json:"stays_behind"`
	Reasons     []Reason `json:"reasons"`
}

// Economics weighs the hours of moving against the subscription, over the
// first year.
type Economics struct {
	Hours                float64  `json:"hours"`               // one-time work, capabilities that move
	OpsHoursPerMonth     float64  `json:"ops_hours_per_month"` // upkeep from then on
	FirstYearHours       float64  `json:"first_year_hours"`    // Hours + 12 × upkeep
	HourlyValue          float64  `json:"hourly_value"`
	FirstYearCost        float64  `json:"first_year_cost"` // FirstYearHours × HourlyValue
	SubscriptionPerMonth float64  `json:"subscription_per_month"`
	SubscriptionPerYear  float64  `json:"subscription_per_year"`
	HoursAvailable       *float64 `json:"hours_available"`
	OverHours            bool     `json:"over_hours"` // Hours exceeds HoursAvailable
	// Sum shows the arithmetic in one line.
	Sum string `json:"sum"`
}

// AssistantAudit is the answer for one assistant (or hand-ticked list).
type AssistantAudit struct {
	Subject Subject `json:"subject"`
	// TextModel is the model chosen for this assistant (nil when none
	// fits), and Choice how: its needs, the alternatives and their costs.
	TextModel    *Model       `json:"text_model"`
	Choice       *ModelChoice `json:"model_choice,omitempty"`
	Capabilities []Result     `json:"capabilities"`
	Verdict      Verdict      `json:"verdict"`
	Economics    Economics    `json:"economics"`
	// MCP is what the audit says of its MCP servers (nil: none).
	MCP *MCPTools `json:"mcp,omitempty"`
}

// Use is one assistant's use of a capability in the across view.
type Use struct {
	AssistantID string   `json:"assistant_id,omitempty"`
	Name        string   `json:"name"`
	Category    Category `json:"category"`
	Decision    Decision `json:"decision"`
}

// CapabilityUse is one row of the across-assistants view: a capability and
// what happens to it in each assistant that uses it.
type CapabilityUse struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Users []Use  `json:"users"`
}

// Summary counts the verdicts over all audited assistants.
type Summary struct {
	Move       int    `json:"move"`
	MoveInPart int    `json:"move_in_part"`
	Keep       int    `json:"keep"`
	Headline   string `json:"headline"`
}

// Record is one stored audit: its inputs, the hardware snapshot and the
// results, so an old audit reads as it did even after the catalog changes.
type Record struct {
	Schema  int       `json:"schema"`
	ID      string    `json:"id"`
	Created time.Time `json:"created"`
	Request Request   `json:"request"`
	Machine Machine   `json:"machine"`
	// TextModel is the first assistant's text model; each assistant's own
	// is in Assistants[i].TextModel.
	TextModel      *Model           `json:"text_model"`
	CatalogVersion int              `json:"catalog_version"`
	Assistants     []AssistantAudit `json:"assistants"`
	Across         []CapabilityUse  `json:"across"`
	Summary        Summary          `json:"summary"`
}

// ModelFor is the text model of one assistant of the record: its own, or
// the record's for audits stored before each assistant had its own.
func (r Record) ModelFor(aa AssistantAudit) *Model {
	if aa.Choice == nil && aa.TextModel == nil {
		return r.TextModel
	}
	return aa.TextModel
}
