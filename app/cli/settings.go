package cli

import (
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"rehome/backend/core"
)

// cmdSettings is `rehome settings`: the limits saved in Settings → Sandbox
// (what every run, session and answer gets unless it asks otherwise), with
// this machine's safe range; `settings set KEY=VALUE…` saves them with the
// window's validation, `settings reset` goes back to the defaults.
func cmdSettings(env *cliEnv, args []string) int {
	fs := env.flags("settings", "settings [--json] | settings set KEY=VALUE... | settings reset")
	asJSON := fs.Bool("json", false, "print the saved limits and this machine's range as JSON")
	return settingsShow(env, fs, args, asJSON, (*core.Runs).Saved)
}

// settingsShow parses a command that takes no words, gets the limits from
// the run service with limits, and shows them.
func settingsShow(env *cliEnv, fs *flag.FlagSet, args []string, asJSON *bool, limits func(*core.Runs) (core.Limits, error)) int {
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	runs, code := service(env, (*core.Core).Runs)
	if runs == nil {
		return code
	}
	l, err := limits(runs)
	if err != nil {
		return env.fail(err)
	}
	return showSettings(env, l, runs.Bounds(), *asJSON)
}

// sandboxHostKeys are the settings of the Sandbox host, apart from the
// limits.
const (
	keySandboxHost     = "sandbox_host"
	keySandboxIdentity = "sandbox_identity"
)

// splitHostArgs takes the Sandbox host's KEY=VALUE pairs out of args.
func splitHostArgs(args []string) (limits []string, host map[string]string) {
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch k := strings.ToLower(strings.TrimSpace(k)); k {
		case keySandboxHost, keySandboxIdentity:
			if host == nil {
				host = map[string]string{}
			}
			host[k] = strings.TrimSpace(v)
		default:
			limits = append(limits, a)
		}
	}
	return limits, host
}

// hostLabel is the Sandbox host as `rehome settings` shows it.
func hostLabel(h core.SandboxHost) string {
	if h.URI == "" {
		return "this machine"
	}
	return h.URI
}

// settingsJSON is what `rehome settings --json` prints.
type settingsJSON struct {
	Limits      core.Limits      `json:"limits"`
	Bounds      core.LimitBounds `json:"bounds"`
	SandboxHost core.SandboxHost `json:"sandbox_host"`
}

func showSettings(env *cliEnv, l core.Limits, b core.LimitBounds, asJSON bool) int {
	h, err := env.c.TeamHost().Saved()
	if err != nil {
		return env.fail(err)
	}
	if asJSON {
		return env.json(settingsJSON{Limits: l, Bounds: b, SandboxHost: h})
	}
	table[core.LimitKey]{header: "KEY\tVALUE\tSAFE RANGE HERE\tWHAT", row: func(k core.LimitKey) string {
		return fmt.Sprintf("%s\t%s\t%s – %s\t%s", k.Name, k.Get(l), k.Get(b.Min), k.Get(b.Max), k.What)
	}}.print(env.stdout, core.LimitKeys)
	ident := h.Identity
	if ident == "" {
		ident = "(the defaults)"
	}
	fmt.Fprintln(env.stdout)
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SANDBOX HOST\tVALUE\tWHAT")
	fmt.Fprintf(tw, "%s\t%s\tthis machine, or a team host: ssh://user@host[:port]/path/to/podman.sock (empty: this machine)\n", keySandboxHost, hostLabel(h))
	fmt.Fprintf(tw, "%s\t%s\tssh private key for the team host (empty: the agent, ~/.ssh/config, ~/.ssh/id_*)\n", keySandboxIdentity, ident)
	tw.Flush()
	return exitOK
}

func cmdSettingsSet(env *cliEnv, args []string) int {
	fs := env.flags("settings set", "settings set KEY=VALUE... (timeout=3s memory=1GiB cpus=2 pids=256 sandbox_host=ssh://user@host/path/to/podman.sock sandbox_identity=~/.ssh/id_ed25519)")
	asJSON := fs.Bool("json", false, "print what is now saved as JSON")
	if code, ok := env.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return env.usage("settings set takes KEY=VALUE pairs, such as timeout=3s memory=1GiB (see `rehome settings`)")
	}
	runs, code := service(env, (*core.Core).Runs)
	if runs == nil {
		return code
	}
	l, err := runs.Saved()
	if err != nil {
		return env.fail(err)
	}
	limitArgs, hostArgs := splitHostArgs(fs.Args())
	var host *core.SandboxHost
	if hostArgs != nil {
		h, err := env.c.TeamHost().Saved()
		if err != nil {
			return env.fail(err)
		}
		if v, ok := hostArgs[keySandboxHost]; ok {
			h.URI = v
			if v == "" {
				h.Identity = ""
			}
		}
		if v, ok := hostArgs[keySandboxIdentity]; ok {
			h.Identity = v
		}
		if err := core.CheckSandboxHost(h); err != nil {
			return env.usage("%v: nothing was saved", err)
		}
		host = &h
	}
	saveHost := func() int {
		if host == nil {
			return exitOK
		}
		if _, err := env.c.TeamHost().Save(*host); err != nil {
			return env.fail(err)
		}
		return exitOK
	}
	if len(limitArgs) == 0 {
		if code := saveHost(); code != exitOK {
			return code
		}
		return showSettings(env, l, runs.Bounds(), *asJSON)
	}
	if l, err = core.SetLimits(l, limitArgs); err != nil {
		return env.usage("%v", err)
	}
	// The same check as Settings → Sandbox: this machine's range and the
	// sandbox's own rules.
	if l, err = runs.Save(l); err != nil {
		return env.failLimits(err, "%v: nothing was saved")
	}
	if code := saveHost(); code != exitOK {
		return code
	}
	return showSettings(env, l, runs.Bounds(), *asJSON)
}

func cmdSettingsReset(env *cliEnv, args []string) int {
	fs := env.flags("settings reset", "settings reset")
	return settingsShow(env, fs, args, new(bool), (*core.Runs).Reset)
}
