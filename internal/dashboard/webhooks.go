package dashboard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/webhooks"
)

// WebhookService is the part of webhooks.Service the dashboard calls: the
// same service, with the same validation and SSRF guard, as the API's
// /v1/webhooks. Every method is scoped to a project; another project's
// endpoint is webhooks.ErrNotFound.
type WebhookService interface {
	Create(ctx context.Context, projectID string, in webhooks.Input) (webhooks.Endpoint, error)
	List(ctx context.Context, projectID string) ([]webhooks.Endpoint, error)
	Get(ctx context.Context, projectID, id string) (webhooks.Endpoint, error)
	Update(ctx context.Context, projectID, id string, p webhooks.Patch) (webhooks.Endpoint, error)
	Delete(ctx context.Context, projectID, id string) error
	RotateSecret(ctx context.Context, projectID, id string) (webhooks.Endpoint, error)
	Attempts(ctx context.Context, projectID, id string, since time.Time, limit int) ([]webhooks.Attempt, error)
	Redeliver(ctx context.Context, projectID, id, deliveryID string) (webhooks.Delivery, error)
}

// deliveriesLimit is how many attempts the deliveries page shows (the
// API's largest page).
const deliveriesLimit = 1000

func webhooksURL(projectID string) string { return projectURL(projectID) + "webhooks/" }

func webhookURL(projectID, id string) string {
	return webhooksURL(projectID) + url.PathEscape(id) + "/"
}

func deliveriesURL(projectID, id string) string { return webhookURL(projectID, id) + "deliveries/" }

var errNoWebhooks = userError{"Webhooks are not available on this server."}

// webhookMember is the caller's membership of the path's project, for any
// webhook page: like the API (a key of the project), every member may
// manage the project's webhooks.
func (h *Handler) webhookMember(r *http.Request, u *user) (project.Member, error) {
	if h.d.Webhooks == nil {
		return project.Member{}, errNoWebhooks
	}
	return member(r, u)
}

// webhookForm is the create and edit form: what the user typed, so a
// refused submission is shown again with the service's message.
type webhookForm struct {
	URL         string
	Events      []string
	PCMint      string
	PCDirection string
	PCValue     string
	PCMode      string
	AdvMints    string
	ListSlug    string
	// Error is the service's refusal; Param the field it names
	// (webhooks.InputError.Param, e.g. filters.price_cross.mint).
	Error string
	Param string
}

// Has reports whether event e is ticked.
func (f webhookForm) Has(e string) bool { return slices.Contains(f.Events, e) }

// Invalid reports whether the refusal names field (a Param or its
// prefix), for aria-invalid.
func (f webhookForm) Invalid(field string) bool {
	return f.Param != "" && (f.Param == field || strings.HasPrefix(f.Param, field+"."))
}

func formFromEndpoint(e webhooks.Endpoint) webhookForm {
	f := webhookForm{URL: e.URL, Events: e.Events, PCDirection: webhooks.Above, PCMode: webhooks.Every}
	if pc := e.Filters.PriceCross; pc != nil {
		f.PCMint, f.PCDirection, f.PCMode = pc.Mint, pc.Direction, pc.Mode
		f.PCValue = strconv.FormatFloat(pc.Value, 'f', -1, 64)
	}
	if a := e.Filters.Advisory; a != nil {
		f.AdvMints = strings.Join(a.Mints, "\n")
	}
	if l := e.Filters.List; l != nil {
		f.ListSlug = l.Slug
	}
	return f
}

func formFromRequest(r *http.Request) webhookForm {
	return webhookForm{
		URL: strings.TrimSpace(r.PostFormValue("url")), Events: r.PostForm["event"],
		PCMint: strings.TrimSpace(r.PostFormValue("pc_mint")), PCDirection: r.PostFormValue("pc_direction"),
		PCValue: strings.TrimSpace(r.PostFormValue("pc_value")), PCMode: r.PostFormValue("pc_mode"),
		AdvMints: r.PostFormValue("adv_mints"), ListSlug: strings.TrimSpace(r.PostFormValue("list_slug")),
	}
}

