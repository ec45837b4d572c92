package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"rehome/backend/audit"
	"rehome/backend/bytesize"
	"rehome/backend/core"
)

// auditService opens the core: the audit wired to the assistants, the
// hardware detection and the fit estimate, as in the window.
func auditService(env *cliEnv) (*core.Audits, int) { return service(env, (*core.Core).Audits) }

// auditIDs is the start of audit show, compare, checklist and rm: exactly
// n ids, the flags before, between or after them, then the audits. (It is
// parseFor with audit's parseMixed, where a -- does not end the flags.)
func auditIDs(env *cliEnv, fs *flag.FlagSet, args []string, n int, need string) ([]string, *core.Audits, int) {
	pos, code, ok := mixedN(env, fs, args, n, need)
	if !ok {
		return nil, nil, code
	}
	svc, code := auditService(env)
	return pos, svc, code
}

// parseMixed parses flags that may come before, between or after the
// positional arguments (`import FILE --knowledge X`), and returns those.
func parseMixed(env *cliEnv, fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	pos = []string{}
	for {
		if code, ok = env.parse(fs, args); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, exitOK, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// optFloat is a float flag that knows whether it was given.
type optFloat struct{ v *float64 }

func (o *optFloat) String() string {
	if o.v == nil {
		return ""
	}
	return strconv.FormatFloat(*o.v, 'f', -1, 64)
}

func (o *optFloat) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 {
		return fmt.Errorf("%q is not a number of 0 or more", s)
	}
	o.v = &f
	return nil
}

// optBytes is a memory size flag ("8GiB") that knows whether it was given.
type optBytes struct{ v *int64 }

func (o *optBytes) String() string {
	if o.v == nil {
		return ""
	}
	return bytesize.Format(*o.v)
}

func (o *optBytes) Set(s string) error {
	v, err := bytesize.Parse(s)
	if err != nil {
		return err
	}
	o.v = &v
	return nil
}

func cmdAuditRun(env *cliEnv, args []string) int {
	fs := env.flags("audit", "audit [--assistant ID]... [--all] [--features a,b,c] [--vram 8GiB] [--ram 32GiB] [--air-gapped] [--data-local] [--hours N] [--hourly V] [--subscription P] [--json]")
	var ids, features stringList
	var vram, ram optBytes
	var hours, hourly, subscription optFloat
	all := fs.Bool("all", false, "audit every stored assistant (the across-assistants view)")
	fs.Var(&ids, "assistant", "a stored assistant's id (repeat for more)")
	fs.Var(&features, "features", "capabilities ticked by hand, comma-separated: "+strings.Join(audit.CapabilityIDs, ","))
	label := fs.String("label", "", "a name for the features given by hand")
	actionsLocal := fs.Bool("actions-local", false, "the actions given by hand call an API on this machine or network")
	fs.Var(&vram, "vram", "GPU memory, such as 8GiB or 0 for none (default: detected)")
	fs.Var(&ram, "ram", "system RAM, such as 32GiB (default: detected)")
	airGapped := fs.Bool("air-gapped", false, "the machine has no network")
	dataLocal := fs.Bool("data-local", false, "the data may not leave this machine")
	fs.Var(&hours, "hours", "the hours you are willing to spend on the move")
	fs.Var(&hourly, "hourly", fmt.Sprintf("what an hour of your time is worth (default %d)", audit.DefaultHourlyValue))
	fs.Var(&subscription, "subscription", fmt.Sprintf("what ChatGPT costs you per month (default %d)", audit.DefaultSubscription))
	asJSON := fs.Bool("json", false, "print the audit as JSON")
	pos, code, ok := parseMixed(env, fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return env.usage("audit: unexpected argument %q (see `rehome audit --help`)", pos[0])
	}
	if len(ids) == 0 && !*all && len(features) == 0 {
		return env.usage("audit: say what to audit: --assistant ID, --all, or --features code_interpreter,knowledge,...")
	}
	if len(features) > 0 {
		if _, err := audit.NormalizeFeatures(features); err != nil {
			return env.usage("audit --features: %v", err)
		}
	}
	svc, code := auditService(env)
	if svc == nil {
		return code
	}
	req := audit.Request{
		AssistantIDs: ids, All: *all, Features: features, Label: *label, ActionsLocal: *actionsLocal,
		VRAMBytes: vram.v, RAMBytes: ram.v, Detect: vram.v == nil || ram.v == nil,
		AirGapped: *airGapped, DataMustStayLocal: *dataLocal,
		HoursAvailable: hours.v, HourlyValue: hourly.v, SubscriptionPerMonth: subscription.v,
	}
	rec, err := svc.Run(env.context(), req)
	if err != nil {
		return env.fail(err) // a NeedVRAMError gets its --vram (hints.go)
	}
	if *asJSON {
		return env.json(rec)
	}
	printAudit(env.stdout, rec)
	return exitOK
}

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

func cmdAuditList(env *cliEnv, args []string) int {
	fs := env.flags("audit list", "audit list [-n N] [--json]")
	n := fs.Int("n", 0, "show at most N audits (0: all)")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	svc, code := auditService(env)
	if svc == nil {
		return code
	}
	recs, err := svc.List(*n)
	if err != nil {
		return env.fail(err)
	}
	return printList(env, recs, *asJSON, "No audits yet: run `rehome audit --assistant ID` or `rehome audit --features ...`.",
		table[audit.Record]{header: "ID\tWHEN\tVRAM\tASSISTANTS\tVERDICTS", row: auditRow})
}

// auditRow is an audit's row in `rehome audit list`.
func auditRow(r audit.Record) string {
	var names []string
	for _, aa := range r.Assistants {
		names = append(names, aa.Subject.Name)
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s", r.ID, r.Created.Local().Format("2006-01-02 15:04"), bytesize.Format(r.Machine.VRAMBytes), strings.Join(names, ", "), r.Summary.Headline)
}

func cmdAuditShow(env *cliEnv, args []string) int {
	fs := env.flags("audit show", "audit show ID [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, svc, code := auditIDs(env, fs, args, 1, "audit show: give one audit id (see `rehome audit list`)")
	if svc == nil {
		return code
	}
	rec, err := svc.Get(pos[0])
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		return env.json(rec)
	}
	printAudit(env.stdout, rec)
	return exitOK
}

func cmdAuditCompare(env *cliEnv, args []string) int {
	fs := env.flags("audit compare", "audit compare ID ID [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, svc, code := auditIDs(env, fs, args, 2, "audit compare: give two audit ids (see `rehome audit list`)")
	if svc == nil {
		return code
	}
	c, err := svc.Compare(pos[0], pos[1])
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		return env.json(c)
	}
	w := env.stdout
	fmt.Fprintf(w, "From %s (%s) to %s (%s)\n%s\n", c.Older.ID, c.Older.Created.Local().Format("2 Jan 15:04"), c.Newer.ID, c.Newer.Created.Local().Format("2 Jan 15:04"), c.Summary)
	if len(c.Inputs) > 0 {
		fmt.Fprintln(w, "\nInputs:")
		for _, ch := range c.Inputs {
			fmt.Fprintf(w, "  %s: %s → %s\n", ch.Field, ch.From, ch.To)
		}
	}
	for _, a := range c.Assistants {
		fmt.Fprintf(w, "\n%s: %s", a.Name, a.Status)
		if a.VerdictFrom != a.VerdictTo {
			fmt.Fprintf(w, ", %s → %s", label(a.VerdictFrom), label(a.VerdictTo))
		}
		fmt.Fprintln(w)
		if a.VerdictWhy != "" {
			fmt.Fprintf(w, "  because %s\n", a.VerdictWhy)
		}
		for _, cc := range a.Capabilities {
			fmt.Fprintf(w, "  * %s: %s → %s (%s)\n", cc.Name, catLabel(cc.From), catLabel(cc.To), cc.Why)
		}
	}
	return exitOK
}

func label(d audit.Decision) string {
	if d == "" {
		return "—"
	}
	return d.Label()
}

func catLabel(c audit.Category) string {
	if c == "" {
		return "not used"
	}
	return c.Label()
}

func cmdAuditChecklist(env *cliEnv, args []string) int {
	fs := env.flags("audit checklist", "audit checklist ASSISTANT_ID [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, svc, code := auditIDs(env, fs, args, 1, "audit checklist: give one assistant id (see `rehome assistants list`)")
	if svc == nil {
		return code
	}
	c, err := svc.Checklist(pos[0])
	if err != nil {
		return env.fail(err)
	}
	if *asJSON {
		return env.json(c)
	}
	fmt.Fprintf(env.stdout, "%s\n(from audit %s)\n", c.Headline, c.AuditID)
	for _, s := range c.Steps {
		fmt.Fprintf(env.stdout, "\n%d. %s\n   %s\n", s.N, s.Title, s.Detail)
		for _, cmd := range s.Commands {
			fmt.Fprintf(env.stdout, "   $ %s\n", cmd)
		}
	}
	return exitOK
}

func cmdAuditRules(env *cliEnv, args []string) int {
	fs := env.flags("audit rules", "audit rules [--json | --markdown]")
	asJSON := fs.Bool("json", false, "print the catalog as JSON")
	md := fs.Bool("markdown", false, "print the rules table as Markdown (as in the README)")
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	cat := audit.DefaultCatalog()
	if *asJSON {
		return env.json(cat)
	}
	if *md {
		io.WriteString(env.stdout, audit.RulesMarkdown(cat))
		return exitOK
	}
	for _, cp := range cat.Capabilities {
		fmt.Fprintf(env.stdout, "%s (%s): %s\n", cp.Name, cp.ID, cp.Category.Label())
		for _, r := range cp.Rules {
			to := r.Category
			if to == "" {
				to = cp.Category
			}
			fmt.Fprintf(env.stdout, "  when %s: %s [%s]\n", audit.DescribeWhen(r.When), to.Label(), r.ID)
		}
	}
	return exitOK
}

func cmdAuditRm(env *cliEnv, args []string) int {
	fs := env.flags("audit rm", "audit rm ID")
	pos, svc, code := auditIDs(env, fs, args, 1, "audit rm: give one audit id")
	if svc == nil {
		return code
	}
	if err := svc.Delete(pos[0]); err != nil {
		return env.fail(err)
	}
	fmt.Fprintf(env.stdout, "deleted audit %s\n", pos[0])
	return exitOK
}

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
