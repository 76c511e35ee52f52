package webhooks

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/events"
)

const solMint = "So11111111111111111111111111111111111111112"

func priceEvent(id uint64, mint string, price float64) events.Event {
	return events.Event{ID: id, Type: events.TypePrice, Topic: "price:" + mint, Time: time.Unix(1_800_000_000+int64(id), 0),
		Data: json.RawMessage(fmt.Sprintf(`{"mint":%q,"priceUsd":%g,"synthetic":true}`, mint, price))}
}

func TestPriceCross(t *testing.T) {
	prices := []float64{90, 95, 101, 102, 99, 100, 120, 80}
	for _, tc := range []struct {
		dir, mode string
		want      []int // indexes of prices that fire
	}{
		{Above, Every, []int{2, 5}},
		{Above, Once, []int{2}},
		{Below, Every, []int{4, 7}},
		{Below, Once, []int{4}},
	} {
		e := &Endpoint{ID: "wh_x", Enabled: true, Events: []string{EventPrice},
			Filters: Filters{PriceCross: &PriceCross{Mint: solMint, Direction: tc.dir, Value: 100, Mode: tc.mode}}}
		var got []int
		for i, p := range prices {
			_, state, ok := match(e, priceEvent(uint64(i+1), solMint, p), time.Now())
			e.CrossState = state
			if ok {
				got = append(got, i)
			}
			// Another mint never fires nor moves the state.
			if _, st, ok := match(e, priceEvent(99, "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", p), time.Now()); ok || st != e.CrossState {
				t.Errorf("%s %s: another mint matched", tc.dir, tc.mode)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s %s: fired at %v, want %v", tc.dir, tc.mode, got, tc.want)
		}
	}
}

func TestMatchFilters(t *testing.T) {
	created := time.Unix(1_800_000_000, 0)
	adv := func(mint string) events.Event {
		return events.Event{ID: 1, Type: events.TypeAdvisory, Topic: "advisories", Time: created.Add(time.Second), Data: json.RawMessage(`{"mint":"` + mint + `"}`)}
	}
	list := func(slug string) events.Event {
		return events.Event{ID: 2, Type: events.TypeList, Topic: "list:" + slug, Time: created.Add(time.Second), Data: json.RawMessage(`{}`)}
	}
	e := &Endpoint{ID: "wh_x", Enabled: true, CreatedAt: created, Events: []string{EventAdvisory, EventList},
		Filters: Filters{Advisory: &AdvisoryFilter{Mints: []string{solMint}}, List: &ListFilter{Slug: "blue-chips"}}}
	for _, tc := range []struct {
		name string
		ev   events.Event
		want bool
	}{
		{"advisory on a watched mint", adv(solMint), true},
		{"advisory on another mint", adv("Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"), false},
		{"the watched list", list("blue-chips"), true},
		{"another list", list("memes"), false},
		{"a type not subscribed", events.Event{ID: 3, Type: events.TypeTrending, Topic: "trending", Time: created.Add(time.Second)}, false},
		{"an event older than the endpoint", func() events.Event { ev := adv(solMint); ev.Time = created.Add(-time.Second); return ev }(), false},
	} {
		d, _, ok := match(e, tc.ev, created)
		if ok != tc.want {
			t.Errorf("%s: matched %v, want %v", tc.name, ok, tc.want)
		}
		if ok && (d.ID != DeliveryID(e.ID, tc.ev.ID, tc.ev.Time) || d.Status != StatusPending) {
			t.Errorf("%s: delivery %+v", tc.name, d)
		}
	}
	e.Enabled = false
	if _, _, ok := match(e, adv(solMint), created); ok {
		t.Error("a disabled endpoint matched")
	}
}

func TestCheckEventsAndFilters(t *testing.T) {
	pc := &PriceCross{Mint: solMint, Direction: Above, Value: 150, Mode: Once}
	for _, tc := range []struct {
		name   string
		events []string
		f      Filters
		code   string
	}{
		{"ok advisory", []string{"advisory"}, Filters{}, ""},
		{"ok price", []string{"price", "trending"}, Filters{PriceCross: pc, Trending: &Empty{}}, ""},
		{"no events", nil, Filters{}, "events_required"},
		{"unknown event", []string{"candles"}, Filters{}, "invalid_event"},
		{"price without filter", []string{"price"}, Filters{}, "price_cross_required"},
		{"filter without its event", []string{"advisory"}, Filters{List: &ListFilter{Slug: "x"}}, "filter_without_event"},
		{"bad mint", []string{"price"}, Filters{PriceCross: &PriceCross{Mint: "nope", Direction: Above, Value: 1, Mode: Once}}, "invalid_mint"},
		{"bad direction", []string{"price"}, Filters{PriceCross: &PriceCross{Mint: solMint, Direction: "sideways", Value: 1, Mode: Once}}, "invalid_direction"},
		{"zero value", []string{"price"}, Filters{PriceCross: &PriceCross{Mint: solMint, Direction: Below, Value: 0, Mode: Once}}, "invalid_value"},
		{"bad mode", []string{"price"}, Filters{PriceCross: &PriceCross{Mint: solMint, Direction: Below, Value: 1, Mode: "twice"}}, "invalid_mode"},
		{"bad advisory mint", []string{"advisory"}, Filters{Advisory: &AdvisoryFilter{Mints: []string{"x"}}}, "invalid_mint"},
		{"empty slug", []string{"list"}, Filters{List: &ListFilter{}}, "invalid_slug"},
	} {
		ev, err := checkEvents(tc.events)
		if err == nil {
			err = checkFilters(ev, tc.f)
		}
		ie, _ := err.(*InputError)
		switch {
		case tc.code == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.code != "" && (ie == nil || ie.Code != tc.code):
			t.Errorf("%s: err = %v, want code %s", tc.name, err, tc.code)
		}
	}
}
