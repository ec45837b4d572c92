package sandbox

import (
	"fmt"
	"os"

	"github.com/containers/podman/v4/pkg/bindings"

	"rehome/backend/bytesize"

	"rehome/sandbox/link"
)

// The self-test's checks of rehome's own bounds on what comes from
// outside it (docs/security.md, "Bounds"), those it can check here.
func (e *Engine) boundsChecks(add func(name string, s Strength, format string, a ...any)) {
	// Every answer of this Podman service is bounded (link.Bounded).
	client, err := bindings.GetClient(e.connection().Context())
	if err == nil {
		if !link.IsBounded(client.Client.Transport) {
			err = fmt.Errorf("its client's transport is a %T", client.Client.Transport)
		}
	}
	if err == nil {
		add("podman answers", Held, "every answer of the Podman service at %s is read to at most %s (an error %s, attach frames %s), within %s once it starts",
			e.connection().URI, bytesize.Format(link.MaxAnswerBytes), bytesize.Format(link.MaxErrorAnswerBytes), bytesize.Format(link.MaxAttachFrame), link.AnswerTime)
	} else {
		add("podman answers", NotHeld, "the connection to the Podman service reads its answers unbounded (%v): a hostile service could grow rehome without bound", err)
	}
	// A run's private folder is made and locked in one step: a sweep of
	// another rehome cannot take it.
	roots := stageRoots(e.cacheDir())
	st, err := newStage(roots, 0)
	if err != nil {
		add("run folders", NotHeld, "no private folder for a run can be made: %v", err)
		return
	}
	sweepStages(roots)
	_, serr := os.Stat(st.dir)
	st.remove()
	if serr != nil {
		add("run folders", NotHeld, "a sweep removed a run's private folder while the run held it")
		return
	}
	add("run folders", Held, "a run's private folder (%s) is made and locked as one step; a sweep of another rehome took none in use", fmt.Sprint(roots[0]))
}
