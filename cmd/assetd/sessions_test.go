package main

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestSessionRevocationReachesEveryReplica: two servers share one store.
// Signing out of the dashboard on one, or `assetd sessions revoke`, makes
// the token fail whoami (401) and the dashboard (sign-in page) on both at
// once: sessions are read from the store on every use, never cached.
func TestSessionRevocationReachesEveryReplica(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			cli := func(args ...string) string { return mustCLI(t, append(args, e.flags...)...) }
			tokA := strings.TrimSpace(cli("sessions", "create", "--user-id", "user_a", "--email", "a@example.com"))
			tokB := strings.TrimSpace(cli("sessions", "create", "--user-id", "user_b", "--email", "b@example.com"))
			replicas := []*server{startServer(t, e.flags...), startServer(t, e.flags...)}
			whoami := func(s *server, tok string) int {
				status, _, _ := s.get(t, "/v1/whoami", map[string]string{"Authorization": "Bearer " + tok})
				return status
			}
			for i, s := range replicas {
				if a, b := whoami(s, tokA), whoami(s, tokB); a != 200 || b != 200 {
					t.Fatalf("replica %d before sign-out: whoami %d, %d; want 200", i, a, b)
				}
			}

			// Sign out of the dashboard on replica 0.
			noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			dash := func(s *server, method, path, tok string, form url.Values) (int, string) {
				t.Helper()
				req, _ := http.NewRequest(method, s.base+path, strings.NewReader(form.Encode()))
				if form != nil {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				}
				req.AddCookie(&http.Cookie{Name: "assetd_dashboard", Value: tok})
				resp, err := noRedirect.Do(req)
				if err != nil {
					t.Fatalf("%s %s: %v", method, path, err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			status, page := dash(replicas[0], "GET", "/dashboard/", tokA, nil)
			m := regexp.MustCompile(`action="/dashboard/signout"><input type="hidden" name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)
			if status != 200 || m == nil {
				t.Fatalf("dashboard home signed in: %d, no sign-out form:\n%s", status, page)
			}
			if status, _ := dash(replicas[0], "POST", "/dashboard/signout", tokA, url.Values{"csrf": {m[1]}}); status != 303 {
				t.Fatalf("sign-out: %d; want 303", status)
			}
			for i, s := range replicas {
				if got := whoami(s, tokA); got != 401 {
					t.Errorf("replica %d: whoami with the signed-out token: %d; want 401", i, got)
				}
				if status, page := dash(s, "GET", "/dashboard/", tokA, nil); status != 200 || !strings.Contains(page, `id="token"`) {
					t.Errorf("replica %d: dashboard with the signed-out token: %d; want the sign-in page", i, status)
				}
				if got := whoami(s, tokB); got != 200 {
					t.Errorf("replica %d: another user's session after the sign-out: %d; want 200", i, got)
				}
			}

			// Revoke user_b's session with the CLI.
			list := cli("sessions", "list", "--user-id", "user_b")
			f := strings.Fields(list)
			if len(f) != 6 || !strings.HasPrefix(f[0], "sess_") || f[5] != "active" {
				t.Fatalf("sessions list --user-id user_b: %q", list)
			}
			cli("sessions", "revoke", f[0])
			for i, s := range replicas {
				if got := whoami(s, tokB); got != 401 {
					t.Errorf("replica %d: whoami after sessions revoke: %d; want 401", i, got)
				}
			}
			all := cli("sessions", "list")
			if strings.Count(all, "revoked") != 2 || strings.Count(all, "\n") != 2 {
				t.Errorf("sessions list after both revocations:\n%s", all)
			}
			if _, err := runCLI(t, append([]string{"sessions", "revoke", "sess_unknown"}, e.flags...)...); err == nil || !strings.Contains(err.Error(), "no session") {
				t.Errorf("revoke unknown: %v", err)
			}
		})
	}
}
