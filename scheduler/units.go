package scheduler

import "strconv"

// Cores writes a CPU amount, held in hundredths of a core (Haizea's unit),
// in cores as users write them: "1 core", "2 cores", "0.5 cores".
func Cores(cpu int64) string {
	s := strconv.FormatFloat(float64(cpu)/100, 'f', -1, 64)
	if cpu == 100 {
		return s + " core"
	}
	return s + " cores"
}
