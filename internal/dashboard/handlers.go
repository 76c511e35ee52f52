package dashboard

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/usage"
	"github.com/assetd/assetd/internal/webhooks"
)

func (h *Handler) routes() {
	m := h.mux
	m.HandleFunc("GET "+Base+"/{$}", h.page(h.home))
	m.HandleFunc("POST "+Base+"/signin", h.signIn)
	m.HandleFunc("POST "+Base+"/signout", h.page(h.signOut))
	m.HandleFunc("GET "+Base+"/app.js", h.script)
	m.HandleFunc("GET "+Base+"/p/{project}/{$}", h.page(h.projectPage))
	m.HandleFunc("POST "+Base+"/p/{project}/keys", h.page(h.keyCreate))
	m.HandleFunc("POST "+Base+"/p/{project}/keys/{key}/regenerate", h.page(h.keyRegenerate))
	m.HandleFunc("POST "+Base+"/p/{project}/keys/{key}/revoke", h.page(h.keyRevoke))
	m.HandleFunc("POST "+Base+"/p/{project}/keys/{key}/limits", h.page(h.keyLimits))
	m.HandleFunc("POST "+Base+"/p/{project}/keys/{key}/scopes", h.page(h.keyScopes))
	m.HandleFunc("POST "+Base+"/p/{project}/keys/{key}/name", h.page(h.keyName))
	m.HandleFunc("GET "+Base+"/p/{project}/keys/{key}/{$}", h.page(h.keyPage))
	m.HandleFunc("POST "+Base+"/p/{project}/lists", h.page(h.listCreate))
	m.HandleFunc("GET "+Base+"/p/{project}/lists/{slug}/{$}", h.page(h.listPage))
	m.HandleFunc("POST "+Base+"/p/{project}/lists/{slug}/update", h.page(h.listUpdate))
	m.HandleFunc("POST "+Base+"/p/{project}/lists/{slug}/delete", h.page(h.listDelete))
	m.HandleFunc("POST "+Base+"/p/{project}/lists/{slug}/members", h.page(h.membersAdd))
	m.HandleFunc("POST "+Base+"/p/{project}/lists/{slug}/members/{mint}/remove", h.page(h.memberRemove))
	m.HandleFunc("POST "+Base+"/p/{project}/lists/{slug}/members/{mint}/move", h.page(h.memberMove))
	m.HandleFunc("GET "+Base+"/p/{project}/webhooks/{$}", h.page(h.webhooksPage))
	m.HandleFunc("POST "+Base+"/p/{project}/webhooks", h.page(h.webhookCreate))
	m.HandleFunc("GET "+Base+"/p/{project}/webhooks/{id}/{$}", h.page(h.webhookPage))
	m.HandleFunc("POST "+Base+"/p/{project}/webhooks/{id}/update", h.page(h.webhookUpdate))
	m.HandleFunc("POST "+Base+"/p/{project}/webhooks/{id}/enabled", h.page(h.webhookEnabled))
	m.HandleFunc("POST "+Base+"/p/{project}/webhooks/{id}/secret", h.page(h.webhookRotate))
	m.HandleFunc("POST "+Base+"/p/{project}/webhooks/{id}/delete", h.page(h.webhookDelete))
	m.HandleFunc("GET "+Base+"/p/{project}/webhooks/{id}/deliveries/{$}", h.page(h.deliveriesPage))
	m.HandleFunc("POST "+Base+"/p/{project}/webhooks/{id}/deliveries/{delivery}/redeliver", h.page(h.redeliver))
}

// pageFunc handles a request of a signed-in user.
type pageFunc func(w http.ResponseWriter, r *http.Request, u *user) error

// userError is shown to the user on the page (400).
type userError struct{ msg string }

func (e userError) Error() string { return e.msg }

