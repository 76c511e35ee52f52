package liststest_test

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/lists/liststest"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/mr-tron/base58"
)

func TestMint(t *testing.T) {
	seen := map[string]bool{}
	for i := range 1000 {
		m := liststest.Mint(i)
		b, err := base58.Decode(m)
		if err != nil || len(b) != 32 || seen[m] || m != liststest.Mint(i) {
			t.Fatalf("Mint(%d) = %q: %v, %d bytes, dup %v", i, m, err, len(b), seen[m])
		}
		seen[m] = true
	}
}

// BenchmarkFill measures filling 10 lists x 5,000 members on SQLite, the
// fixture of the compose benchmark.
func BenchmarkFill(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		s, err := sqlite.Open(ctx, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Migrate(ctx); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := liststest.Fill(ctx, s, liststest.FillSpec{Owner: "prj_bench", Lists: 10, Members: 5000, Overlap: 1000, Now: time.Unix(0, 0)}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
