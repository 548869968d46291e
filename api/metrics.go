package api

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/skald-circle/skald-bot/gate"
)

// Metrics are skald-bot's Prometheus metrics, on a registry of their own (with the Go
// and process collectors), served at GET /metrics in the text format:
//
//	skald_checks_total{decision}          checks answered through the API, by decision
//	skald_pending_requests                approval requests pending now
//	skald_resolution_seconds              time from a request's creation to its outcome
//	skald_channel_send_errors_total{channel}  failed chat sends (ChannelSendError)
//
// Safe for concurrent use.
type Metrics struct {
	reg        *prometheus.Registry
	checks     *prometheus.CounterVec
	resolution prometheus.Histogram
	sendErrors *prometheus.CounterVec
}

// NewMetrics returns the metrics on a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "skald_checks_total",
			Help: "Tool-call checks answered through the API, by decision.",
		}, []string{"decision"}),
		resolution: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "skald_resolution_seconds",
			Help: "Seconds from an approval request's creation to its outcome " +
				"(approved, rejected, expired, cancelled).",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600, 4 * 3600, 24 * 3600},
		}),
		sendErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "skald_channel_send_errors_total",
			Help: "Chat messages a channel failed to send or edit, by channel.",
		}, []string{"channel"}),
	}
	m.reg.MustRegister(m.checks, m.resolution, m.sendErrors,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ChannelSendError counts one failed send or edit by channel ("telegram", "slack").
// Channels take it as a func(channel string).
func (m *Metrics) ChannelSendError(channel string) {
	m.sendErrors.WithLabelValues(channel).Inc()
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// watchPending registers the pending-requests gauge, read from the gate at each scrape.
func (m *Metrics) watchPending(g *gate.Manager) error {
	return m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "skald_pending_requests",
		Help: "Approval requests pending now.",
	}, func() float64 {
		p, err := g.Pending()
		if err != nil {
			return -1
		}
		return float64(len(p))
	}))
}

// observeResolutions records the time to resolution of every request the gate
// resolves, reading the events of ch (a subscription the caller made, so none is
// missed from that moment) until ctx ends; the events already queued then are still
// recorded. When the gate drops the subscription as slow it subscribes again
// (resolutions in between are not observed).
func (m *Metrics) observeResolutions(ctx context.Context, g *gate.Manager,
	now func() time.Time, ch <-chan gate.Event, release func()) {
	for {
		m.observe(ctx, g, now, ch)
		release()
		if ctx.Err() != nil {
			return
		}
		ch, release = g.Subscribe(EventBuffer)
	}
}

// observe records the events of ch until it is closed or ctx ends (then it drains ch).
func (m *Metrics) observe(ctx context.Context, g *gate.Manager, now func() time.Time,
	ch <-chan gate.Event) {
	for {
		var e gate.Event
		var ok bool
		select {
		case e, ok = <-ch:
		case <-ctx.Done():
			select { // drain: take what is queued, do not wait for more
			case e, ok = <-ch:
			default:
				return
			}
		}
		if !ok {
			return
		}
		m.record(g, now, e)
	}
}

// record observes the time to resolution of an approval_resolved event's request.
func (m *Metrics) record(g *gate.Manager, now func() time.Time, e gate.Event) {
	d, ok := e.Data.(gate.ApprovalResolved)
	if !ok {
		return
	}
	q, err := g.Request(d.RequestID)
	if err != nil {
		return
	}
	at := now()
	if q.Resolution != nil && !q.Resolution.At.IsZero() {
		at = q.Resolution.At
	}
	m.resolution.Observe(at.Sub(q.CreatedAt).Seconds())
}