func (h *Handler) page(fn pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		}
		u, err := h.authenticate(r)
		if err == nil {
			err = fn(w, r, u)
		}
		switch {
		case err == nil:
		case errors.Is(err, errSignedOut):
			if r.Method == http.MethodGet && r.URL.Path == Base+"/" {
				msg := ""
				if r.URL.Query().Get("signin") == "failed" {
					msg = h.signInFailed()
				}
				h.signInPage(w, r, msg)
				return
			}
			http.Redirect(w, r, Base+"/", http.StatusSeeOther)
		case errors.Is(err, errCSRF):
			h.render(w, http.StatusForbidden, "error", errorData{User: u, Message: "This form expired. Go back, reload the page and try again."})
		case errors.Is(err, errNoProject):
			h.render(w, http.StatusNotFound, "error", errorData{User: u, Message: "No such project, or you are not a member of it."})
		case errors.Is(err, storage.ErrNotFound):
			h.render(w, http.StatusNotFound, "error", errorData{User: u, Message: "Not found."})
		case errors.Is(err, webhooks.ErrNotFound):
			h.render(w, http.StatusNotFound, "error", errorData{User: u, Message: "No such webhook or delivery in this project."})
		default:
			var ue userError
			var re *lists.RuleError
			var ie *webhooks.InputError
			switch {
			case errors.As(err, &ue):
				h.render(w, http.StatusBadRequest, "error", errorData{User: u, Message: ue.msg})
			case errors.As(err, &re):
				h.render(w, http.StatusBadRequest, "error", errorData{User: u, Message: re.Message})
			case errors.As(err, &ie):
				h.render(w, http.StatusBadRequest, "error", errorData{User: u, Message: ie.Message})
			case errors.Is(err, lists.ErrForbidden):
				h.render(w, http.StatusForbidden, "error", errorData{User: u, Message: "This list belongs to another project."})
			default:
				h.d.Log.ErrorContext(r.Context(), "dashboard request failed", "path", r.URL.Path, "err", err)
				h.render(w, http.StatusInternalServerError, "error", errorData{User: u, Message: "Something went wrong; it has been logged."})
			}
		}
	}
}

func (h *Handler) render(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := h.tmpl.ExecuteTemplate(w, name, data); err != nil {
		h.d.Log.Error("dashboard template failed", "template", name, "err", err)
	}
}

type errorData struct {
	User    *user
	Message string
}

type signInData struct {
	CSRF    string
	Message string
}

// signInPage sets a pre-session CSRF cookie (double submit) and renders
// the form.
func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request, msg string) {
	tok := randomToken()
	setCookie(w, r, preCSRFCookie, tok, 3600)
	status := http.StatusOK
	if msg != "" {
		status = http.StatusUnauthorized
	}
	h.render(w, status, "signin", signInData{CSRF: tok, Message: msg})
}

// signInFailed is the sign-in page's message after a refused token.
func (h *Handler) signInFailed() string {
	msg := "That session is invalid or expired."
	if h.d.Store != "" {
		msg += " This server reads sessions from " + h.d.Store + "; a session created in another store is unknown here."
	}
	return msg
}

// signIn verifies a session token (local or identity-provider JWT) and
// stores it in the session cookie.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	c, err := r.Cookie(preCSRFCookie)
	if err != nil || !sameToken(r.PostFormValue("csrf"), c.Value) {
		h.render(w, http.StatusForbidden, "error", errorData{Message: "This form expired. Go back, reload the page and try again."})
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	if _, err := h.d.Sessions.Verify(r.Context(), token); err != nil {
		if !errors.Is(err, session.ErrInvalid) {
			h.d.Log.ErrorContext(r.Context(), "dashboard sign-in failed", "err", err)
		}
		// Post/Redirect/Get: a reload of the answer re-sends no token.
		http.Redirect(w, r, Base+"/?signin=failed", http.StatusSeeOther)
		return
	}
	setCookie(w, r, preCSRFCookie, "", -1)
	setCookie(w, r, sessionCookie, token, 0)
	http.Redirect(w, r, Base+"/", http.StatusSeeOther)
}

// signOut revokes the session server-side, then drops the cookie: a copy
// of the token (another browser, a leaked cookie) stops working too.
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request, _ *user) error {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if err := h.d.Sessions.SignOut(r.Context(), c.Value); err != nil {
			return err
		}
	}
	setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, Base+"/", http.StatusSeeOther)
	return nil
}

func (h *Handler) home(w http.ResponseWriter, r *http.Request, u *user) error {
	if len(u.Projects) == 1 {
		http.Redirect(w, r, projectURL(u.Projects[0].ProjectID), http.StatusSeeOther)
		return nil
	}
	h.render(w, http.StatusOK, "home", struct{ User *user }{u})
	return nil
}

var errNoProject = errors.New("no such project")

// member returns the caller's membership of the path's project.
func member(r *http.Request, u *user) (project.Member, error) {
	p, ok := u.project(r.PathValue("project"))
	if !ok {
		return p, errNoProject
	}
	return p, nil
}

// manager is member for actions that need owner or admin.
func manager(r *http.Request, u *user) (project.Member, error) {
	p, err := member(r, u)
	if err == nil && !project.CanManage(p.Role) {
		err = userError{"Only owners and admins of " + p.Project + " may change its keys."}
	}
	return p, err
}

