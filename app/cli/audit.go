package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

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

// auditWords is the begin of auditIDs: the command takes n ids (else the
// usage error need), then the audits.
func auditWords(n int, need string) begin[core.Audits] {
	return func(env *cliEnv, fs *flag.FlagSet, args []string) ([]string, *core.Audits, int) {
		return auditIDs(env, fs, args, n, need)
	}
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

// cmdAuditRun is `rehome audit` alone (or with its flags first): an
// audit of stored assistants or of features ticked by hand, kept.
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
