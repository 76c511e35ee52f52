package storage

import (
	"errors"
	"slices"
	"testing"
)

// TestFullWatch: a run of failed writes for want of space reports one
// change, a success one more; other errors change nothing; every full
// error comes back wrapped with ErrFull.
func TestFullWatch(t *testing.T) {
	errDisk := errors.New("database or disk is full")
	errOther := errors.New("constraint failed")
	isFull := func(err error) bool { return errors.Is(err, errDisk) }
	tests := []struct {
		name    string
		results []error
		changes []bool // the states reported, in order
	}{
		{"only successes", []error{nil, nil}, nil},
		{"170 failed writes, then a success", append(slices.Repeat([]error{errDisk}, 170), nil, nil), []bool{true, false}},
		{"other errors are no change", []error{errOther, errDisk, errOther, errDisk, nil}, []bool{true, false}},
		{"full twice", []error{errDisk, errDisk, nil, errDisk, nil}, []bool{true, false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w FullWatch
			var got []bool
			w.OnChange(func(full bool, cause error) {
				if full != (cause != nil) {
					t.Errorf("change to full=%v with cause %v", full, cause)
				}
				got = append(got, full)
			})
			for _, err := range tt.results {
				out := w.Observe(err, isFull)
				switch {
				case err == nil && out != nil:
					t.Errorf("success became %v", out)
				case isFull(err) && !(errors.Is(out, ErrFull) && errors.Is(out, errDisk)):
					t.Errorf("full error returned as %v", out)
				case errors.Is(err, errOther) && (out != err || errors.Is(out, ErrFull)):
					t.Errorf("other error returned as %v", out)
				}
			}
			if !slices.Equal(got, tt.changes) {
				t.Errorf("changes %v, want %v", got, tt.changes)
			}
		})
	}
}
