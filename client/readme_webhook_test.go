package client_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/webhooks"
)

// The README's webhook receiver example ("Webhooks"), kept byte-identical
// by TestREADMEWebhookExampleIsThisCode.

// verifyWebhook checks an assetd delivery (Standard Webhooks): secret is the
// whsec_… shown at creation, body the raw request body.
func verifyWebhook(secret string, h http.Header, body []byte, now time.Time) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return errors.New("stale or missing webhook-timestamp")
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.%s", id, ts, body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil // retries carry the same webhook-id: dedupe on it
		}
	}
	return errors.New("no valid webhook-signature")
}

// end of the README webhook example

func TestREADMEWebhookExample(t *testing.T) {
	// The Standard Webhooks specification's test vector.
	h := http.Header{}
	h.Set("webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek")
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	body := []byte(`{"test": 2432232314}`)
	at := time.Unix(1614265330, 0)
	if err := verifyWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", h, body, at); err != nil {
		t.Fatalf("vector: %v", err)
	}
	if err := verifyWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", h, []byte(`{"test": 1}`), at); err == nil {
		t.Error("a changed body verified")
	}
	if err := verifyWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", h, body, at.Add(time.Hour)); err == nil {
		t.Error("a stale timestamp verified")
	}
	// What assetd signs, the example accepts.
	secret, err := webhooks.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := webhooks.Sign(secret, "msg_synthetic", at, body)
	if err != nil {
		t.Fatal(err)
	}
	h.Set("webhook-id", "msg_synthetic")
	h.Set("webhook-signature", "v1,bm9wZQ== "+sig)
	if err := verifyWebhook(secret, h, body, at.Add(time.Minute)); err != nil {
		t.Fatalf("assetd's signature: %v", err)
	}
}

// TestREADMEWebhookExampleIsThisCode fails when README.md's receiver
// example and the compiled copy above differ.
func TestREADMEWebhookExampleIsThisCode(t *testing.T) {
	readmeBlockIsThisCode(t, "readme_webhook_test.go", "// verifyWebhook checks", "// end of the README webhook example")
}
