package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	recipe "rehome/sandbox/recipe"
)

// The seccomp profile travels with the image. The profile
// (recipe.SeccompProfile: Podman's default with the kernel surfaces the
// code has no use for taken away; its reasons are in sandbox/recipe) is in
// the sandbox image as the label Podman reads a profile from,
// recipe.SeccompLabel, set when the image is built, and every container
// rehome starts asks for the image's profile (SeccompPolicy "image",
// spec.go), never for a file by path. A path would be read by the Podman
// service on its own machine: on a team host the file is not there (or
// another file of that name is). The profile's digest is part of the
// recipe's tag, so a changed profile is a new image.
//
// Podman 4.3 refuses to create a container whose image lacks the label
// ("no seccomp policy defined by image"); rehome checks before each run
// that the stored image carries this very profile (its SHA-256), so an
// image tagged as rehome's by other means is refused in words.

// seccompProfile is the profile the sandbox image carries.
var seccompProfile = recipe.SeccompProfile

// seccompPolicy is the spec's seccomp policy: the image's label.
const seccompPolicy = "image"

// checkSeccompLabel checks an image's labels for rehome's seccomp profile.
// fix is the command that reloads the image.
func (e *Engine) checkSeccompLabel(labels map[string]string, fix string) error {
	got, ok := labels[recipe.SeccompLabel]
	if ok {
		sum := sha256.Sum256([]byte(got))
		if hex.EncodeToString(sum[:]) == recipe.SeccompSHA256() {
			return nil
		}
	}
	what := "lacks rehome's seccomp profile"
	if ok {
		what = "carries a seccomp profile other than rehome's"
	}
	return &seccompError{fmt.Sprintf("the sandbox image %s on %s %s, so the sandbox would not hold there: reload it with `%s`",
		e.image, e.serviceName(), what, fix)}
}

// seccompError is errImageSeccomp in the words of the image and service.
type seccompError struct{ msg string }

func (s *seccompError) Error() string        { return s.msg }
func (s *seccompError) Is(target error) bool { return target == errImageSeccomp }

// reloadCommand is the command that loads this recipe's image onto the
// service again: `rehome sandbox image load` with the archive at hand
// (and --podman for a team host), else the build.
func (e *Engine) reloadCommand() string {
	archive, ok := e.findArchive()
	if !ok {
		archive = "FILE"
		if !e.Host().FilesTravel {
			return "rehome sandbox image build --force"
		}
	}
	cmd := "rehome sandbox image load "
	if e.Host().FilesTravel {
		cmd += "--podman " + shellQuote(e.Host().ServiceURI) + " "
	}
	return cmd + shellQuote(archive)
}
