package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"rehome/backend/actions"
	"rehome/backend/assistant"
	"rehome/backend/core"
)

func cmdActionsAdd(env *cliEnv, args []string) int {
	fs := env.flags("actions add", "actions add ASSISTANT SCHEMA|- [--auth none|basic|bearer|header:NAME|oauth] [--key-stdin] [--client-id ID --auth-url URL --token-url URL [--scope S] [--client-secret-stdin]] [--name NAME] [--allow-local] [--json]")
	auth := fs.String("auth", "", "how calls are signed: none, basic, bearer, header:NAME (a custom header) or oauth (default: what the schema's securitySchemes declare)")
	keyStdin := fs.Bool("key-stdin", false, "read the API key from standard input (it is kept in the data folder's owner-only file, nowhere else)")
	secretStdin := fs.Bool("client-secret-stdin", false, "read the OAuth client secret from standard input")
	clientID := fs.String("client-id", "", "the OAuth client `id`")
	authURL := fs.String("auth-url", "", "the OAuth authorization `URL`")
	tokenURL := fs.String("token-url", "", "the OAuth token `URL`")
	scope := fs.String("scope", "", "the OAuth `scopes`, space-separated")
	name := fs.String("name", "", "the action's `name` (default: from the schema's title)")
	privacy := fs.String("privacy-url", "", "the API's privacy policy `URL`")
	allowLocal := fs.Bool("allow-local", false, "let its calls reach this machine and its networks (loopback, private, link-local, CGNAT, unique-local and metadata addresses): for an API you run yourself")
	asJSON := fs.Bool("json", false, "print the action as JSON")
	pos, code, ok := interspersedN(env, fs, args, 2, "actions add takes ASSISTANT and SCHEMA (a file, or - to read it from standard input)")
	if !ok {
		return code
	}
	if pos[1] == "-" && (*keyStdin || *secretStdin) {
		return env.usage("the schema and the key cannot both come from standard input: give the schema as a file")
	}
	if *keyStdin && *secretStdin {
		return env.usage("give either --key-stdin or --client-secret-stdin")
	}
	var text []byte
	var err error
	if pos[1] == "-" {
		text, err = io.ReadAll(io.LimitReader(env.stdin, maxSchemaFile))
	} else {
		text, err = readFileAtMost(env.path(pos[1]), maxSchemaFile, "an OpenAPI schema")
	}
	if err != nil {
		return env.fail(fmt.Errorf("reading the schema: %w", err))
	}
	in := core.AddAction{Schema: string(text), Auth: *auth, Name: *name, PrivacyURL: *privacy, AllowLocal: *allowLocal}
	if *clientID != "" || *authURL != "" || *tokenURL != "" {
		in.OAuth = &assistant.OAuthClient{ClientID: *clientID, AuthURL: *authURL, TokenURL: *tokenURL, Scope: *scope}
	}
	if in.Key, in.ClientSecret, err = readKeyOrSecret(env, *keyStdin, *secretStdin); err != nil {
		return env.fail(err)
	}
	if _, err := env.openStore(); err != nil {
		return env.fail(err)
	}
	info, err := env.c.Actions().Add(pos[0], in)
	if code, stop := env.result(info, err, *asJSON); stop {
		return code
	}
	fmt.Fprintf(env.stdout, "added %s (%d operations, auth %s) to %s\n", info.Name, len(info.Operations), info.Auth, pos[0])
	for _, n := range info.Notes {
		fmt.Fprintf(env.stderr, "rehome: note: %s\n", n)
	}
	printOperations(env, info)
	printLocal(env, pos[0], info)
	printWaiting(env, pos[0], info)
	return exitOK
}

// printWaiting says how to give an action what it waits for.
func printWaiting(env *cliEnv, assistantID string, in core.ActionInfo) {
	switch {
	case in.Waiting == "":
	case in.Waiting == "a sign-in":
		fmt.Fprintf(env.stdout, "  waiting for a sign-in: `rehome actions signin %s %s`\n", assistantID, in.Name)
	case in.Auth == actions.AuthOAuth:
		fmt.Fprintf(env.stdout, "  waiting for %s: `rehome actions key %s %s --client-id ID --client-secret-stdin`\n", in.Waiting, assistantID, in.Name)
	default:
		fmt.Fprintf(env.stdout, "  waiting for %s: `rehome actions key %s %s --key-stdin`\n", in.Waiting, assistantID, in.Name)
	}
}

// readSecret reads one line from stdin, without echo on a terminal.
// readKeyOrSecret reads one line from standard input when --key-stdin or
// --client-secret-stdin asks for it: the API key or the OAuth client's secret.
func readKeyOrSecret(env *cliEnv, keyStdin, secretStdin bool) (key, secret string, err error) {
	if !keyStdin && !secretStdin {
		return "", "", nil
	}
	line, err := readSecret(env)
	if err != nil || !keyStdin {
		return "", line, err
	}
	return line, "", nil
}

