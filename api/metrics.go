package api

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the server's own collectors, registered in the daemon's
// registry next to the scheduler's.
type metrics struct {
	requests *prometheus.CounterVec   // by route and status code
	duration *prometheus.HistogramVec // by route
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "bora",
			Subsystem: "api",
			Name:      "requests_total",
			Help:      "API requests answered, by route (the ServeMux pattern, or \"unmatched\") and status code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "bora",
			Subsystem: "api",
			Name:      "request_duration_seconds",
			Help:      "Time to answer an API request, by route.",
			Buckets:   []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observe(route string, code int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	m.duration.WithLabelValues(route).Observe(d.Seconds())
}
