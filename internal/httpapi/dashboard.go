package httpapi

import "net/http"

// dashboard serves /dashboard/ (its own sessions, CSRF and errors).
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	s.d.Dashboard.ServeHTTP(w, r)
	return nil
}
