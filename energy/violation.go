package energy

import "time"

// Finished is an external lease that has run: how long it waited in the
// queue (first start minus submission) and its duration.
type Finished struct {
	Wait     time.Duration
	Duration time.Duration
}

// ViolationRate is the waiting-threshold violation rate of docs/models.md
// §5 over the external leases of a run:
//
//	threshold = alpha * mean(Duration)   (plain mean over leases)
//	rate      = |{l : l.Wait > threshold}| / |leases|
//
// A wait equal to the threshold is not a violation. With no leases the
// rate and the threshold are 0.
func ViolationRate(leases []Finished, alpha float64) (rate float64, threshold time.Duration) {
	if len(leases) == 0 {
		return 0, 0
	}
	var sum float64
	for _, l := range leases {
		sum += l.Duration.Seconds()
	}
	limit := alpha * sum / float64(len(leases))
	violations := 0
	for _, l := range leases {
		if l.Wait.Seconds() > limit {
			violations++
		}
	}
	return float64(violations) / float64(len(leases)), time.Duration(limit * float64(time.Second))
}
