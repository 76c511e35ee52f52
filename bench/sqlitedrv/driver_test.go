// Package sqlitedrv compares the two pure-Go SQLite drivers, modernc.org/sqlite
// (the one internal/storage/sqlite uses) and github.com/ncruces/go-sqlite3
// (SQLite compiled to Wasm and translated to Go), on the store's access
// pattern: WAL, synchronous=NORMAL, one connection, prepared statements, a
// trades-like table with a (mint, ts) index. It is its own module so that the
// second driver never enters the server's go.mod; docs/build.md has the
// figures and how they were taken. All rows are synthetic.
//
//	cd bench/sqlitedrv && nice -n 10 go test -run '^$' -bench . -benchtime 0.2s -count 5 -benchmem
package sqlitedrv

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	_ "github.com/ncruces/go-sqlite3/driver" // registers "sqlite3"
	_ "modernc.org/sqlite"                   // registers "sqlite"
)

func open(b *testing.B, drv string) *sql.DB {
	p := filepath.Join(b.TempDir(), "t.db")
	// Both drivers read the same _pragma DSN parameters.
	dsn := "file:" + p + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open(drv, dsn)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE trades (sig TEXT PRIMARY KEY, mint TEXT NOT NULL, ts INTEGER NOT NULL, price REAL NOT NULL, amount REAL NOT NULL, side TEXT NOT NULL);
CREATE INDEX trades_mint_ts ON trades(mint, ts)`); err != nil {
		b.Fatal(err)
	}
	return db
}

func fill(b *testing.B, db *sql.DB, n, base int) {
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	st, err := tx.Prepare(`INSERT INTO trades(sig,mint,ts,price,amount,side) VALUES(?,?,?,?,?,?)`)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		k := base + i
		if _, err := st.Exec(fmt.Sprintf("synthetic-sig-%09d", k), fmt.Sprintf("synthetic-mint-%02d", k%50), k, 1.5+float64(k%97), float64(k%1000), "buy"); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

var drivers = []string{"sqlite", "sqlite3"}

func name(d string) string {
	if d == "sqlite" {
		return "modernc"
	}
	return "ncruces"
}

func BenchmarkInsert1000Tx(b *testing.B) {
	for _, d := range drivers {
		b.Run(name(d), func(b *testing.B) {
			db := open(b, d)
			defer db.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				fill(b, db, 1000, i*1000)
			}
		})
	}
}

func BenchmarkPointSelect(b *testing.B) {
	for _, d := range drivers {
		b.Run(name(d), func(b *testing.B) {
			db := open(b, d)
			defer db.Close()
			fill(b, db, 20000, 0)
			st, err := db.Prepare(`SELECT mint, ts, price FROM trades WHERE sig = ?`)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var m string
				var ts int64
				var p float64
				if err := st.QueryRow(fmt.Sprintf("synthetic-sig-%09d", (i*7919)%20000)).Scan(&m, &ts, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRangeScan400(b *testing.B) {
	for _, d := range drivers {
		b.Run(name(d), func(b *testing.B) {
			db := open(b, d)
			defer db.Close()
			fill(b, db, 20000, 0)
			st, err := db.Prepare(`SELECT sig, ts, price, amount FROM trades WHERE mint = ? ORDER BY ts DESC`)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rows, err := st.Query(fmt.Sprintf("synthetic-mint-%02d", i%50))
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for rows.Next() {
					var s string
					var ts int64
					var p, a float64
					if err := rows.Scan(&s, &ts, &p, &a); err != nil {
						b.Fatal(err)
					}
					n++
				}
				rows.Close()
				if n != 400 {
					b.Fatalf("rows %d", n)
				}
			}
		})
	}
}

func BenchmarkAggregate(b *testing.B) {
	for _, d := range drivers {
		b.Run(name(d), func(b *testing.B) {
			db := open(b, d)
			defer db.Close()
			fill(b, db, 20000, 0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var n int
				var v float64
				if err := db.QueryRow(`SELECT count(*), sum(price*amount) FROM trades WHERE ts >= ?`, i%10000).Scan(&n, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
