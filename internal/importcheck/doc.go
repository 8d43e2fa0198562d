// Package importcheck holds no code: its test checks bora's package
// graph against allowed-imports.txt, the way Kubernetes checks import
// restrictions (import-boss). Each bora package lists the bora packages
// it may import; a line with "!:" lists what a package or command must
// not link at all, directly or through others (borad: the simulator, the
// report writer and the plotting libraries).
//
// The test runs `go list -deps` once over the module and needs the go
// command; without it, it is skipped with a message saying so.
package importcheck
