package main

import (
	"flag"
	"log/slog"

	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/webhooks"
)

// webhookFlags configure webhook delivery (docs/webhooks.md).
type webhookFlags struct {
	// allowPrivate admits http:// and non-public targets (tests, closed
	// networks): --webhook-allow-private.
	allowPrivate bool
}

func addWebhookFlags(fs *flag.FlagSet, f *webhookFlags) {
	fs.BoolVar(&f.allowPrivate, "webhook-allow-private", false, "let webhooks target http:// URLs and loopback, private, link-local and metadata addresses (tests and closed networks only: it turns off the SSRF guard)")
}

// webhookParts are the management service (the API's) and the dispatcher
// (run by serve) of one replica.
type webhookParts struct {
	service    *webhooks.Service
	dispatcher *webhooks.Dispatcher
}

func newWebhooks(f webhookFlags, st webhooks.Store, log webhooks.Log, m *metrics.Metrics, logger *slog.Logger) (webhookParts, error) {
	g := &webhooks.Guard{AllowPrivate: f.allowPrivate}
	if f.allowPrivate {
		logger.Warn("--webhook-allow-private: webhooks may target http:// and private addresses (the SSRF guard is off)")
	}
	d, err := webhooks.NewDispatcher(webhooks.Config{Store: st, Log: log, Guard: g, Logger: logger, Metrics: metrics.NewWebhooks(m.Registry)})
	if err != nil {
		return webhookParts{}, err
	}
	return webhookParts{service: webhooks.NewService(st, g, nil), dispatcher: d}, nil
}
