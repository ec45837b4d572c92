package app

// uiError says a domain error in the UI's words: where the backend names
// a missing fact, the UI names the field or button that gives it (the
// CLI names its flags instead; see cli_errors.go).
func uiError(err error) error {
	return err
}
