package sandbox

import (
	"context"
	"errors"
	"fmt"

	"rehome/sandbox/link"
)

// Status is what the UI shows about the sandbox before a run.
type Status struct {
	// Ready: Podman answers, the image is there, a runtime works.
	Ready bool `json:"ready"`
	// Podman: a Podman service answers.
	Podman bool `json:"podman"`
	// Error says what is missing; Install how to get Podman when it is
	// not installed.
	Error       string       `json:"error,omitempty"`
	Install     string       `json:"install,omitempty"`
	Host        *Host        `json:"host,omitempty"`
	Image       *ImageStatus `json:"image,omitempty"`
	Enforcement *Enforcement `json:"enforcement,omitempty"`
	Runtime     string       `json:"runtime,omitempty"`
}

// StatusOf describes an engine (or the error that kept it from starting).
func StatusOf(ctx context.Context, e *Engine, startErr error) Status {
	if startErr != nil {
		st := Status{Error: startErr.Error()}
		if errors.Is(startErr, link.ErrPodmanMissing) {
			st.Install = link.InstallHint()
		}
		return st
	}
	h := e.Host()
	en := e.Enforcement()
	st := Status{Podman: true, Host: &h, Enforcement: &en}
	img, err := e.ImageStatus(ctx)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	st.Image = &img
	if !img.Present {
		st.Error = fmt.Sprintf("%s: %s", ErrImageMissing, img.Fix)
		return st
	}
	rt, err := e.Runtime(ctx)
	if err != nil {
		st.Error = err.Error()
		return st
	}
	h = e.Host() // the runtime probe may have switched services
	st.Host, st.Runtime, st.Ready = &h, rt, true
	return st
}