func projectURL(id string) string { return Base + "/p/" + url.PathEscape(id) + "/" }

func listURL(projectID, slug string) string {
	return projectURL(projectID) + "lists/" + url.PathEscape(slug) + "/"
}

// keyRow is one key as the project page shows it.
type keyRow struct {
	apikey.Key
	Prefix   string
	LastUsed string
}

// DisplayName is the key's name, or its id when it has none.
func (k keyRow) DisplayName() string {
	if k.Name != "" {
		return k.Name
	}
	return k.ID
}

type projectData struct {
	User          *user
	Project       project.Member
	CanManage     bool
	Keys          []keyRow
	Lists         []lists.List
	Scopes        []string
	DefaultScopes []string
	Statuses      []string
	Flash         flashView
	// Webhooks counts the project's webhooks (-1: webhooks are not
	// available on this server).
	Webhooks int
	// BaseURL is this server's origin, for the quickstart snippet.
	BaseURL string
}

// Checked reports whether the new-key form ticks scope s by default: the
// CLI's default scopes.
func (d projectData) Checked(s string) bool { return slices.Contains(d.DefaultScopes, s) }

func (h *Handler) projectData(ctx context.Context, u *user, p project.Member) (projectData, error) {
	def, _ := apikey.ParseScopes("") // the CLI's default (apikey.DefaultScopeList)
	d := projectData{User: u, Project: p, CanManage: project.CanManage(p.Role), Scopes: apikey.AllScopes[:],
		DefaultScopes: def, Statuses: lists.CreateStatuses}
	all, err := h.d.Keys.ListKeys(ctx)
	if err != nil {
		return d, err
	}
	now := h.d.Now().UTC()
	for _, k := range all {
		if k.ProjectID != p.ProjectID {
			continue
		}
		row := keyRow{Key: k, Prefix: keyPrefix(k), LastUsed: "usage not available"}
		if h.d.Usage != nil {
			if b, err := h.d.Usage.UsageBuckets(ctx, k.ID, now.AddDate(0, 0, -usageDays), 24*time.Hour); err == nil {
				row.LastUsed = lastUsedText(lastUsed(b), k.CreatedAt, now)
			} else {
				h.d.Log.WarnContext(ctx, "dashboard: usage read failed", "key", k.ID, "err", err)
			}
		}
		d.Keys = append(d.Keys, row)
	}
	slices.SortFunc(d.Keys, func(a, b keyRow) int { return b.CreatedAt.Compare(a.CreatedAt) })
	d.Lists, err = h.d.Lists.ProjectLists(ctx, p.ProjectID)
	if err != nil {
		return d, err
	}
	d.Webhooks = -1
	if h.d.Webhooks != nil {
		eps, err := h.d.Webhooks.List(ctx, p.ProjectID)
		if err != nil {
			return d, err
		}
		d.Webhooks = len(eps)
	}
	return d, nil
}

// keyPrefix identifies a key without its secret: the plaintext prefix
// every key shares and the first hex digits of the SHA-256 of the
// plaintext (the store keeps only the hash), which a holder of the secret
// can recompute.
func keyPrefix(k apikey.Key) string { return apikey.Prefix + " · " + k.Hash[:min(8, len(k.Hash))] }

// baseURL is the origin the browser reached this server on.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (h *Handler) projectPage(w http.ResponseWriter, r *http.Request, u *user) error {
	p, err := member(r, u)
	if err != nil {
		return err
	}
	d, err := h.projectData(r.Context(), u, p)
	if err != nil {
		return err
	}
	d.Flash, d.BaseURL = h.takeFlash(r, u), baseURL(r)
	h.render(w, http.StatusOK, "project", d)
	return nil
}

// projectKey returns the key of the path if it belongs to project p.
func (h *Handler) projectKey(r *http.Request, p project.Member) (apikey.Key, error) {
	k, err := h.d.Keys.GetKey(r.Context(), r.PathValue("key"))
	if err != nil {
		return k, err
	}
	if k.ProjectID != p.ProjectID {
		return k, fmt.Errorf("key %s: %w", k.ID, storage.ErrNotFound)
	}
	return k, nil
}

// managedKey is the path's key for a change by an owner or admin of its
// project.
func (h *Handler) managedKey(r *http.Request, u *user) (project.Member, apikey.Key, error) {
	p, err := manager(r, u)
	if err != nil {
		return p, apikey.Key{}, err
	}
	k, err := h.projectKey(r, p)
	return p, k, err
}

