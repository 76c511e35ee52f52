// Package dashboard is the server-rendered web dashboard at /dashboard/:
// sign-in with an identity-provider session or a local session token, the
// keys of the user's projects (create with a name, regenerate, revoke,
// scopes, limits; usage per day and per hour with route and status
// breakdown and a quota meter), the projects' v2 lists (create, rename, status, members
// through the curator search, reorder, remove, delete) and their webhooks
// (create, edit, enable or disable, rotate the secret, delete, the 7-day
// delivery log with redelivery).
//
// The dashboard acts on the user's session, never on an API key: the
// session token sits in an HttpOnly, SameSite=Strict cookie (Secure over
// TLS), every POST carries a CSRF token derived from that session, and
// every form answers Post/Redirect/Get: the POST leaves a one-shot flash
// (flash.go; a key's plaintext sealed with a key derived from the session
// token) and redirects to a page that shows it once, so a reload changes
// and mints nothing. List and webhook writes call the same lists.Service
// and webhooks.Service the API uses, so their validation (the webhook URL's
// SSRF guard included) is the API's.
package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/usage"
)

// Tokens searches and resolves tokens for list members (*lists.Reader).
type Tokens interface {
	SearchTokens(ctx context.Context, query string, limit int) ([]lists.Candidate, error)
	ResolveMints(ctx context.Context, mints []string) map[string]lists.Snapshot
}

// Projects reads memberships.
type Projects interface {
	UserProjects(ctx context.Context, userID string) ([]project.Member, error)
}

// Keys reads keys and sets their limits.
type Keys interface {
	ListKeys(ctx context.Context) ([]apikey.Key, error)
	GetKey(ctx context.Context, id string) (apikey.Key, error)
	SetKeyLimits(ctx context.Context, id string, l apikey.Limits) error
}

// KeyManager creates, regenerates and revokes keys and changes their
// scopes and names (apikey.Manager).
type KeyManager interface {
	CreateNamed(ctx context.Context, project, name string, scopes []string) (string, apikey.Key, error)
	Regenerate(ctx context.Context, id string) (string, apikey.Key, error)
	Revoke(ctx context.Context, id string) error
	SetScopes(ctx context.Context, id string, scopes []string) (apikey.Key, error)
	Rename(ctx context.Context, id, name string) (apikey.Key, error)
}

// Usage reads a key's requests from from on, per bucket (an hour or a
// day, aligned on UTC), route and status, oldest bucket first.
type Usage interface {
	UsageBuckets(ctx context.Context, keyID string, from time.Time, bucket time.Duration) ([]usage.Bucket, error)
}

// ListService is the part of lists.Service the dashboard calls.
type ListService interface {
	Create(ctx context.Context, project string, in lists.CreateInput) (lists.List, error)
	ProjectLists(ctx context.Context, project string) ([]lists.List, error)
	Get(ctx context.Context, slug string) (lists.List, error)
	Update(ctx context.Context, project, slug string, p lists.Patch) (lists.List, error)
	Delete(ctx context.Context, project, slug string) error
	Members(ctx context.Context, slug string, offset, limit int) (lists.List, []lists.Member, error)
	PutMember(ctx context.Context, project, slug, mint string, in lists.MemberInput) (lists.Member, bool, error)
	DeleteMember(ctx context.Context, project, slug, mint string) error
	AddMembers(ctx context.Context, project, slug string, members []lists.NewMember) (lists.AddResult, error)
}

// Refresher updates the in-memory list views after a write.
type Refresher interface {
	Refresh(ctx context.Context, slugs ...string) error
}

// Sessions verifies session tokens and ends them: SignOut revokes a local
// session in the store, so its token stops working on every replica.
type Sessions interface {
	session.Verifier
	SignOut(ctx context.Context, token string) error
}

// Deps are the dashboard's collaborators. Usage may be nil (the chart says
// "usage not available"); Tokens may be nil (no search); Webhooks may be
// nil (no webhook pages); Flashes may be
// nil (kept in memory: right for one replica only).
type Deps struct {
	Log        *slog.Logger
	Sessions   Sessions
	Projects   Projects
	Keys       Keys
	KeyManager KeyManager
	Usage      Usage
	Lists      ListService
	Views      Refresher
	Tokens     Tokens
	Flashes    Flashes
	// Webhooks manages the projects' webhook endpoints (nil: the
	// webhook pages answer that webhooks are not available).
	Webhooks WebhookService
	// Limits are the server's default limits (what a key without
	// overrides gets), shown as the effective limits.
	Limits ratelimit.Policy
	Now    func() time.Time
	// Store names the store sessions are read from (no secrets), for the
	// message of a failed sign-in ("" leaves it out).
	Store string
}

// Base is the path the dashboard is mounted on.
const Base = "/dashboard"

// Cookie names.
const (
	sessionCookie = "assetd_dashboard"
	preCSRFCookie = "assetd_dashboard_signin"
)

//go:embed templates/*.html
var templateFS embed.FS

// Handler serves the dashboard.
type Handler struct {
	d    Deps
	tmpl *template.Template
	mux  *http.ServeMux
}

// New builds the handler. The templates are embedded, so a parse error
// is a programming error (and fails every test of the package).
func New(d Deps) *Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Flashes == nil {
		d.Flashes = &memFlashes{m: map[string]memFlash{}}
	}
	t := template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html"))
	h := &Handler{d: d, tmpl: t, mux: http.NewServeMux()}
	h.routes()
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: https:; style-src 'self' 'unsafe-inline'; script-src 'self'; form-action 'self'; frame-ancestors 'none'")
	h.mux.ServeHTTP(w, r)
}

// user is the signed-in caller of a request.
type user struct {
	session.Identity
	CSRF     string
	Projects []project.Member
	token    string // the session token (seals flashes)
}

// csrfFor derives the per-session CSRF token: only a page served to the
// session's holder can know it.
func csrfFor(token string) string {
	sum := sha256.Sum256([]byte("assetd-dashboard-csrf\x00" + token))
	return hex.EncodeToString(sum[:16])
}

func sameToken(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// errSignedOut sends the caller to the sign-in page.
var errSignedOut = errors.New("not signed in")

// authenticate verifies the session cookie and, on POST, the CSRF token.
func (h *Handler) authenticate(r *http.Request) (*user, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return nil, errSignedOut
	}
	id, err := h.d.Sessions.Verify(r.Context(), c.Value)
	if err != nil {
		if errors.Is(err, session.ErrInvalid) {
			return nil, errSignedOut
		}
		return nil, err
	}
	u := &user{Identity: id, CSRF: csrfFor(c.Value), token: c.Value}
	if r.Method == http.MethodPost && !sameToken(r.PostFormValue("csrf"), u.CSRF) {
		return nil, errCSRF
	}
	u.Projects, err = h.d.Projects.UserProjects(r.Context(), id.UserID)
	if err != nil {
		return nil, err
	}
	return u, nil
}

var errCSRF = errors.New("missing or wrong CSRF token")

func (u *user) project(id string) (project.Member, bool) {
	for _, p := range u.Projects {
		if p.ProjectID == id {
			return p, true
		}
	}
	return project.Member{}, false
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: Base + "/", MaxAge: maxAge, HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

func randomToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
