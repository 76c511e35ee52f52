package dashboard

import (
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"
)

var funcs = template.FuncMap{
	"join":    strings.Join,
	"mod":     func(a, b int) int { return a % b },
	"seconds": func(d time.Duration) int64 { return int64(d / time.Second) },
	"deref": func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	},
}

// appJS is the dashboard's only script: copy buttons and confirmations.
// Everything works without it.
const appJS = `document.addEventListener("click", function (e) {
  var b = e.target.closest("button");
  if (!b) return;
  if (b.dataset.confirm && !window.confirm(b.dataset.confirm)) { e.preventDefault(); return; }
  if (b.dataset.copy) {
    var el = document.getElementById(b.dataset.copy);
    if (el && navigator.clipboard) navigator.clipboard.writeText(el.textContent).then(function () { b.textContent = "Copied"; });
  }
});
`

func (h *Handler) script(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(appJS)))
	_, _ = w.Write([]byte(appJS))
}
