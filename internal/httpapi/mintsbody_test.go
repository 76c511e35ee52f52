package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeMintsBodyMatchesEncodingJSON: the direct scan gives what
// encoding/json gives, and every other body (or error) goes through it.
func TestDecodeMintsBodyMatchesEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`{"mints":["a","b"]}`,
		` { "mints" : [ "a" , "b" ] , "addresses" : [] } `,
		`{"addresses":["x"]}`,
		`{"mints":[]}`,
		`{}`,
		`{"mints":["a"],"mints":["b"]}`,
		`{"Mints":["a"]}`,
		`{"mints":["a\u0041"]}`,
		`{"mints":null}`,
		`{"mints":["é"]}`,
		`{"mints":["a"],"other":1}`,
		`{"mints":["a"]`,
		`{"mints":["a"]} x`,
		`{"mints":[1]}`,
		``,
		`[]`,
	} {
		var want struct {
			Mints     []string `json:"mints"`
			Addresses []string `json:"addresses"`
		}
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		wantErr := decodeJSON(httptest.NewRecorder(), req, &want)

		var got struct {
			Mints     []string `json:"mints"`
			Addresses []string `json:"addresses"`
		}
		req = httptest.NewRequest("POST", "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		gotErr := decodeMintsBody(httptest.NewRecorder(), req, &got.Mints, &got.Addresses, &got)
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Errorf("%s: error %v; encoding/json %v", body, gotErr, wantErr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s: %s; encoding/json %s", body, g, w)
		}
	}
}