func readSecret(env *cliEnv) (string, error) {
	if isTerminal(env.stdin) {
		fmt.Fprint(env.stderr, "key: ")
		b, err := readNoEcho(env.stdin)
		fmt.Fprintln(env.stderr)
		return strings.TrimSpace(string(b)), err
	}
	line, err := bufio.NewReader(io.LimitReader(env.stdin, 64<<10)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", err
	}
	if strings.TrimSpace(line) == "" {
		return "", fmt.Errorf("no key on standard input: pipe it in, e.g. `rehome actions add … --key-stdin < key.txt`")
	}
	return strings.TrimSpace(line), nil
}

func printOperations(env *cliEnv, info core.ActionInfo) {
	for _, op := range info.Operations {
		rule := map[actions.Rule]string{actions.RuleNone: "no confirmation", actions.RuleAsk: "confirm (Always allow offered)", actions.RuleEvery: "confirm every call"}[op.Rule]
		if op.AlwaysAllow {
			rule = "always allowed"
		}
		fmt.Fprintf(safeWriter(env.stdout), "  %-20s %-6s %-28s %s\n", op.ID, op.Method, op.Path, rule) // the schema's words
	}
}

func actionsService(env *cliEnv) (*core.Actions, int) { return service(env, (*core.Core).Actions) }

func cmdActionsList(env *cliEnv, args []string) int {
	fs := env.flags("actions list", "actions list ASSISTANT [--json]")
	asJSON := fs.Bool("json", false, "print the actions as JSON")
	list := func(a *core.Actions, pos []string) ([]core.ActionInfo, error) { return a.List(pos[0]) }
	return answer(env, fs, args, takes(1, "actions list takes ASSISTANT", actionsService), asJSON, list, func(list []core.ActionInfo, pos []string) {
		if len(list) == 0 {
			fmt.Fprintf(env.stdout, "no actions: add one with `rehome actions add %s SCHEMA`\n", pos[0])
		}
		for _, in := range list {
			printAction(env, pos[0], in)
		}
	})
}

// printAction is an action's lines in `rehome actions list`: its name,
// servers, auth and what it waits for, its operations, and whether it may
// call this machine.
func printAction(env *cliEnv, assistantID string, in core.ActionInfo) {
	cred := ""
	if in.Waiting != "" {
		cred = ", waiting for " + in.Waiting
	}
	where := strings.Join(in.Servers, ", ")
	if in.SchemaOnly {
		where = "function tool, no server"
	}
	out := safeWriter(env.stdout) // the schema's words came from outside
	fmt.Fprintf(out, "%s — %s (%s; auth %s%s)\n", in.Name, in.Title, where, in.Auth, cred)
	if in.Problem != "" {
		fmt.Fprintf(out, "  %s\n", in.Problem)
	}
	printOperations(env, in)
	printWaiting(env, assistantID, in)
	printLocal(env, assistantID, in)
}

// printLocal says whether the action may call this machine and its
// networks, and how to change it.
func printLocal(env *cliEnv, ref string, in core.ActionInfo) {
	switch {
	case in.SchemaOnly:
	case in.AllowLocal:
		fmt.Fprintf(env.stdout, "  may call local addresses (this machine and its networks): yes; take it back with `rehome actions allow-local %s %s --off`\n", quoteArg(ref), in.Name)
	case in.Local != "":
		fmt.Fprintf(env.stdout, "  may call local addresses: no — its server %s is local, so its calls are refused; allow them with `rehome actions allow-local %s %s`\n", termSafe(in.Local), quoteArg(ref), in.Name)
	default:
		fmt.Fprintf(env.stdout, "  may call local addresses: no (calls that resolve to this machine or its networks are refused)\n")
	}
}

// quoteArg is ref as the user would type it back.
func quoteArg(ref string) string {
	if ref != "" && !strings.ContainsAny(ref, " \t'\"\\$`") {
		return termSafe(ref)
	}
	return termSafe("'" + strings.ReplaceAll(ref, "'", `'\''`) + "'")
}

