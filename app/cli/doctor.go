package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"rehome/backend/core"
)

// finding is one line of `rehome doctor`.
type finding struct {
	Check  string `json:"check"`
	Status string `json:"status"` // "ok", "warn" or "fail"
	Detail string `json:"detail"`
}

func cmdDoctor(env *cliEnv, args []string) int {
	fs := env.flags("doctor", "doctor [--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := env.parseNoArgs(fs, args); !ok {
		return code
	}
	found := doctor(env)
	failed := false
	for _, f := range found {
		failed = failed || f.Status == "fail"
	}
	if *asJSON {
		env.json(map[string]any{"ok": !failed, "findings": found})
	} else {
		for _, f := range found {
			fmt.Fprintf(env.stdout, "%-4s  %-10s  %s\n", f.Status, f.Check, f.Detail)
		}
	}
	if failed {
		return exitFail
	}
	return exitOK
}

func doctor(env *cliEnv) []finding {
	var out []finding
	add := func(check, status, format string, a ...any) {
		out = append(out, finding{check, status, fmt.Sprintf(format, a...)})
	}
	dir, err := env.dir()
	if err != nil {
		add("data", "fail", "%v", err)
		return out
	}
	if err := writable(dir); err != nil {
		add("data", "fail", "%s is not writable: %v (fix its permissions or set REHOME_HOME)", dir, err)
	} else {
		add("data", "ok", "%s", dir)
	}
	c, err := env.openStore()
	var db core.DatabaseInfo
	if err == nil {
		db, err = c.Database()
	}
	switch {
	case errors.Is(err, core.ErrLocked):
		add("database", "fail", "%v", err)
	case err != nil:
		add("database", "fail", "%v", err)
	default:
		counts := ""
		for _, b := range db.Buckets {
			counts += fmt.Sprintf(", %d %s", b.Records, b.Name)
		}
		add("database", "ok", "%s (schema %d%s)", db.Path, db.Schema, counts)
		problems, err := c.CheckDatabase()
		switch {
		case err != nil:
			add("integrity", "fail", "%v", err)
		case len(problems) > 0:
			add("integrity", "fail", "%d problems, first: %v (restore a `rehome backup` copy)", len(problems), problems[0])
		default:
			add("integrity", "ok", "bbolt check found no problems")
		}
	}
	if files, err := env.assets(); err != nil {
		add("ui", "fail", "%v", err)
	} else if _, err := fs.Stat(files, "index.html"); err != nil {
		add("ui", "fail", "the frontend was not built into this binary: rebuild with `make build`")
	} else {
		add("ui", "ok", "frontend built in")
	}
	out = append(out, platformFindings()...)
	return append(out, sandboxFindings(env)...)
}

// platformFindings reports what other features need from the machine.
func platformFindings() []finding {
	var out []finding
	pciOK := false
	for _, p := range []string{"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"} {
		if _, err := os.Stat(filepath.Join(os.Getenv("GHW_CHROOT"), p)); err == nil {
			pciOK = true
		}
	}
	if pciOK {
		out = append(out, finding{"pci.ids", "ok", "device names available offline"})
	} else {
		out = append(out, finding{"pci.ids", "warn", "no pci.ids: GPUs are named by vendor only (install with `sudo apt-get install pci.ids`)"})
	}
	return out
}

func writable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