// input turns the form into the service's input as the API's JSON body
// would carry it: a filter is sent when its event is ticked or its fields
// are filled in, so the service (not this form) decides what is valid.
func (f webhookForm) input() webhooks.Input {
	in := webhooks.Input{URL: f.URL, Events: f.Events}
	if in.Events == nil {
		in.Events = []string{}
	}
	if f.Has(webhooks.EventPrice) || f.PCMint != "" || f.PCValue != "" {
		v := math.NaN() // an empty or unparsable value: the service refuses it
		if f.PCValue != "" {
			if n, err := strconv.ParseFloat(f.PCValue, 64); err == nil {
				v = n
			}
		}
		in.Filters.PriceCross = &webhooks.PriceCross{Mint: f.PCMint, Direction: f.PCDirection, Value: v, Mode: f.PCMode}
	}
	if mints := strings.FieldsFunc(f.AdvMints, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }); len(mints) > 0 {
		in.Filters.Advisory = &webhooks.AdvisoryFilter{Mints: mints}
	}
	if f.ListSlug != "" {
		in.Filters.List = &webhooks.ListFilter{Slug: f.ListSlug}
	}
	return in
}

// webhookRow is one endpoint as the webhooks page lists it.
type webhookRow struct {
	webhooks.Endpoint
	Summary string
	// Last is the newest attempt's outcome ("" when none in 7 days).
	Last     string
	LastCode int
	LastAt   time.Time
}

