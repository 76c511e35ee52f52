package dashboard

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/storage"
)

// Flashes stores the dashboard's one-shot confirmations (the store's
// dashboard_flashes table, so every replica can show one another wrote).
// TakeFlash returns and deletes a flash, or an error wrapping
// storage.ErrNotFound when it is missing, taken or expired; PutFlash also
// deletes the flashes expired before now.
type Flashes interface {
	PutFlash(ctx context.Context, id string, payload []byte, now, expires time.Time) error
	TakeFlash(ctx context.Context, id string, now time.Time) ([]byte, error)
}

// flashTTL is how long a flash waits for the GET its POST redirects to.
const flashTTL = 5 * time.Minute

// flashParam is the query parameter carrying a flash's id.
const flashParam = "flash"

// flash is what a form's POST leaves for the page it redirects to: a
// confirmation and, after a key is created or regenerated or a webhook is
// created or its secret rotated, the secret.
type flash struct {
	Message string `json:"m"`
	Secret  string `json:"s,omitempty"`
	KeyID   string `json:"k,omitempty"`
	KeyName string `json:"n,omitempty"`
	// Webhook is the endpoint whose signing secret Secret is (instead of
	// a key's).
	Webhook string `json:"w,omitempty"`
}

// flashView is a page's flash: the flash, or Gone when the URL named one
// that was shown already (a reload) or expired.
type flashView struct {
	flash
	Gone bool
}

// flashKey derives the AES-256 key that seals a session's flashes from
// its session token, which only the user's browser and the request hold:
// the stored payload is useless without the session cookie.
func flashKey(sessionToken string) []byte {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("assetd-dashboard-flash"))
	return m.Sum(nil)
}

func flashAEAD(sessionToken string) cipher.AEAD {
	b, err := aes.NewCipher(flashKey(sessionToken))
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	g, err := cipher.NewGCM(b)
	if err != nil {
		panic(err) // the standard nonce size is always valid
	}
	return g
}

// sealFlash encrypts f for the session, bound to the flash id.
func sealFlash(sessionToken, id string, f flash) ([]byte, error) {
	plain, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	g := flashAEAD(sessionToken)
	nonce := make([]byte, g.NonceSize(), g.NonceSize()+len(plain)+g.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails on supported platforms
	return g.Seal(nonce, nonce, plain, []byte(id)), nil
}

var errFlashSeal = errors.New("flash does not open with this session")

// openFlash decrypts a payload sealed by sealFlash for the same session
// and id.
func openFlash(sessionToken, id string, payload []byte) (flash, error) {
	var f flash
	g := flashAEAD(sessionToken)
	if len(payload) < g.NonceSize() {
		return f, errFlashSeal
	}
	plain, err := g.Open(nil, payload[:g.NonceSize()], payload[g.NonceSize():], []byte(id))
	if err != nil {
		return f, errFlashSeal
	}
	if err := json.Unmarshal(plain, &f); err != nil {
		return f, fmt.Errorf("flash: %w", err)
	}
	return f, nil
}

// redirectFlash stores f for the user's session and answers 303 to
// target with the flash's id: Post/Redirect/Get, so a reload of the page
// re-sends a GET that changes nothing.
func (h *Handler) redirectFlash(w http.ResponseWriter, r *http.Request, u *user, target string, f flash) error {
	id := randomToken()
	payload, err := sealFlash(u.token, id, f)
	if err != nil {
		return err
	}
	now := h.d.Now()
	if err := h.d.Flashes.PutFlash(r.Context(), id, payload, now, now.Add(flashTTL)); err != nil {
		return fmt.Errorf("dashboard flash: %w", err)
	}
	http.Redirect(w, r, target+"?"+flashParam+"="+id, http.StatusSeeOther)
	return nil
}

// takeFlash returns the request's flash once: a second GET of the same
// URL (a reload, the back button) finds it gone.
func (h *Handler) takeFlash(r *http.Request, u *user) flashView {
	id := r.URL.Query().Get(flashParam)
	if id == "" || len(id) > 64 {
		return flashView{}
	}
	payload, err := h.d.Flashes.TakeFlash(r.Context(), id, h.d.Now())
	if err != nil {
		if !errors.Is(err, storage.ErrNotFound) {
			h.d.Log.WarnContext(r.Context(), "dashboard: flash read failed", "err", err)
		}
		return flashView{Gone: true}
	}
	f, err := openFlash(u.token, id, payload)
	if err != nil {
		return flashView{Gone: true}
	}
	return flashView{flash: f}
}

// memFlashes keeps flashes in memory: the fallback when Deps.Flashes is
// nil (one replica only).
type memFlashes struct {
	mu sync.Mutex
	m  map[string]memFlash
}

type memFlash struct {
	payload []byte
	expires time.Time
}

func (m *memFlashes) PutFlash(_ context.Context, id string, payload []byte, now, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, f := range m.m {
		if f.expires.Before(now) {
			delete(m.m, k)
		}
	}
	if _, dup := m.m[id]; dup {
		return fmt.Errorf("flash %s: %w", id, storage.ErrConflict)
	}
	m.m[id] = memFlash{payload: payload, expires: expires}
	return nil
}

func (m *memFlashes) TakeFlash(_ context.Context, id string, now time.Time) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.m[id]
	delete(m.m, id)
	if !ok || f.expires.Before(now) {
		return nil, fmt.Errorf("flash %s: %w", id, storage.ErrNotFound)
	}
	return f.payload, nil
}
