package cli

import (
	"fmt"
	"os"
)

// cmdBackup is `rehome backup FILE`: a consistent copy of the database, taken
// while rehome runs.
func cmdBackup(env *cliEnv, args []string) int {
	fs := env.flags("backup", "backup FILE")
	if code, ok := env.parseArg(fs, args, "backup: give the file to write, e.g. `rehome backup ~/rehome-backup.db`"); !ok {
		return code
	}
	dst := env.path(fs.Arg(0))
	if st, err := os.Stat(dst); err == nil && st.IsDir() {
		return env.usage("backup: %s is a folder: give a file name", dst)
	}
	c, err := env.openStore()
	if err != nil {
		return env.fail(err)
	}
	n, err := c.BackupFile(dst)
	if err != nil {
		return env.fail(err)
	}
	fmt.Fprintf(env.stdout, "Wrote %s (%d bytes). Restore by copying it to %s while rehome is closed.\n", dst, n, c.DatabasePath())
	return exitOK
}