func keyURL(projectID, keyID string) string {
	return projectURL(projectID) + "keys/" + url.PathEscape(keyID) + "/"
}

func (h *Handler) keyCreate(w http.ResponseWriter, r *http.Request, u *user) error {
	p, err := manager(r, u)
	if err != nil {
		return err
	}
	name, err := apikey.CleanName(r.PostFormValue("name"))
	if err != nil {
		return userError{"Key name: " + err.Error() + "."}
	}
	if len(r.PostForm["scope"]) == 0 {
		return userError{"Tick at least one scope: a key without scopes could call nothing."}
	}
	scopes, err := apikey.ParseScopes(strings.Join(r.PostForm["scope"], ","))
	if err != nil {
		return userError{err.Error()}
	}
	plain, k, err := h.d.KeyManager.CreateNamed(r.Context(), p.Project, name, scopes)
	if err != nil {
		return err
	}
	h.d.Log.InfoContext(r.Context(), "dashboard: key created", "key", k.ID, "project", p.ProjectID, "user", u.UserID)
	return h.redirectFlash(w, r, u, projectURL(p.ProjectID), flash{
		Message: "Key " + keyRow{Key: k}.DisplayName() + " (" + k.ID + ") created.", Secret: plain, KeyID: k.ID, KeyName: k.Name})
}

func (h *Handler) keyRegenerate(w http.ResponseWriter, r *http.Request, u *user) error {
	p, k, err := h.managedKey(r, u)
	if err != nil {
		return err
	}
	if !k.Active() {
		return userError{"Key " + k.ID + " is revoked."}
	}
	plain, next, err := h.d.KeyManager.Regenerate(r.Context(), k.ID)
	if err != nil {
		return err
	}
	h.d.Log.InfoContext(r.Context(), "dashboard: key regenerated", "old", k.ID, "key", next.ID, "user", u.UserID)
	return h.redirectFlash(w, r, u, projectURL(p.ProjectID), flash{
		Message: "Key " + k.ID + " was regenerated as " + next.ID + "; the previous secret no longer works.",
		Secret:  plain, KeyID: next.ID, KeyName: next.Name})
}

func (h *Handler) keyRevoke(w http.ResponseWriter, r *http.Request, u *user) error {
	p, k, err := h.managedKey(r, u)
	if err != nil {
		return err
	}
	if err := h.d.KeyManager.Revoke(r.Context(), k.ID); err != nil {
		return err
	}
	h.d.Log.InfoContext(r.Context(), "dashboard: key revoked", "key", k.ID, "user", u.UserID)
	return h.redirectFlash(w, r, u, projectURL(p.ProjectID), flash{Message: "Key " + k.ID + " revoked: it no longer authenticates."})
}

func formInt(r *http.Request, name string) (int64, error) {
	v := strings.TrimSpace(r.PostFormValue(name))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > 1e12 {
		return 0, userError{name + " must be a whole number from 0 (server default) up"}
	}
	return n, nil
}

func (h *Handler) keyLimits(w http.ResponseWriter, r *http.Request, u *user) error {
	p, k, err := h.managedKey(r, u)
	if err != nil {
		return err
	}
	reqs, err := formInt(r, "rateRequests")
	if err != nil {
		return err
	}
	win, err := formInt(r, "rateWindowSeconds")
	if err != nil {
		return err
	}
	quota, err := formInt(r, "quotaPerMonth")
	if err != nil {
		return err
	}
	if (reqs == 0) != (win == 0) {
		return userError{"set both the rate and its window, or neither"}
	}
	l := apikey.Limits{RateRequests: int(reqs), RateWindow: time.Duration(win) * time.Second, QuotaPerMonth: quota}
	if err := h.d.Keys.SetKeyLimits(r.Context(), k.ID, l); err != nil {
		return err
	}
	v := effectiveLimits(l, h.d.Limits)
	return h.redirectFlash(w, r, u, keyURL(p.ProjectID, k.ID), flash{
		Message: fmt.Sprintf("Limits saved: rate %s (%s), monthly quota %s (%s).", v.Rate, v.RateSource, quotaText(v.Quota), v.QuotaSource)})
}

func quotaText(q int64) string {
	if q <= 0 {
		return "none"
	}
	return strconv.FormatInt(q, 10)
}

