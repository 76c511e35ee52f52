package dashboard

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/project"
)

// searchLimit is how many candidates one curator search shows.
const searchLimit = 20

type listData struct {
	User       *user
	Project    project.Member
	List       lists.List
	Members    []lists.Member
	Statuses   []string
	Query      string
	Searched   bool
	Candidates []lists.Candidate
	Suppressed []lists.Candidate
	NoSearch   bool
	Flash      flashView
}

// ownedList returns the path's list if the caller's project owns it.
func (h *Handler) ownedList(r *http.Request, u *user) (project.Member, lists.List, error) {
	p, err := member(r, u)
	if err != nil {
		return p, lists.List{}, err
	}
	l, err := h.d.Lists.Get(r.Context(), r.PathValue("slug"))
	if err != nil {
		return p, l, err
	}
	if l.Owner != p.ProjectID {
		return p, l, lists.ErrForbidden
	}
	return p, l, nil
}

// changed refreshes the list views for the written slugs, so the API
// reads the change at once, and sends the browser to next with msg as
// its flash.
func (h *Handler) changed(w http.ResponseWriter, r *http.Request, u *user, next, msg string, slugs ...string) error {
	if err := h.d.Views.Refresh(r.Context(), slugs...); err != nil {
		h.d.Log.WarnContext(r.Context(), "dashboard: list view refresh failed; the change poller will retry", "slugs", slugs, "err", err)
	}
	return h.redirectFlash(w, r, u, next, flash{Message: msg})
}

func (h *Handler) listCreate(w http.ResponseWriter, r *http.Request, u *user) error {
	p, err := member(r, u)
	if err != nil {
		return err
	}
	l, err := h.d.Lists.Create(r.Context(), p.ProjectID, lists.CreateInput{
		Slug: strings.TrimSpace(r.PostFormValue("slug")), Name: r.PostFormValue("name"), Status: r.PostFormValue("status")})
	if err != nil {
		return err
	}
	return h.changed(w, r, u, listURL(p.ProjectID, l.Slug), "List "+l.Slug+" created.", l.Slug)
}

func (h *Handler) listPage(w http.ResponseWriter, r *http.Request, u *user) error {
	p, l, err := h.ownedList(r, u)
	if err != nil {
		return err
	}
	_, members, err := h.d.Lists.Members(r.Context(), l.Slug, 0, lists.DefaultMembersPerList)
	if err != nil {
		return err
	}
	d := listData{User: u, Project: p, List: l, Members: members, Statuses: lists.Statuses, NoSearch: h.d.Tokens == nil, Flash: h.takeFlash(r, u)}
	if q := strings.TrimSpace(r.URL.Query().Get("q")); q != "" && h.d.Tokens != nil {
		d.Query, d.Searched = q, true
		cands, err := h.d.Tokens.SearchTokens(r.Context(), q, searchLimit)
		if err != nil {
			return err
		}
		in := make(map[string]bool, len(members))
		for _, m := range members {
			in[m.Mint] = true
		}
		for _, c := range cands {
			switch {
			case c.Suppressed:
				d.Suppressed = append(d.Suppressed, c)
			case !in[c.Mint]:
				d.Candidates = append(d.Candidates, c)
			}
		}
	}
	h.render(w, http.StatusOK, "list", d)
	return nil
}

func (h *Handler) listUpdate(w http.ResponseWriter, r *http.Request, u *user) error {
	p, l, err := h.ownedList(r, u)
	if err != nil {
		return err
	}
	var patch lists.Patch
	if v := r.PostFormValue("name"); v != "" && v != l.Name {
		patch.Name = &v
	}
	if v := strings.TrimSpace(r.PostFormValue("slug")); v != "" && v != l.Slug {
		patch.Slug = &v
	}
	if v := r.PostFormValue("status"); v != "" && v != l.Status {
		patch.Status = &v
	}
	nl, err := h.d.Lists.Update(r.Context(), p.ProjectID, l.Slug, patch)
	if err != nil {
		return err
	}
	return h.changed(w, r, u, listURL(p.ProjectID, nl.Slug), "List saved: "+nl.Name+" ("+nl.Slug+", "+nl.Status+").", l.Slug, nl.Slug)
}

func (h *Handler) listDelete(w http.ResponseWriter, r *http.Request, u *user) error {
	p, l, err := h.ownedList(r, u)
	if err != nil {
		return err
	}
	if r.PostFormValue("confirm") != l.Slug {
		return userError{"Type the list's slug to confirm the delete."}
	}
	if err := h.d.Lists.Delete(r.Context(), p.ProjectID, l.Slug); err != nil {
		return err
	}
	return h.changed(w, r, u, projectURL(p.ProjectID), "List "+l.Slug+" deleted.", l.Slug)
}

// membersAdd appends the checked candidates, resolved like the API's bulk
// add.
func (h *Handler) membersAdd(w http.ResponseWriter, r *http.Request, u *user) error {
	p, l, err := h.ownedList(r, u)
	if err != nil {
		return err
	}
	if h.d.Tokens == nil {
		return userError{"Token search is not available on this server."}
	}
	mints := r.PostForm["mint"]
	if len(mints) == 0 {
		return userError{"Tick at least one token to add."}
	}
	snaps := h.d.Tokens.ResolveMints(r.Context(), mints)
	add := make([]lists.NewMember, 0, len(mints))
	for _, m := range mints {
		add = append(add, lists.NewMember{Mint: m, Snapshot: snaps[m]})
	}
	res, err := h.d.Lists.AddMembers(r.Context(), p.ProjectID, l.Slug, add)
	if err != nil {
		return err
	}
	return h.changed(w, r, u, listURL(p.ProjectID, l.Slug), addedText(res, len(add)), l.Slug)
}

func (h *Handler) memberRemove(w http.ResponseWriter, r *http.Request, u *user) error {
	p, l, err := h.ownedList(r, u)
	if err != nil {
		return err
	}
	if err := h.d.Lists.DeleteMember(r.Context(), p.ProjectID, l.Slug, r.PathValue("mint")); err != nil {
		return err
	}
	return h.changed(w, r, u, listURL(p.ProjectID, l.Slug), "Removed "+r.PathValue("mint")+".", l.Slug)
}

// memberMove sets a member's rank (the store shifts the others).
func (h *Handler) memberMove(w http.ResponseWriter, r *http.Request, u *user) error {
	p, l, err := h.ownedList(r, u)
	if err != nil {
		return err
	}
	rank, err := strconv.Atoi(r.PostFormValue("rank"))
	if err != nil || rank < 1 {
		return userError{"rank must be 1 or more"}
	}
	if _, _, err := h.d.Lists.PutMember(r.Context(), p.ProjectID, l.Slug, r.PathValue("mint"), lists.MemberInput{Rank: &rank}); err != nil {
		return err
	}
	return h.changed(w, r, u, listURL(p.ProjectID, l.Slug), fmt.Sprintf("Moved %s to rank %d.", r.PathValue("mint"), rank), l.Slug)
}

// addedText is the flash of a bulk add.
func addedText(res lists.AddResult, asked int) string {
	msg := fmt.Sprintf("Added %d of %d tokens.", len(res.Added), asked)
	if n := len(res.Present); n > 0 {
		msg += fmt.Sprintf(" %d already in the list.", n)
	}
	if n := len(res.Failed); n > 0 {
		msg += fmt.Sprintf(" %d not added (%s).", n, res.Failed[0].Code)
	}
	return msg
}
