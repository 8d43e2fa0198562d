package report

import "errors"

var (
	// ErrNoReports is returned by WriteJSON, WriteTable and WriteDir when
	// they are given no report at all.
	ErrNoReports = errors.New("report: no reports to write")

	// ErrNilReport is returned when a report passed to a writer is nil.
	ErrNilReport = errors.New("report: nil report")

	// ErrFormat is returned (wrapped with the path) by WriteGantt and
	// WriteUtilisation when the file extension is neither .svg nor .png.
	ErrFormat = errors.New("report: unsupported image format (want .svg or .png)")

	// ErrNoPower is returned (wrapped with the path) by WritePower for a
	// report without power samples: the run did not model energy.
	ErrNoPower = errors.New("report: the run did not model energy")
)

// checkReports returns ErrNoReports or ErrNilReport when reports cannot be
// written.
func checkReports(reports []*Report) error {
	if len(reports) == 0 {
		return ErrNoReports
	}
	for _, r := range reports {
		if r == nil {
			return ErrNilReport
		}
	}
	return nil
}
