// Package oauthtest is a real OAuth 2 provider and the API it guards, on
// 127.0.0.1, for the actions tests: the provider runs the authorization
// code flow, checks the PKCE (S256) verifier against the challenge and
// issues access and refresh tokens; the API answers only a request
// signed with the last access token it issued.
//
// Test support only: under internal/testsupport so that a reader sees it
// is no part of rehome itself.
package oauthtest
