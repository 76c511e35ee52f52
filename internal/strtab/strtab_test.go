package strtab

import (
	"fmt"
	"testing"
)

func TestTable(t *testing.T) {
	var zero Table[int]
	if _, ok := zero.Get("x"); ok || zero.Len() != 0 {
		t.Fatal("the zero Table finds a key")
	}
	if empty := NewBuilder[int](0).Build(); empty.Len() != 0 {
		t.Fatal("an empty Table has keys")
	} else if _, ok := Get(&empty, []byte("x")); ok {
		t.Fatal("an empty Table finds a key")
	}
	const n = 5000
	b := NewBuilder[int](10)
	for i := range n {
		v, added := b.Add(fmt.Sprint("key ", i))
		if !added {
			t.Fatalf("key %d reported present", i)
		}
		*v = i * 3
	}
	for _, k := range []string{"", "key 7", "key 7"} { // the empty key; a repeat keeps the value
		v, added := b.Add(k)
		if k == "key 7" && (added || *v != 21) {
			t.Fatalf("Add(key 7) again = %d %v, want 21 false", *v, added)
		}
		if k == "" {
			*v = -1
		}
	}
	b.Values()[0]++
	tab := b.Build()
	if tab.Len() != n+1 || 4*tab.Len() >= 3*len(tab.index.slots) || len(tab.index.slots)&(len(tab.index.slots)-1) != 0 {
		t.Fatalf("%d keys in %d slots, want %d in a power of two under 3/4 full", tab.Len(), len(tab.index.slots), n+1)
	}
	for i := range n {
		k := fmt.Sprint("key ", i)
		want := i * 3
		if i == 0 {
			want = 1
		}
		if v, ok := tab.Get(k); !ok || *v != want {
			t.Fatalf("Get(%q) = %v %v, want %d", k, v, ok, want)
		}
		if v, ok := Get(&tab, []byte(k)); !ok || *v != want {
			t.Fatalf("GetBytes(%q) = %v %v, want %d", k, v, ok, want)
		}
		if tab.Key(i) != k || *tab.Value(i) != want {
			t.Fatalf("key %d = %q %d, want %q %d", i, tab.Key(i), *tab.Value(i), k, want)
		}
	}
	if v, ok := tab.Get(""); !ok || *v != -1 {
		t.Fatalf("Get(\"\") = %v %v, want -1", v, ok)
	}
	for _, k := range []string{"key", "key 5000", "KEY 1", "key 1 ", "x"} {
		if _, ok := tab.Get(k); ok {
			t.Errorf("Get(%q) found an absent key", k)
		}
		if _, ok := Get(&tab, []byte(k)); ok {
			t.Errorf("GetBytes(%q) found an absent key", k)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	bl := NewBuilder[uint32](100_000)
	keys := make([]string, 100_000)
	for i := range keys {
		keys[i] = fmt.Sprintf("synthetic asset %d", i)
		*first(bl.Add(keys[i])) = uint32(i)
	}
	tab := bl.Build()
	m := make(map[string]uint32, len(keys))
	for i, k := range keys {
		m[k] = uint32(i)
	}
	b.Run("table", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, ok := tab.Get(keys[i%len(keys)]); !ok {
				b.Fatal("missing")
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, ok := m[keys[i%len(keys)]]; !ok {
				b.Fatal("missing")
			}
		}
	})
}

func first[V any](v *V, _ bool) *V { return v }

func TestList(t *testing.T) {
	for _, strs := range [][]string{nil, {""}, {"a"}, {"", "ab", "", "cde", "ü"}} {
		l := NewList(strs)
		if l.Len() != len(strs) {
			t.Fatalf("NewList(%q).Len() = %d", strs, l.Len())
		}
		for n, s := range strs {
			if got := l.At(n); got != s {
				t.Errorf("NewList(%q).At(%d) = %q, want %q", strs, n, got, s)
			}
		}
	}
}

func TestIndex(t *testing.T) {
	var zero Index
	if _, ok := zero.Find("x", func(int) string { t.Fatal("the zero Index reads a key"); return "" }); ok {
		t.Fatal("the zero Index finds a key")
	}
	keys := make([]string, 3000)
	for i := range keys {
		keys[i] = fmt.Sprint("mint ", i)
	}
	keys[0] = ""
	at := func(n int) string { return keys[n] }
	x, first, dup := NewIndex(len(keys), at)
	if dup != -1 || first != -1 {
		t.Fatalf("distinct keys reported equal: %d and %d", first, dup)
	}
	if 4*len(keys) >= 3*len(x.slots) || len(x.slots)&(len(x.slots)-1) != 0 {
		t.Fatalf("%d keys in %d slots, want a power of two under 3/4 full", len(keys), len(x.slots))
	}
	for i, k := range keys {
		if n, ok := x.Find(k, at); !ok || n != i {
			t.Fatalf("Find(%q) = %d %v, want %d", k, n, ok, i)
		}
		if n, ok := Lookup(&x, []byte(k), at); !ok || n != i {
			t.Fatalf("FindBytes(%q) = %d %v, want %d", k, n, ok, i)
		}
	}
	for _, k := range []string{"mint", "mint 3000", "MINT 1", " mint 1"} {
		if n, ok := x.Find(k, at); ok {
			t.Errorf("Find(%q) = %d, an absent key", k, n)
		}
		if n, ok := Lookup(&x, []byte(k), at); ok {
			t.Errorf("FindBytes(%q) = %d, an absent key", k, n)
		}
	}
	// A repeated key is reported with the first it repeats, and Find
	// returns the first.
	keys = append(keys, "mint 17", "mint 9", "mint 17")
	x, first, dup = NewIndex(len(keys), at)
	if first != 17 || dup != 3000 {
		t.Fatalf("repeat reported as %d and %d, want 17 and 3000", first, dup)
	}
	for _, k := range []string{"mint 17", "mint 9"} {
		if n, ok := x.Find(k, at); !ok || at(n) != k || n >= 3000 {
			t.Errorf("Find(%q) = %d %v, want the first of its copies", k, n, ok)
		}
	}
}

func BenchmarkFind(b *testing.B) {
	keys := make([]string, 150_000)
	m := make(map[string]int32, len(keys))
	for i := range keys {
		keys[i] = fmt.Sprintf("syn-%06d", i)
		m[keys[i]] = int32(i)
	}
	at := func(n int) string { return keys[n] }
	x, _, _ := NewIndex(len(keys), at)
	b.Run("index", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, ok := x.Find(keys[i%len(keys)], at); !ok {
				b.Fatal("missing")
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, ok := m[keys[i%len(keys)]]; !ok {
				b.Fatal("missing")
			}
		}
	})
}