// filterSummary describes an endpoint's filters in a few words.
func filterSummary(f webhooks.Filters) string {
	var parts []string
	if pc := f.PriceCross; pc != nil {
		parts = append(parts, fmt.Sprintf("price %s %s %s (%s)", shortMint(pc.Mint), pc.Direction, strconv.FormatFloat(pc.Value, 'f', -1, 64), pc.Mode))
	}
	if a := f.Advisory; a != nil && len(a.Mints) > 0 {
		parts = append(parts, fmt.Sprintf("advisories of %d mint(s)", len(a.Mints)))
	}
	if l := f.List; l != nil {
		parts = append(parts, "list "+l.Slug)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

func shortMint(m string) string {
	if len(m) <= 12 {
		return m
	}
	return m[:4] + "…" + m[len(m)-4:]
}

type webhooksData struct {
	User       *user
	Project    project.Member
	Webhooks   []webhookRow
	EventTypes []string
	Form       webhookForm
	Max        int
	Flash      flashView
}

func (h *Handler) webhooksData(ctx context.Context, u *user, p project.Member) (webhooksData, error) {
	d := webhooksData{User: u, Project: p, EventTypes: webhooks.EventTypes, Max: webhooks.MaxEndpoints,
		Form: webhookForm{PCDirection: webhooks.Above, PCMode: webhooks.Every}}
	eps, err := h.d.Webhooks.List(ctx, p.ProjectID)
	if err != nil {
		return d, err
	}
	for _, e := range eps {
		row := webhookRow{Endpoint: e, Summary: filterSummary(e.Filters)}
		last, err := h.d.Webhooks.Attempts(ctx, p.ProjectID, e.ID, time.Time{}, 1)
		if err != nil {
			return d, err
		}
		if len(last) == 1 {
			row.Last, row.LastCode, row.LastAt = last[0].Outcome, last[0].ResponseCode, last[0].At
		}
		d.Webhooks = append(d.Webhooks, row)
	}
	return d, nil
}

func (h *Handler) webhooksPage(w http.ResponseWriter, r *http.Request, u *user) error {
	p, err := h.webhookMember(r, u)
	if err != nil {
		return err
	}
	d, err := h.webhooksData(r.Context(), u, p)
	if err != nil {
		return err
	}
	d.Flash = h.takeFlash(r, u)
	h.render(w, http.StatusOK, "webhooks", d)
	return nil
}

// refused fills the form's error from a service refusal, or returns err
// when it is not one.
func refused(f *webhookForm, err error) error {
	var ie *webhooks.InputError
	if !errors.As(err, &ie) {
		return err
	}
	f.Error, f.Param = ie.Message, ie.Param
	return nil
}

func (h *Handler) webhookCreate(w http.ResponseWriter, r *http.Request, u *user) error {
	p, err := h.webhookMember(r, u)
	if err != nil {
		return err
	}
	form := formFromRequest(r)
	e, err := h.d.Webhooks.Create(r.Context(), p.ProjectID, form.input())
	if err != nil {
		if err := refused(&form, err); err != nil {
			return err
		}
		d, err := h.webhooksData(r.Context(), u, p)
		if err != nil {
			return err
		}
		d.Form = form
		h.render(w, http.StatusBadRequest, "webhooks", d)
		return nil
	}
	h.d.Log.InfoContext(r.Context(), "dashboard: webhook created", "webhook", e.ID, "project", p.ProjectID, "user", u.UserID)
	return h.redirectFlash(w, r, u, webhookURL(p.ProjectID, e.ID), flash{
		Message: "Webhook " + e.ID + " created for " + e.URL + ".", Secret: e.Secret, Webhook: e.ID})
}

type webhookData struct {
	User       *user
	Project    project.Member
	Webhook    webhooks.Endpoint
	Summary    string
	EventTypes []string
	Form       webhookForm
	Flash      flashView
}

func (h *Handler) webhookData(r *http.Request, u *user) (webhookData, error) {
	p, err := h.webhookMember(r, u)
	if err != nil {
		return webhookData{}, err
	}
	e, err := h.d.Webhooks.Get(r.Context(), p.ProjectID, r.PathValue("id"))
	if err != nil {
		return webhookData{}, err
	}
	return webhookData{User: u, Project: p, Webhook: e, Summary: filterSummary(e.Filters), EventTypes: webhooks.EventTypes,
		Form: formFromEndpoint(e)}, nil
}

func (h *Handler) webhookPage(w http.ResponseWriter, r *http.Request, u *user) error {
	d, err := h.webhookData(r, u)
	if err != nil {
		return err
	}
	d.Flash = h.takeFlash(r, u)
	h.render(w, http.StatusOK, "webhook", d)
	return nil
}

// webhookUpdate replaces the endpoint's URL, events and filters with the
// form's (the API's PATCH with all three).
func (h *Handler) webhookUpdate(w http.ResponseWriter, r *http.Request, u *user) error {
	d, err := h.webhookData(r, u)
	if err != nil {
		return err
	}
	form := formFromRequest(r)
	in := form.input()
	e, err := h.d.Webhooks.Update(r.Context(), d.Project.ProjectID, d.Webhook.ID, webhooks.Patch{URL: &in.URL, Events: in.Events, Filters: &in.Filters})
	if err != nil {
		if err := refused(&form, err); err != nil {
			return err
		}
		d.Form = form
		h.render(w, http.StatusBadRequest, "webhook", d)
		return nil
	}
	return h.redirectFlash(w, r, u, webhookURL(d.Project.ProjectID, e.ID), flash{
		Message: "Webhook saved: " + e.URL + " for " + strings.Join(e.Events, ", ") + "."})
}

// webhookEnabled disables or enables the endpoint: a disabled endpoint
// gets no new deliveries.
func (h *Handler) webhookEnabled(w http.ResponseWriter, r *http.Request, u *user) error {
	d, err := h.webhookData(r, u)
	if err != nil {
		return err
	}
	var on bool
	switch r.PostFormValue("enabled") {
	case "true":
		on = true
	case "false":
	default:
		return userError{"enabled must be true or false"}
	}
	e, err := h.d.Webhooks.Update(r.Context(), d.Project.ProjectID, d.Webhook.ID, webhooks.Patch{Enabled: &on})
	if err != nil {
		return err
	}
	msg := "Webhook " + e.ID + " disabled: it gets no new deliveries."
	if e.Enabled {
		msg = "Webhook " + e.ID + " enabled: events from now on are delivered."
	}
	return h.redirectFlash(w, r, u, webhookURL(d.Project.ProjectID, e.ID), flash{Message: msg})
}

func (h *Handler) webhookRotate(w http.ResponseWriter, r *http.Request, u *user) error {
	d, err := h.webhookData(r, u)
	if err != nil {
		return err
	}
	e, err := h.d.Webhooks.RotateSecret(r.Context(), d.Project.ProjectID, d.Webhook.ID)
	if err != nil {
		return err
	}
	h.d.Log.InfoContext(r.Context(), "dashboard: webhook secret rotated", "webhook", e.ID, "user", u.UserID)
	return h.redirectFlash(w, r, u, webhookURL(d.Project.ProjectID, e.ID), flash{
		Message: "Webhook " + e.ID + " has a new secret; deliveries from now on are signed with it.", Secret: e.Secret, Webhook: e.ID})
}

func (h *Handler) webhookDelete(w http.ResponseWriter, r *http.Request, u *user) error {
	d, err := h.webhookData(r, u)
	if err != nil {
		return err
	}
	if r.PostFormValue("confirm") != "yes" {
		return userError{"Tick the box to confirm the delete: it removes the webhook with its pending deliveries and log."}
	}
	if err := h.d.Webhooks.Delete(r.Context(), d.Project.ProjectID, d.Webhook.ID); err != nil {
		return err
	}
	h.d.Log.InfoContext(r.Context(), "dashboard: webhook deleted", "webhook", d.Webhook.ID, "user", u.UserID)
	return h.redirectFlash(w, r, u, webhooksURL(d.Project.ProjectID), flash{Message: "Webhook " + d.Webhook.ID + " (" + d.Webhook.URL + ") deleted."})
}

// attemptRow is one attempt on the deliveries page; Newest marks the
// newest attempt of its delivery, which carries the Redeliver button.
type attemptRow struct {
	webhooks.Attempt
	Newest bool
}

type deliveriesData struct {
	User     *user
	Project  project.Member
	Webhook  webhooks.Endpoint
	Attempts []attemptRow
	Days     int
	Flash    flashView
}

func (h *Handler) deliveriesPage(w http.ResponseWriter, r *http.Request, u *user) error {
	wd, err := h.webhookData(r, u)
	if err != nil {
		return err
	}
	atts, err := h.d.Webhooks.Attempts(r.Context(), wd.Project.ProjectID, wd.Webhook.ID, time.Time{}, deliveriesLimit)
	if err != nil {
		return err
	}
	d := deliveriesData{User: u, Project: wd.Project, Webhook: wd.Webhook, Days: int(webhooks.LogRetention / (24 * time.Hour)), Flash: h.takeFlash(r, u)}
	seen := map[string]bool{}
	for _, a := range atts { // newest first
		d.Attempts = append(d.Attempts, attemptRow{Attempt: a, Newest: !seen[a.DeliveryID]})
		seen[a.DeliveryID] = true
	}
	h.render(w, http.StatusOK, "deliveries", d)
	return nil
}

func (h *Handler) redeliver(w http.ResponseWriter, r *http.Request, u *user) error {
	wd, err := h.webhookData(r, u)
	if err != nil {
		return err
	}
	del, err := h.d.Webhooks.Redeliver(r.Context(), wd.Project.ProjectID, wd.Webhook.ID, r.PathValue("delivery"))
	if err != nil {
		return err
	}
	return h.redirectFlash(w, r, u, deliveriesURL(wd.Project.ProjectID, wd.Webhook.ID), flash{
		Message: "Delivery " + del.ID + " (" + del.EventType + " event " + strconv.FormatUint(del.EventID, 10) + ") queued again with the same webhook-id."})
}
