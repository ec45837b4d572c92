// Package core is rehome's one core: it opens a data folder and wires the
// services that every face uses — the window, the browser bridge of
// `rehome serve` and each CLI command — so that they cannot drift apart:
// the store, the assistants, the audit (with the hardware detection and
// the fit advisor), the hardware cache, and the run service, which runs
// code in the Podman sandbox under the limits saved in Settings, into the
// run's output folder, and keeps the run's record.
//
// A Core is made with New, opened with Open and released with Close:
//
//	c := core.New(dir, core.Options{Log: log})
//	if err := c.Open(); err != nil { … }
//	defer c.Close()
//	res, err := c.Runs().Run(ctx, req, "cli", progress)
//
// Every call that can take time takes the caller's context: Ctrl-C in a
// terminal, or closing the window, ends it. Errors a user can act on are
// typed (LimitsError, ErrNotKept; audit.NeedVRAMError and
// models.MissingMemoryError in their packages), so that each face says
// what to do in its own words: the CLI names its flags, the UI its fields.
package core
