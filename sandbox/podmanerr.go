package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/containers/podman/v4/libpod/define"
	"github.com/containers/podman/v4/pkg/errorhandling"
)

// The Podman service's errors, read and said in one line.

func isNotFound(err error) bool {
	var em *errorhandling.ErrorModel
	if errors.As(err, &em) && em.ResponseCode == http.StatusNotFound {
		return true
	}
	return errors.Is(err, define.ErrNoSuchCtr) || strings.Contains(err.Error(), "no such container")
}

func isRuntimeFailure(err error) bool {
	s := err.Error()
	return strings.Contains(s, "OCI runtime") || strings.Contains(s, "runc") || strings.Contains(s, "crun")
}

// explain turns a service error into one line, with a hint where we know one.
func explain(err error) error {
	var em *errorhandling.ErrorModel
	if errors.As(err, &em) {
		msg := em.Message
		if msg == "" {
			msg = em.Because
		}
		if strings.Contains(msg, "image not known") || strings.Contains(msg, "no such image") {
			return fmt.Errorf("%s: %w", msg, ErrImageMissing)
		}
		return errors.New(msg)
	}
	return err
}
