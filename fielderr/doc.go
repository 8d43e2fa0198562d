// Package fielderr holds Error, the one type for "this value, at this
// path of a form or file, is not acceptable". It is shared by the
// configuration loader, the scheduler's request checks, the drivers'
// settings and the API, so that every refusal names its field the same
// way and one place (config's loader) can add the file and line.
//
// It imports nothing from bora.
package fielderr
