package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/assetd/assetd/api"
)

// TestEveryOperationHasAMethod fails when an operation of api/openapi.yaml
// has no client method, or when the method sends another HTTP method or
// path than the operation's. The method of operation "getTokenList" is
// GetTokenList: its operationId with the first letter upper-cased,
// compared case-insensitively (openapi → OpenAPI).
func TestEveryOperationHasAMethod(t *testing.T) {
	doc, err := api.New().Doc()
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		got string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Method + " " + r.URL.EscapedPath()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, "k")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]reflect.Method{}
	ct := reflect.TypeOf(c)
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		methods[strings.ToLower(m.Name)] = m
	}
	pathParam := regexp.MustCompile(`\{[^}]+\}`)
	seen := 0
	paths := doc.Paths.Map()
	keys := make([]string, 0, len(paths))
	for p := range paths {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	for _, path := range keys {
		for verb, op := range paths[path].Operations() {
			seen++
			name := op.OperationID
			m, ok := methods[strings.ToLower(name)]
			if !ok {
				t.Errorf("%s %s (operationId %s) has no client method %s%s", verb, path, name, strings.ToUpper(name[:1]), name[1:])
				continue
			}
			// Call it with "x" for every path parameter and zero values for
			// the parameters struct and the body.
			ft := m.Type
			args := []reflect.Value{reflect.ValueOf(c), reflect.ValueOf(context.Background())}
			for i := 2; i < ft.NumIn(); i++ {
				if ft.In(i).Kind() == reflect.String {
					args = append(args, reflect.ValueOf("x"))
				} else {
					args = append(args, reflect.Zero(ft.In(i)))
				}
			}
			mu.Lock()
			got = ""
			mu.Unlock()
			// The answer ({}) may not decode into every response type (an
			// array body); only the request sent matters here.
			m.Func.Call(args)
			want := verb + " " + pathParam.ReplaceAllString(path, "x")
			mu.Lock()
			sent := got
			mu.Unlock()
			if sent != want {
				t.Errorf("%s sent %q; the contract's operation %s is %q", m.Name, sent, name, want)
			}
		}
	}
	if seen == 0 {
		t.Fatal("the contract has no operations")
	}
	t.Logf("%d operations checked", seen)
}
