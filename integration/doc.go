// Package integration holds end-to-end tests that build bora's real
// binaries and run them as a user would: `bora simulate` over the shipped
// traces now, and the daemon with its drivers as they land.
package integration
