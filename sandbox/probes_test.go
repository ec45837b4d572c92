package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// Every probe is Python that compiles, so that a probe which fails in the
// sandbox fails for what it tests, not for a typo.
func TestProbesCompile(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("skipped: no python3 on this machine to compile the probes with (build/setup.sh test installs it)")
	}
	for name, code := range map[string]string{
		"filesystem": probeFilesystem, "network": probeNetwork, "timeout": probeTimeout, "memory": probeMemory,
		"pids": probePids, "flood": probeFlood, "outputs": probeOutputs, "privileges": probePrivileges,
		"keyring plant": probeKeyringPlant, "keyring look": probeKeyringLook, "user namespaces": probeUserNS,
		"sockets": probeSockets, "signals": probeSignals, "host facts": probeHostFacts,
	} {
		if strings.TrimSpace(code) == "" {
			t.Errorf("%s: empty", name)
			continue
		}
		cmd := exec.Command(py, "-c", "import sys; compile(sys.stdin.read(), sys.argv[1], 'exec')", name)
		cmd.Stdin = strings.NewReader(code)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", name, err, out)
		}
	}
}
