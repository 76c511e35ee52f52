package events

import (
	"fmt"
	"strings"

	"github.com/assetd/assetd/internal/registry"
)

// Topic names a subscriber filters on. Each event has exactly one topic.
const (
	TopicAdvisories = "advisories"
	TopicTrending   = "trending"
	TopicDepeg      = "depeg"
	// TopicPricePrefix + mint and TopicListPrefix + slug are per-mint and
	// per-list topics.
	TopicPricePrefix = "price:"
	TopicListPrefix  = "list:"
)

// PriceTopic is the topic of mint's price events.
func PriceTopic(mint string) string { return TopicPricePrefix + mint }

// ListTopic is the topic of a list's events.
func ListTopic(slug string) string { return TopicListPrefix + slug }

// TopicError is a refused topics parameter; Code is the error's
// details.code.
type TopicError struct {
	Code  string // CodeMissingTopics, CodeInvalidTopic
	Topic string
	Msg   string
}

func (e *TopicError) Error() string { return e.Msg }

// Topic error codes: the API's details.code of a missing or invalid
// parameter.
const (
	CodeMissingTopics = "missing_param"
	CodeInvalidTopic  = "invalid_param"
)

// ParseTopics parses a comma-separated topic list (price:<mint>,
// advisories, list:<slug>, trending, depeg), dropping duplicates and
// keeping the order given.
func ParseTopics(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, &TopicError{Code: CodeMissingTopics, Msg: "topics is required: a comma list of price:<mint>, advisories, list:<slug>, trending, depeg"}
	}
	parts := strings.Split(s, ",")
	out := make([]string, 0, len(parts))
	seen := make(map[string]bool, len(parts))
	for _, p := range parts {
		t := strings.TrimSpace(p)
		if err := checkTopic(t); err != nil {
			return nil, err
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

func checkTopic(t string) error {
	switch {
	case t == TopicAdvisories || t == TopicTrending || t == TopicDepeg:
		return nil
	case strings.HasPrefix(t, TopicPricePrefix):
		if registry.ValidMint(t[len(TopicPricePrefix):]) {
			return nil
		}
		return &TopicError{Code: CodeInvalidTopic, Topic: t, Msg: fmt.Sprintf("topic %q: price:<mint> needs a base58 Solana address", clip(t))}
	case strings.HasPrefix(t, TopicListPrefix):
		if validSlug(t[len(TopicListPrefix):]) {
			return nil
		}
		return &TopicError{Code: CodeInvalidTopic, Topic: t, Msg: fmt.Sprintf("topic %q: list:<slug> needs a list slug ([a-z0-9-], 1-64)", clip(t))}
	}
	return &TopicError{Code: CodeInvalidTopic, Topic: t, Msg: fmt.Sprintf("unknown topic %q: use price:<mint>, advisories, list:<slug>, trending or depeg", clip(t))}
}

func validSlug(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return false
		}
	}
	return true
}

// clip bounds a caller's string echoed in a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
