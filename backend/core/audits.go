package core

import (
	"rehome/backend/audit"
	"rehome/backend/hardware"
)

// Audits is the audit service as every face sees it: run, list, compare,
// the checklist, wired to the hardware detection and the fit advisor.
type Audits struct {
	*audit.Service
}

// Hardware is this machine's hardware, detected once and kept: Report
// reads it, Refresh detects it again.
type Hardware struct {
	*hardware.Cache
}
