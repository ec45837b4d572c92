package audit

import (
	"fmt"
	"strings"

	"rehome/backend/bytesize"
)

// DescribeWhen says a rule's condition in words.
func DescribeWhen(w When) string {
	var parts []string
	flag := func(p *bool, yes, no string) {
		if p != nil {
			if *p {
				parts = append(parts, yes)
			} else {
				parts = append(parts, no)
			}
		}
	}
	flag(w.NoTextModel, "no text model fits", "a text model fits")
	flag(w.AirGapped, "air-gapped", "online")
	flag(w.DataMustStayLocal, "data must stay local", "data may leave")
	flag(w.TextModelOnCPU, "the text model runs on the CPU", "the text model runs on the GPU")
	flag(w.TextModelVision, "the text model reads images", "the text model does not read images")
	flag(w.TextModelTools, "the text model calls tools", "the text model has no tool calling")
	flag(w.ActionCallsExternal, "an action calls an outside API", "every action stays local")
	flag(w.ActionAuthOAuth, "an action signs in with OAuth", "no action uses OAuth")
	if w.VRAMBelow != nil {
		parts = append(parts, "VRAM below "+bytesize.Format(int64(*w.VRAMBelow)))
	}
	if w.VRAMForSecondModel != nil {
		parts = append(parts, "VRAM left beside the text model below "+bytesize.Format(int64(*w.VRAMForSecondModel)))
	}
	if w.TextModelBelow != nil {
		parts = append(parts, "text model smaller than "+bytesize.Format(int64(*w.TextModelBelow)))
	}
	return strings.Join(parts, " and ")
}

// RulesMarkdown renders the catalog as the rules table of the README: per
// capability its default answer and the rules that change it, the first
// that holds winning.
func RulesMarkdown(cat *Catalog) string {
	var b strings.Builder
	b.WriteString("| Capability | Default | Changes when (first match wins) | Work, then upkeep |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, cp := range cat.Capabilities {
		var rules []string
		for _, r := range cp.Rules {
			to := r.Category
			if to == "" {
				to = cp.Category
			}
			change := "**" + to.Label() + "**"
			if r.Category == "" || r.Category == cp.Category {
				change += " (reason changes)"
			}
			rules = append(rules, fmt.Sprintf("%s → %s", DescribeWhen(r.When), change))
		}
		ops := fmt.Sprintf("%s h", num(cp.Cost.Hours))
		if cp.Cost.OpsHoursPerMonth > 0 {
			ops += fmt.Sprintf(", %s h/month", num(cp.Cost.OpsHoursPerMonth))
		}
		fmt.Fprintf(&b, "| %s (`%s`) | %s | %s | %s |\n", cp.Name, cp.ID, cp.Category.Label(), strings.Join(rules, "; "), ops)
	}
	return b.String()
}
