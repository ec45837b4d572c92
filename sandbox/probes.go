package sandbox

import "embed"

// The doctor's and the attack tests' probes: Python run inside the sandbox,
// one file each under probes/. Each prints HELD when the attack failed as
// it should, and BROKEN (or WEAK) lines naming what got through. Words in
// capitals (SECRET, WORKDIR, TOKEN, MARKER, HOSTNAME) are replaced before a
// probe runs.
//
//go:embed probes/*.py
var probeFiles embed.FS

func probe(name string) string {
	b, err := probeFiles.ReadFile("probes/" + name)
	if err != nil {
		panic(err) // the embedded files are fixed at build time
	}
	return string(b)
}

// probeLibc is shared by the probes that make raw system calls: the C
// library and the calls' numbers.
var probeLibc = probe("libc.py")

// probeVerdict ends the probes that list in bad what got through: a BROKEN
// line for each, else HELD.
var probeVerdict = probe("verdict.py")

var (
	probeFilesystem   = probe("filesystem.py") + probeVerdict
	probeNetwork      = probe("network.py") + probeVerdict
	probeTimeout      = probe("timeout.py")
	probeMemory       = probe("memory.py")
	probePids         = probe("pids.py")
	probeFlood        = probe("flood.py")
	probeOutputs      = probe("outputs.py")
	probePrivileges   = probe("privileges.py") + probeVerdict
	probeKeyringPlant = probeLibc + probe("keyring_plant.py")
	probeKeyringLook  = probeLibc + probe("keyring_look.py")
	probeUserNS       = probeLibc + probe("userns.py") + probeVerdict
	probeSockets      = probeLibc + probe("sockets.py") + probeVerdict
	probeSignals      = probe("signals.py")
	probeHostFacts    = probe("host_facts.py") + probeVerdict
	probeSharedMemory = probeLibc + probe("shared_memory.py") + probeVerdict
	probePID1Limits   = probeLibc + probe("pid1_limits.py") + probeVerdict
	probeCellEnd      = probe("cell_end.py")
)