func TestBuildKeepingAndLookup(t *testing.T) {
	b := NewBuilder[int](0)
	for i := range 100 {
		*first(b.Add(fmt.Sprint("k", i))) = i
	}
	tab := b.BuildKeeping(func(k string, v int) bool { return v%3 == 0 })
	if tab.Len() != 34 {
		t.Fatalf("kept %d keys, want 34", tab.Len())
	}
	for i := range 100 {
		k := fmt.Sprint("k", i)
		if v, ok := tab.Get(k); ok != (i%3 == 0) || ok && *v != i {
			t.Errorf("Get(%q) = %v %v after keeping multiples of 3", k, v, ok)
		}
	}
	keys := []string{"a", "bb", "ccc"}
	at := func(n int) string { return keys[n] }
	x, _, _ := NewIndex(len(keys), at)
	for want, k := range keys {
		if n, ok := Lookup(&x, k, at); !ok || n != want {
			t.Errorf("Lookup(%q) = %d %v", k, n, ok)
		}
		if n, ok := Lookup(&x, []byte(k), at); !ok || n != want {
			t.Errorf("Lookup([]byte %q) = %d %v", k, n, ok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Lookup(&x, []byte("bb"), at) }); n != 0 {
		t.Errorf("Lookup with a []byte key allocates %.0f times", n)
	}
}
