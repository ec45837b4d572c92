package cli

// How an audit reads in a terminal: its report (audit, audit show), the
// model it picks and its MCP servers' tools.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"rehome/backend/audit"
	"rehome/backend/bytesize"
)

func printAudit(w io.Writer, rec audit.Record) {
	m := rec.Machine
	fmt.Fprintf(w, "Audit %s, %s\n", rec.ID, rec.Created.Local().Format("2 Jan 2006 15:04"))
	fmt.Fprintf(w, "Machine: %s of VRAM (%s), %s of RAM (%s)", bytesize.Format(m.VRAMBytes), m.VRAMSource, bytesize.Format(m.RAMBytes), m.RAMSource)
	if len(m.GPUs) > 0 {
		fmt.Fprintf(w, "; %s", strings.Join(m.GPUs, ", "))
	}
	fmt.Fprintln(w)
	yes := map[bool]string{true: "yes", false: "no"}
	r := rec.Request
	fmt.Fprintf(w, "Air-gapped: %s. Data must stay on this machine: %s.\n", yes[r.AirGapped], yes[r.DataMustStayLocal])
	for _, n := range m.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	for _, aa := range rec.Assistants {
		fmt.Fprintf(w, "\n== %s: %s ==\n%s\n", aa.Subject.Name, aa.Verdict.Label, aa.Verdict.Headline)
		printModelChoice(w, rec.ModelFor(aa), aa.Choice)
		for _, cat := range audit.Categories {
			var rs []audit.Result
			for _, res := range aa.Capabilities {
				if res.Category == cat {
					rs = append(rs, res)
				}
			}
			if len(rs) == 0 {
				continue
			}
			fmt.Fprintf(w, "\n%s\n", cat.Label())
			for _, res := range rs {
				fmt.Fprintf(w, "  * %s\n    %s\n", res.Name, res.Reason)
				fmt.Fprintf(w, "    Local: %s\n", res.Replacement)
				if res.Bring != "" {
					fmt.Fprintf(w, "    Bring: %s\n", res.Bring)
				}
				if cat != audit.DoesNotPort {
					cost := fmt.Sprintf("about %s h", trimNum(res.Cost.Hours))
					switch {
					case res.Cost.OpsHoursPerMonth > 0:
						cost += fmt.Sprintf(", then %s h/month: %s", trimNum(res.Cost.OpsHoursPerMonth), res.Cost.Ops)
					case res.Cost.Ops != "":
						cost += "; then: " + res.Cost.Ops
					}
					fmt.Fprintf(w, "    Cost: %s\n", cost)
				}
			}
		}
		printMCPAudit(w, aa.MCP)
		fmt.Fprintln(w, "\nWhy:")
		for _, reason := range aa.Verdict.Reasons {
			mark := "+"
			if reason.Side == "against" {
				mark = "-"
			}
			deciding := ""
			if reason.Deciding {
				deciding = " (deciding)"
			}
			fmt.Fprintf(w, "  %s %s%s\n", mark, reason.Text, deciding)
		}
		fmt.Fprintf(w, "Sum: %s\n", aa.Economics.Sum)
	}
	if len(rec.Assistants) > 1 {
		fmt.Fprintf(w, "\nAcross assistants: %s\n", rec.Summary.Headline)
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		for _, row := range rec.Across {
			var uses []string
			for _, u := range row.Users {
				uses = append(uses, fmt.Sprintf("%s: %s", u.Name, u.Category.Label()))
			}
			fmt.Fprintf(tw, "  %s\t%s\n", row.Name, strings.Join(uses, "; "))
		}
		tw.Flush()
	}
}

// printModelChoice says which text model the assistant runs on, why, and
// the alternatives with what each costs.
func printModelChoice(w io.Writer, t *audit.Model, ch *audit.ModelChoice) {
	if t == nil {
		fmt.Fprintln(w, "Text model: none fits this machine")
		return
	}
	where := "on the GPU, " + bytesize.Format(t.VRAMBytes)
	if t.OnCPU {
		where = "on the CPU, " + bytesize.Format(t.RAMBytes) + " of RAM"
	}
	tag := ""
	if t.Tag != "" {
		tag = "; ollama pull " + t.Tag
	}
	fmt.Fprintf(w, "Text model: %s (%s%s; from the %s)\n", t.Name, where, tag, t.Source)
	if ch == nil {
		return
	}
	if len(ch.Needs) > 0 {
		needs := make([]string, len(ch.Needs))
		for i, n := range ch.Needs {
			needs[i] = audit.NeedText(n)
		}
		fmt.Fprintf(w, "It needs a model that %s\n", strings.Join(needs, ", "))
	}
	if len(ch.Alternatives) > 1 {
		fmt.Fprintln(w, "Alternatives:")
		for _, a := range ch.Alternatives {
			mark := " "
			if a.Chosen {
				mark = "*"
			}
			fmt.Fprintf(w, "  %s %s (%s)\n", mark, a.Summary, strings.Join(a.Why, ", "))
		}
	}
	fmt.Fprintf(w, "Choice: %s\n", ch.Reason)
}

func trimNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// printMCPAudit prints what the audit says of the assistant's MCP
// servers (none: nothing).
func printMCPAudit(w io.Writer, m *audit.MCPTools) {
	if m == nil {
		return
	}
	fmt.Fprintf(w, "\nMCP tools (%s)\n  * %s\n    %s\n", m.Label, m.Headline, m.Reason)
	for _, c := range m.Caveats {
		fmt.Fprintf(w, "    Note: %s\n", c)
	}
}
