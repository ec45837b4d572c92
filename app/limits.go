package app

import (
	"rehome/backend/core"
)

// The sandbox's limits as the user set them (Settings → Sandbox): kept by
// the run service of the core, which `rehome run` uses too.

// LimitBounds are the safe range of each limit (sandbox.MachineBounds).
type LimitBounds = core.LimitBounds

// RunLimitBounds returns the range each run limit may be set within on
// this machine: the same bounds `rehome run` applies to its flags.
func (svc *RunService) RunLimitBounds() LimitBounds {
	a := svc.app
	return a.core.Runs().Bounds()
}

// RunLimits returns the limits each Code Interpreter run gets, and `rehome
// run` too: the user's choice, else the sandbox's defaults.
func (svc *RunService) RunLimits() (core.Limits, error) {
	a := svc.app
	if err := a.ready(); err != nil {
		return core.DefaultLimits, err
	}
	return a.core.Runs().Saved()
}

// SetRunLimits checks l against RunLimitBounds and the sandbox's own rules,
// stores it and returns what is now in force.
func (svc *RunService) SetRunLimits(l core.Limits) (core.Limits, error) {
	return onStore(svc.app, func(c *core.Core) (core.Limits, error) { return c.Runs().Save(l) })
}

// ResetRunLimits goes back to the sandbox's defaults.
func (svc *RunService) ResetRunLimits() (core.Limits, error) {
	return onStore(svc.app, func(c *core.Core) (core.Limits, error) { return c.Runs().Reset() })
}
