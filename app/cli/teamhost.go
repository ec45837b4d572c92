package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
)

// The team host's words in the terminal: `rehome sandbox trust`, and the
// passphrase of an ssh identity, asked once per command.

// cmdSandboxTrust is `rehome sandbox trust ssh://… [--fingerprint SHA256:…]
// [--yes]`: it shows the host's key and adds it to known_hosts only when the
// fingerprint given matches, on --yes, or on a yes at the terminal.
func cmdSandboxTrust(env *cliEnv, args []string) int {
	fs := env.flags("sandbox trust", "sandbox trust ssh://user@host[:port]/path/to/podman.sock [--fingerprint SHA256:…] [--yes] [--json]")
	fp := fs.String("fingerprint", "", "the host key's `SHA256:…` fingerprint, as its admin read it (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` there)")
	yes := fs.Bool("yes", false, "trust the key the host offers now, without a fingerprint to check it against")
	asJSON := fs.Bool("json", false, "print the host key as JSON")
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		args = append(args[1:len(args):len(args)], args[0]) // the address first, its flags after
	}
	if code, ok := env.parseArg(fs, args, "sandbox trust takes the team host's address, such as ssh://alice@gpu-box/run/user/1000/podman/podman.sock"); !ok {
		return code
	}
	uri := fs.Arg(0)
	th := env.sandboxCore().TeamHost()
	hk, err := th.HostKey(uri)
	if err != nil {
		return env.fail(err)
	}
	if !*asJSON {
		state := "not in " + hk.KnownHosts
		if hk.Known {
			state = "already trusted in " + hk.KnownHosts
		}
		fmt.Fprintf(env.stdout, "%s offers a %s key: %s (%s)\n", hk.Host, hk.KeyType, hk.Fingerprint, state)
	}
	if hk.Known {
		if *asJSON {
			return env.json(hk)
		}
		return exitOK
	}
	want := *fp
	switch {
	case want != "":
	case *yes:
		want = hk.Fingerprint
	case isTerminal(env.stdout) && isTerminal(env.stdin):
		fmt.Fprintf(env.stdout, "Is this the key of %s, as its admin read it? Trust it [y/N]: ", hk.Host)
		line, _ := bufio.NewReader(env.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(env.stdout, "not trusted; known_hosts is unchanged")
			return exitFail
		}
		want = hk.Fingerprint
	default:
		return env.usage("to trust it, give the fingerprint its admin read: --fingerprint %s (or --yes to trust what it offers now)", hk.Fingerprint)
	}
	hk, err = th.Trust(uri, want)
	if code, stop := env.result(hk, err, *asJSON); stop {
		return code
	}
	fmt.Fprintf(env.stdout, "trusted: %s added to %s\n", hk.Host, hk.KnownHosts)
	return exitOK
}

// askPassphrase asks at the terminal for the passphrase of an ssh identity
// (once per command: one SSH connection carries all its calls).
func (e *cliEnv) askPassphrase(file string) ([]byte, error) {
	if !isTerminal(e.stdin) {
		return nil, errors.New("no terminal to ask it at: add the key to your ssh agent with `ssh-add " + file + "`")
	}
	fmt.Fprintf(e.stderr, "Passphrase for %s: ", file)
	pass, err := readNoEcho(e.stdin)
	fmt.Fprintln(e.stderr)
	return pass, err
}
