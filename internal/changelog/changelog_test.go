package changelog

import (
	"slices"
	"testing"
)

func TestSince(t *testing.T) {
	l := New[string](4)
	if xs, last, ok := l.Since(0); xs != nil || last != 0 || !ok {
		t.Fatalf("empty log: %v %d %v", xs, last, ok)
	}
	l.Add("a", "b")
	l.Add("c")
	xs, last, ok := l.Since(0)
	if !slices.Equal(xs, []string{"a", "b", "c"}) || last != 3 || !ok {
		t.Fatalf("Since(0) = %v %d %v", xs, last, ok)
	}
	if xs, last, ok := l.Since(2); !slices.Equal(xs, []string{"c"}) || last != 3 || !ok {
		t.Fatalf("Since(2) = %v %d %v", xs, last, ok)
	}
	if xs, last, ok := l.Since(3); xs != nil || last != 3 || !ok {
		t.Fatalf("Since(last) = %v %d %v", xs, last, ok)
	}
}

func TestTrimmedChangesAreReportedIncomplete(t *testing.T) {
	l := New[int](2)
	for i := 1; i <= 9; i++ {
		l.Add(i)
	}
	if l.Last() != 9 {
		t.Fatalf("Last = %d, want 9", l.Last())
	}
	xs, last, ok := l.Since(8)
	if !slices.Equal(xs, []int{9}) || last != 9 || !ok {
		t.Fatalf("recent Since = %v %d %v", xs, last, ok)
	}
	if _, last, ok := l.Since(0); ok || last != 9 {
		t.Fatalf("Since(0) after trimming = %d %v, want incomplete", last, ok)
	}
}