func cmdActionsAllowLocal(env *cliEnv, args []string) int {
	fs := env.flags("actions allow-local", "actions allow-local ASSISTANT ACTION [--off] [--json]")
	off := fs.Bool("off", false, "take the allowance back: its calls to this machine and its networks are refused again")
	asJSON := fs.Bool("json", false, "print the action as JSON")
	set := func(a *core.Actions, pos []string) (core.ActionInfo, error) {
		return a.SetAllowLocal(pos[0], pos[1], !*off)
	}
	start := takes(2, "actions allow-local takes ASSISTANT and ACTION (see `rehome actions list ASSISTANT`)", actionsService)
	return answer(env, fs, args, start, asJSON, set, func(info core.ActionInfo, _ []string) {
		if *off {
			fmt.Fprintf(env.stdout, "%s may no longer call this machine or its networks\n", info.Name)
		} else {
			fmt.Fprintf(env.stdout, "%s may call this machine and its networks (loopback, private, link-local, CGNAT, unique-local and metadata addresses)\n", info.Name)
		}
	})
}

func cmdActionsTest(env *cliEnv, args []string) int {
	fs := env.flags("actions test", "actions test ASSISTANT OPERATION [--args JSON] [--yes] [--json]")
	argsJSON := fs.String("args", "{}", "the call's arguments as a JSON object")
	yes := fs.Bool("yes", false, "make a call that needs confirming without asking")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, code, ok := interspersedN(env, fs, args, 2, "actions test takes ASSISTANT and OPERATION")
	if !ok {
		return code
	}
	if !json.Valid([]byte(*argsJSON)) {
		return env.usage("--args is not JSON: give an object, e.g. --args '{\"id\": \"42\"}'")
	}
	if _, err := env.openStore(); err != nil {
		return env.fail(err)
	}
	ctx, cancel := env.interruptible()
	defer cancel()
	res, err := env.c.Actions().Test(ctx, pos[0], pos[1], *argsJSON, confirmer(env, *yes))
	if err != nil {
		return env.failOrStop(err)
	}
	if *asJSON {
		return env.json(res)
	}
	fmt.Fprintln(safeWriter(env.stdout), res.Fed()) // the API's words
	if res.Status >= 400 {
		return exitFail
	}
	return exitOK
}

func cmdActionsSignIn(env *cliEnv, args []string) int {
	fs := env.flags("actions signin", "actions signin ASSISTANT ACTION")
	return runOn(env, fs, args, takes(2, "actions signin takes ASSISTANT and ACTION", actionsService), func(pos []string, actions *core.Actions) int {
		ctx, cancel := env.interruptible()
		defer cancel()
		err := actions.SignIn(ctx, pos[0], pos[1], func(url string) error {
			fmt.Fprintf(env.stderr, "rehome: open this address in your browser to sign in (waiting up to 5 minutes):\n%s\n", url)
			return nil
		})
		if err != nil {
			return env.failOrStop(err)
		}
		fmt.Fprintf(env.stdout, "signed in: %s can call %s\n", pos[0], pos[1])
		return exitOK
	})
}

func cmdActionsRm(env *cliEnv, args []string) int {
	fs := env.flags("actions rm", "actions rm ASSISTANT NAME")
	return runOn(env, fs, args, takes(2, "actions rm takes ASSISTANT and NAME (see `rehome actions list ASSISTANT`)", actionsService), func(pos []string, actions *core.Actions) int {
		return env.done(actions.Remove(pos[0], pos[1]), "removed %s and its credentials", pos[1])
	})
}

// confirmer is the terminal's answer to a call that needs confirming:
// --yes allows it; on a terminal the user is asked; else nil (the call is
// declined and the model told).
func confirmer(env *cliEnv, yes bool) actions.Confirm {
	if yes {
		return func(context.Context, actions.Ask) (actions.Decision, error) { return actions.AllowOnce, nil }
	}
	if !isTerminal(env.stdin) || !isTerminal(env.stderr) {
		return nil
	}
	r := bufio.NewReader(env.stdin)
	return func(_ context.Context, a actions.Ask) (actions.Decision, error) {
		return promptConfirm(r, env.stderr, a)
	}
}

// promptConfirm asks on w and reads the answer from r.
func promptConfirm(r *bufio.Reader, w io.Writer, a actions.Ask) (actions.Decision, error) {
	args := a.Arguments
	if len(args) > 400 {
		args = args[:400] + "…"
	}
	fmt.Fprintf(w, "\nrehome: %s wants to call %s (%s on %s) with %s\n", termSafe(a.Assistant), termSafe(a.Operation), a.Method, termSafe(a.Host), termSafe(args))
	choices := "[y] allow once, [N] deny"
	if a.AlwaysOffered {
		choices = "[y] allow once, [a] always allow, [N] deny"
	}
	fmt.Fprintf(w, "Allow it? %s: ", choices)
	line, err := r.ReadString('\n')
	if err != nil && line == "" {
		return actions.Deny, nil
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return actions.AllowOnce, nil
	case "a", "always":
		if a.AlwaysOffered {
			return actions.AllowAlways, nil
		}
	}
	return actions.Deny, nil
}
