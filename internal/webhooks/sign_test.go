package webhooks

import (
	"errors"
	"testing"
	"time"
)

// The Standard Webhooks specification's published test vector: a
// receiver's library must accept what we send.
func TestSignStandardVector(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"test": 2432232314}`)
	got, err := Sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", time.Unix(1614265330, 0), body)
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("Sign = %q, want %q", got, want)
	}
	now := time.Unix(1614265330+60, 0)
	if err := Verify(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "v1,bm9wZQ== "+got, body, now, 5*time.Minute); err != nil {
		t.Errorf("Verify of the vector: %v", err)
	}
	for name, tc := range map[string]struct {
		id, ts, sig string
		now         time.Time
	}{
		"other id":        {"msg_other", "1614265330", got, now},
		"other timestamp": {"msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265331", got, now},
		"too old":         {"msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", got, now.Add(time.Hour)},
		"v2 scheme":       {"msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "v2," + got[3:], now},
		"no signature":    {"msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", "", now},
	} {
		if err := Verify(secret, tc.id, tc.ts, tc.sig, body, tc.now, 5*time.Minute); !errors.Is(err, ErrSignature) {
			t.Errorf("%s: Verify = %v, want ErrSignature", name, err)
		}
	}
}

func TestNewSecretSignsAndVerifies(t *testing.T) {
	s, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != len(SecretPrefix)+44 || s[:len(SecretPrefix)] != SecretPrefix {
		t.Fatalf("secret %q: want whsec_ and 44 base64 characters", s)
	}
	at := time.Unix(1_800_000_000, 0)
	sig, err := Sign(s, "msg_x", at, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(s, "msg_x", "1800000000", sig, []byte("{}"), at, time.Minute); err != nil {
		t.Fatal(err)
	}
}
