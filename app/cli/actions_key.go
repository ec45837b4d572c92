package cli

import (
	"fmt"

	"rehome/backend/core"
)

// cmdActionsKey is `rehome actions key ASSISTANT ACTION`: what an action
// waits for (one imported from a GPT, or added from a schema that
// declares its auth): its API key, or its OAuth client.
func cmdActionsKey(env *cliEnv, args []string) int {
	fs := env.flags("actions key", "actions key ASSISTANT ACTION (--key-stdin | --client-id ID [--client-secret-stdin]) [--json]")
	keyStdin := fs.Bool("key-stdin", false, "read the API key from standard input (kept in the data folder's owner-only file, nowhere else)")
	secretStdin := fs.Bool("client-secret-stdin", false, "read the OAuth client secret from standard input")
	clientID := fs.String("client-id", "", "the OAuth client `id` registered with the provider")
	asJSON := fs.Bool("json", false, "print the action as JSON")
	pos, code, ok := interspersedN(env, fs, args, 2, "actions key takes ASSISTANT and ACTION (see `rehome actions list ASSISTANT`)")
	if !ok {
		return code
	}
	if *keyStdin && *secretStdin {
		return env.usage("give either --key-stdin or --client-secret-stdin")
	}
	if !*keyStdin && !*secretStdin && *clientID == "" {
		return env.usage("actions key: give --key-stdin (an API key), or --client-id ID and --client-secret-stdin (an OAuth client)")
	}
	in := core.ActionCredentials{ClientID: *clientID}
	var err error
	if in.Key, in.ClientSecret, err = readKeyOrSecret(env, *keyStdin, *secretStdin); err != nil {
		return env.fail(err)
	}
	if _, err := env.openStore(); err != nil {
		return env.fail(err)
	}
	info, err := env.c.Actions().SetCredentials(pos[0], pos[1], in)
	if code, stop := env.result(info, err, *asJSON); stop {
		return code
	}
	switch info.Waiting {
	case "":
		fmt.Fprintf(env.stdout, "%s: ready (auth %s)\n", info.Name, info.Auth)
	case "a sign-in":
		fmt.Fprintf(env.stdout, "%s: kept; sign in with `rehome actions signin %s %s`\n", info.Name, pos[0], info.Name)
	default:
		fmt.Fprintf(env.stdout, "%s: kept; still waiting for %s\n", info.Name, info.Waiting)
	}
	return exitOK
}
