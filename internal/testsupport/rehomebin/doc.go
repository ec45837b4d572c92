// Package rehomebin gives tests the rehome command to run as a user
// would: $REHOME_BIN when set (make test builds it once), else one built
// from this checkout for the test binary's life.
//
// Test support only: under internal/testsupport so that a reader sees it
// is no part of rehome itself and nothing outside the module imports it.
package rehomebin