// keyScopes replaces an active key's scopes with the ticked ones (at
// least one). Every replica applies the change within one key reload.
func (h *Handler) keyScopes(w http.ResponseWriter, r *http.Request, u *user) error {
	p, k, err := h.managedKey(r, u)
	if err != nil {
		return err
	}
	if !k.Active() {
		return userError{"Key " + k.ID + " is revoked."}
	}
	scopes := r.PostForm["scope"]
	if len(scopes) == 0 {
		return userError{"Tick at least one scope: a key without scopes could call nothing."}
	}
	for _, s := range scopes {
		if !slices.Contains(apikey.AllScopes[:], s) {
			return userError{fmt.Sprintf("Unknown scope %q.", s)}
		}
	}
	next, err := h.d.KeyManager.SetScopes(r.Context(), k.ID, scopes)
	if err != nil {
		return err
	}
	h.d.Log.InfoContext(r.Context(), "dashboard: key scopes set", "key", k.ID, "scopes", next.Scopes, "user", u.UserID)
	return h.redirectFlash(w, r, u, keyURL(p.ProjectID, k.ID), flash{
		Message: "Scopes saved: " + strings.Join(next.Scopes, ", ") + ". Every server applies them within one key reload."})
}

// keyName renames a key (an empty name removes it).
func (h *Handler) keyName(w http.ResponseWriter, r *http.Request, u *user) error {
	p, k, err := h.managedKey(r, u)
	if err != nil {
		return err
	}
	next, err := h.d.KeyManager.Rename(r.Context(), k.ID, r.PostFormValue("name"))
	if errors.Is(err, apikey.ErrKeyName) {
		return userError{"Key name: " + err.Error() + "."}
	}
	if err != nil {
		return err
	}
	msg := "Name removed."
	if next.Name != "" {
		msg = "Renamed to " + next.Name + "."
	}
	return h.redirectFlash(w, r, u, keyURL(p.ProjectID, k.ID), flash{Message: msg})
}

type keyData struct {
	User      *user
	Project   project.Member
	CanManage bool
	Scopes    []string // every scope a key may hold, for the scopes form
	Key       keyRow
	Flash     flashView
	Limits    limitsView
	Available bool
	Days      chartView
	Hours     chartView
	Routes    []routeRow
}

func (h *Handler) keyPage(w http.ResponseWriter, r *http.Request, u *user) error {
	p, err := member(r, u)
	if err != nil {
		return err
	}
	k, err := h.projectKey(r, p)
	if err != nil {
		return err
	}
	d := keyData{User: u, Project: p, CanManage: project.CanManage(p.Role), Scopes: apikey.AllScopes[:],
		Key: keyRow{Key: k, Prefix: keyPrefix(k), LastUsed: "usage not available"}, Flash: h.takeFlash(r, u),
		Limits: effectiveLimits(k.Limits, h.d.Limits)}
	if h.d.Usage != nil {
		if err := h.loadUsage(r.Context(), &d); err != nil {
			h.d.Log.WarnContext(r.Context(), "dashboard: usage read failed", "key", k.ID, "err", err)
		} else {
			d.Available = true
		}
	}
	h.render(w, http.StatusOK, "key", &d) // a pointer: Key methods have pointer receivers
	return nil
}

// loadUsage fills the key page's charts, breakdown, last use and quota meter
// from two reads: per day since the earlier of 30 days ago and the
// month's start, and per hour over the last 48 hours.
func (h *Handler) loadUsage(ctx context.Context, d *keyData) error {
	now := h.d.Now().UTC()
	dayFrom := now.Truncate(24*time.Hour).AddDate(0, 0, 1-usageDays)
	month := usage.MonthStart(now)
	since := dayFrom
	if month.Before(since) {
		since = month
	}
	days, err := h.d.Usage.UsageBuckets(ctx, d.Key.ID, since, 24*time.Hour)
	if err != nil {
		return err
	}
	hourFrom := now.Truncate(time.Hour).Add(-(usageHours - 1) * time.Hour)
	hours, err := h.d.Usage.UsageBuckets(ctx, d.Key.ID, hourFrom, time.Hour)
	if err != nil {
		return err
	}
	d.Days = buildChart("chart-days", fmt.Sprintf("Requests per day, last %d days (UTC)", usageDays), days, dayFrom, 24*time.Hour, usageDays, 20, 7,
		func(t time.Time) string { return t.Format("01-02") })
	d.Hours = buildChart("chart-hours", fmt.Sprintf("Requests per hour, last %d hours (UTC)", usageHours), hours, hourFrom, time.Hour, usageHours, 12, 12,
		func(t time.Time) string { return t.Format("01-02 15:04") })
	d.Routes = breakdown(days, dayFrom)
	d.Key.LastUsed = lastUsedText(lastUsed(days), d.Key.CreatedAt, now)
	d.Limits.setUsed(days, month)
	return nil
}
