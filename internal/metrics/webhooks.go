package metrics

import "github.com/prometheus/client_golang/prometheus"

// Webhooks are the webhook dispatcher's collectors (docs/webhooks.md
// "Metrics"); it implements webhooks.Metrics.
type Webhooks struct {
	Attempts *prometheus.CounterVec // outcome: delivered, failed, refused
	Expired  prometheus.Counter     // deliveries given up after the retry window
	Backlog  prometheus.Gauge       // pending deliveries (due or waiting for a retry)
}

// NewWebhooks creates the webhook collectors and registers them on reg
// (the Metrics registry).
func NewWebhooks(reg prometheus.Registerer) *Webhooks {
	w := &Webhooks{
		Attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_webhook_attempts_total", Help: "Webhook delivery attempts by outcome (delivered: a 2xx; failed: another status, a timeout or a network error; refused: the target resolved to a non-public address).",
		}, []string{"outcome"}),
		Expired: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "assetd_webhook_deliveries_failed_total", Help: "Webhook deliveries given up after their 24 h retry window.",
		}),
		Backlog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "assetd_webhook_backlog", Help: "Webhook deliveries pending (due now or waiting for a retry), as of the last dispatcher pass.",
		}),
	}
	for _, o := range []string{"delivered", "failed", "refused"} {
		w.Attempts.WithLabelValues(o)
	}
	reg.MustRegister(w.Attempts, w.Expired, w.Backlog)
	return w
}

// WebhookAttempt counts one attempt.
func (w *Webhooks) WebhookAttempt(outcome string) { w.Attempts.WithLabelValues(outcome).Inc() }

// WebhookExpired counts one delivery given up.
func (w *Webhooks) WebhookExpired() { w.Expired.Inc() }

// WebhookBacklog sets the pending deliveries.
func (w *Webhooks) WebhookBacklog(n int64) { w.Backlog.Set(float64(n)) }
