package cli

import "testing"

// The sandbox's engine commands share one preamble (withEngine): each
// refuses arguments it does not take with a one-line usage error and exit
// 2, before it starts Podman (`sandbox clean` used to take any).
func TestSandboxCommandsRefuseStrayArguments(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sandbox", "clean", "everything"}, "takes no arguments"},
		{[]string{"sandbox", "image", "status", "x"}, "takes no arguments"},
		{[]string{"sandbox", "image", "build", "x"}, "takes no arguments"},
		{[]string{"sandbox", "image", "save"}, "takes one output file"},
		{[]string{"sandbox", "image", "save", "a.tar", "b.tar"}, "takes one output file"},
	} {
		t.Run(c.args[len(c.args)-1], func(t *testing.T) {
			wantUsageError(t, rehomeCLI(t, home, append(c.args, "--podman", "unix:///nonexistent.sock")...), c.want)
		})
	}
}
