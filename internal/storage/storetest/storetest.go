// Package storetest is the conformance suite every storage engine passes.
// Engine packages call Run from their tests: SQLite always, PostgreSQL when
// ASSETD_TEST_DATABASE_URL is set.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/onchain"
	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/assetd/assetd/internal/tokenlist"
	"github.com/assetd/assetd/internal/usage"
	"github.com/assetd/assetd/internal/webhooks"
	"github.com/google/go-cmp/cmp"
)

// Store is the union of the consumer interfaces an engine implements.
type Store interface {
	apikey.Store
	session.Store
	usage.Sink
	lists.Store
	lists.AdvisoryStore
	lists.ReportStore
	project.Store
	tokenlist.Store
	Versions(ctx context.Context) (map[string]int64, error)
	UsageByDay(ctx context.Context, keyID string, sinceMinute int64) ([]usage.DayCount, error)
	UsageBuckets(ctx context.Context, keyID string, sinceMinute, bucketMinutes int64) ([]usage.Bucket, error)
	PutFlash(ctx context.Context, id string, payload []byte, now, expires time.Time) error
	TakeFlash(ctx context.Context, id string, now time.Time) ([]byte, error)
	ChargedSince(ctx context.Context, sinceMinute int64) (map[string]int64, error)
	ratelimit.Ledger
	QuotaReserved(ctx context.Context, key string, month time.Time) (int64, error)
	ClaimStoreMode(ctx context.Context, mode string) (string, error)
	PutRegistryDocument(ctx context.Context, d storage.RegistryDocument) (bool, error)
	DeleteRegistryDocument(ctx context.Context, source string) error
	ListRegistryDocuments(ctx context.Context) ([]storage.RegistryDocument, error)
	Migrate(ctx context.Context) (int, error)
	UpsertCandles(ctx context.Context, rows []analytics.CandleUpdate) error
	LoadCandles(ctx context.Context, since int64) ([]analytics.CandleUpdate, error)
	PruneCandles(ctx context.Context, interval string, before int64) (int64, error)
	tokenindex.Store
	news.Store
	onchain.Store
	webhooks.Store
}

// Harness opens stores for the suite.
type Harness struct {
	// Fresh returns a migrated store on an empty database, and a function
	// that opens another, unmigrated handle on the same database (as a second
	// process would). Cleanup is registered on t.
	Fresh func(t *testing.T) (Store, func() Store)
}

// Run runs every conformance test.
func Run(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(*testing.T, Harness)
	}{
		{"MigrateIdempotent", testMigrateIdempotent},
		{"MigrateConcurrent", testMigrateConcurrent},
		{"MintFacts", testMintFacts},
		{"CreateKeyCreatesProjectOnce", testCreateKeyProject},
		{"GetKeyNotFound", testGetKeyNotFound},
		{"DuplicateHashConflicts", testDuplicateHash},
		{"RevokeKey", testRevoke},
		{"RotateKey", testRotate},
		{"SetKeyLimits", testLimits},
		{"SetKeyScopes", testScopes},
		{"VersionsBumpOnKeyWrites", testVersions},
		{"Sessions", testSessions},
		{"SessionRevocation", testSessionRevocation},
		{"UsageAggregates", testUsageAggregates},
		{"UsagePrune", testUsagePrune},
		{"QuotaLedger", testQuotaLedger}, // quota.go
		{"StoreMode", testStoreMode},
		{"ConcurrentKeyCreates", testConcurrentCreates},
		{"RegistryDocuments", testRegistryDocuments},
		{"Candles", testCandles},
		{"News", testNews},
		// Project members and token-list export versions (projects.go).
		{"ProjectMembers", testProjectMembers},
		{"ExportState", testExportState},
		// Community lists and advisories (lists.go).
		{"ListsCreateAndGet", testListsCreateAndGet},
		{"ListsSlugRule", testListsSlugRule},
		{"ListsSlugConflict", testListsSlugConflict},
		{"ListsProjectLimit", testListsProjectLimit},
		{"ListsProjectLimitConcurrent", testListsProjectLimitConcurrent},
		{"ListsStatusTransitions", testListsStatusTransitions},
		{"ListsNameAndStatusValidation", testListsValidation},
		{"ListsOwnership", testListsOwnership},
		{"ListsNotFound", testListsNotFound},
		{"ListsRenameHold", testListsRenameHold},
		{"ListsRenameHoldExpiry", testListsRenameHoldExpiry},
		{"ListsRenameBackAndChain", testListsRenameBack},
		{"ListsDeleteReleasesSlug", testListsDeleteReleasesSlug},
		{"ListsMemberRanks", testListsMemberRanks},
		{"ListsMemberUpdate", testListsMemberUpdate},
		{"ListsMemberDelete", testListsMemberDelete},
		{"ListsListFullOnPut", testListsListFullOnPut},
		{"ListsBulkAdd", testListsBulkAdd},
		{"ListsBulkAddListFull", testListsBulkAddListFull},
		{"ListsBulkAddTooLarge", testListsBulkAddTooLarge},
		{"ListsFailedBatchAppliesNothing", testListsFailedBatch},
		{"ListsPages", testListsPages},
		{"ListsContaining", testListsContaining},
		{"ListsVersions", testListsVersions},
		{"ListsSecondHandle", testListsSecondHandle},
		{"ListsRace", testListsRace},
		{"ListsSlugCreateRenameRace", testListsSlugCreateRenameRace},
		{"ListsFill", testListsFill},
		{"Advisories", testAdvisories},
		{"AdvisoriesSince", testAdvisoriesSince},
		{"TokenIndex", testTokenIndex},
		// Key names, usage buckets and flashes of the dashboard (dashboard.go).
		{"KeyNames", testKeyNames},
		{"UsageBuckets", testUsageBuckets},
		{"DashboardFlashes", testDashboardFlashes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, h) })
	}
	for _, tc := range TradeTests { // trades.go
		t.Run(tc.Name, func(t *testing.T) { tc.Fn(t, h) })
	}
	for _, tc := range AdvisoryFeedTests { // advisoryfeed.go
		t.Run(tc.Name, func(t *testing.T) { tc.Fn(t, h) })
	}
	for _, tc := range EventTests { // events.go
		t.Run(tc.Name, func(t *testing.T) { tc.Fn(t, h) })
	}
	for _, tc := range ChangeTests { // changes.go
		t.Run(tc.Name, func(t *testing.T) { tc.Fn(t, h) })
	}
	for _, tc := range WebhookTests { // webhooks.go
		t.Run(tc.Name, func(t *testing.T) { tc.Fn(t, h) })
	}
}

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newKey(id, hash string, scopes ...string) apikey.Key {
	return apikey.Key{ID: id, Hash: hash, Scopes: scopes, CreatedAt: t0}
}

func hash(n int) string { return fmt.Sprintf("%064x", n) }

func mustCreate(t *testing.T, s Store, project string, k apikey.Key) apikey.Key {
	t.Helper()
	k, err := s.CreateKey(context.Background(), project, k)
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return k
}

func testMigrateIdempotent(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	n, err := s.Migrate(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("second Migrate = %d, %v; want 0, nil", n, err)
	}
}

func testMigrateConcurrent(t *testing.T, h Harness) {
	_, another := h.Fresh(t)
	// The fresh store is already migrated; concurrent handles must agree
	// that nothing is left and not fail on each other's locks.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = another().Migrate(context.Background())
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Migrate: %v", err)
	}
}

func testCreateKeyProject(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	a := mustCreate(t, s, "acme", newKey("key_a", hash(1), "assets:read"))
	b := mustCreate(t, s, "acme", newKey("key_b", hash(2), "assets:read", "assets:risk:read"))
	c := mustCreate(t, s, "other", newKey("key_c", hash(3), "assets:read"))
	if a.ProjectID == "" || a.ProjectID != b.ProjectID || a.ProjectID == c.ProjectID {
		t.Fatalf("project ids: a=%q b=%q c=%q; want a==b!=c", a.ProjectID, b.ProjectID, c.ProjectID)
	}
	got, err := s.GetKey(context.Background(), "key_b")
	if err != nil {
		t.Fatal(err)
	}
	want := apikey.Key{ID: "key_b", ProjectID: a.ProjectID, Project: "acme", Hash: hash(2),
		Scopes: []string{"assets:read", "assets:risk:read"}, CreatedAt: t0}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("GetKey (-want +got):\n%s", d)
	}
	all, err := s.ListKeys(context.Background())
	if err != nil || len(all) != 3 {
		t.Fatalf("ListKeys = %d keys, %v; want 3", len(all), err)
	}
}

func testGetKeyNotFound(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	if _, err := s.GetKey(ctx, "key_missing"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("GetKey missing: %v; want ErrNotFound", err)
	}
	if err := s.RevokeKey(ctx, "key_missing", t0); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("RevokeKey missing: %v; want ErrNotFound", err)
	}
	if err := s.SetKeyLimits(ctx, "key_missing", apikey.Limits{}); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("SetKeyLimits missing: %v; want ErrNotFound", err)
	}
}

func testDuplicateHash(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	mustCreate(t, s, "acme", newKey("key_a", hash(1), "assets:read"))
	_, err := s.CreateKey(context.Background(), "acme", newKey("key_b", hash(1), "assets:read"))
	if !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("duplicate hash: %v; want ErrConflict", err)
	}
}

func testRevoke(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	mustCreate(t, s, "acme", newKey("key_a", hash(1), "assets:read"))
	at := t0.Add(time.Hour)
	if err := s.RevokeKey(ctx, "key_a", at); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeKey(ctx, "key_a", at.Add(time.Hour)); err != nil {
		t.Fatalf("second revoke: %v", err)
	}
	k, _ := s.GetKey(ctx, "key_a")
	if k.RevokedAt == nil || !k.RevokedAt.Equal(at) {
		t.Fatalf("RevokedAt = %v; want %v (first revoke wins)", k.RevokedAt, at)
	}
}

func testRotate(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	a := mustCreate(t, s, "acme", newKey("key_a", hash(1), "assets:read"))
	next := newKey("key_b", hash(2), "assets:read")
	next.ProjectID = a.ProjectID
	if err := s.RotateKey(ctx, "key_a", next, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	old, _ := s.GetKey(ctx, "key_a")
	nk, err := s.GetKey(ctx, "key_b")
	if old.Active() || err != nil || !nk.Active() || nk.Project != "acme" {
		t.Fatalf("after rotate: old active=%v, new=%+v err=%v", old.Active(), nk, err)
	}
	// Rotating a missing key changes nothing.
	if err := s.RotateKey(ctx, "key_missing", newKey("key_c", hash(3)), t0); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("rotate missing: %v; want ErrNotFound", err)
	}
	if _, err := s.GetKey(ctx, "key_c"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("failed rotate left key_c behind: %v", err)
	}
}

func testLimits(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	mustCreate(t, s, "acme", newKey("key_a", hash(1), "assets:read"))
	l := apikey.Limits{RateRequests: 50, RateWindow: 10 * time.Second, QuotaPerMonth: 1_000_000}
	if err := s.SetKeyLimits(ctx, "key_a", l); err != nil {
		t.Fatal(err)
	}
	k, _ := s.GetKey(ctx, "key_a")
	if d := cmp.Diff(l, k.Limits); d != "" {
		t.Fatalf("limits (-want +got):\n%s", d)
	}
}

func testScopes(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	mustCreate(t, s, "acme", newKey("key_a", hash(1), "assets:read", "assets:ohlcv:read"))
	mustCreate(t, s, "acme", newKey("key_b", hash(2), "assets:read"))
	v0, err := s.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"assets:ohlcv:read", "execution:read"}
	if err := s.SetKeyScopes(ctx, "key_a", want); err != nil {
		t.Fatal(err)
	}
	k, _ := s.GetKey(ctx, "key_a")
	if d := cmp.Diff(want, k.Scopes); d != "" {
		t.Fatalf("scopes (-want +got):\n%s", d)
	}
	// The other key and the listing agree; the keys topic moved, so every
	// replica's key index reloads.
	other, _ := s.GetKey(ctx, "key_b")
	if d := cmp.Diff([]string{"assets:read"}, other.Scopes); d != "" {
		t.Fatalf("untouched key's scopes (-want +got):\n%s", d)
	}
	all, _ := s.ListKeys(ctx)
	for _, lk := range all {
		if lk.ID == "key_a" && !cmp.Equal(want, lk.Scopes) {
			t.Fatalf("ListKeys scopes of key_a = %v", lk.Scopes)
		}
	}
	v1, _ := s.Versions(ctx)
	if v1[storage.TopicKeys] <= v0[storage.TopicKeys] {
		t.Fatalf("keys version %d → %d; want it to move", v0[storage.TopicKeys], v1[storage.TopicKeys])
	}
	if err := s.SetKeyScopes(ctx, "key_missing", want); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("SetKeyScopes missing: %v; want ErrNotFound", err)
	}
}

func testVersions(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	v0, err := s.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "acme", newKey("key_a", hash(1), "assets:read"))
	v1, _ := s.Versions(ctx)
	_ = s.RevokeKey(ctx, "key_a", t0)
	v2, _ := s.Versions(ctx)
	if !(v0[storage.TopicKeys] < v1[storage.TopicKeys] && v1[storage.TopicKeys] < v2[storage.TopicKeys]) {
		t.Fatalf("keys versions %d, %d, %d; want strictly increasing", v0[storage.TopicKeys], v1[storage.TopicKeys], v2[storage.TopicKeys])
	}
}

func testSessions(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	in := session.Session{ID: "sess_1", UserID: "user_1", Email: "a@example.com", TokenHash: hash(9), CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	if err := s.CreateSession(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := s.SessionByHash(ctx, hash(9))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, got); d != "" {
		t.Fatalf("session (-want +got):\n%s", d)
	}
	if _, err := s.SessionByHash(ctx, hash(10)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("missing session: %v; want ErrNotFound", err)
	}
}

// testSessionRevocation: a revocation is stored (the first time kept), is
// read back by another handle (another replica), and ListSessions filters
// by user, newest first.
func testSessionRevocation(t *testing.T, h Harness) {
	s, other := h.Fresh(t)
	ctx := context.Background()
	a := session.Session{ID: "sess_a", UserID: "user_1", Email: "a@example.com", TokenHash: hash(11), CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	b := session.Session{ID: "sess_b", UserID: "user_1", Email: "a@example.com", TokenHash: hash(12), CreatedAt: t0.Add(time.Minute), ExpiresAt: t0.Add(time.Hour)}
	c := session.Session{ID: "sess_c", UserID: "user_2", Email: "c@example.com", TokenHash: hash(13), CreatedAt: t0.Add(2 * time.Minute), ExpiresAt: t0.Add(time.Hour)}
	for _, ss := range []session.Session{a, b, c} {
		if err := s.CreateSession(ctx, ss); err != nil {
			t.Fatal(err)
		}
	}
	at := t0.Add(5 * time.Minute)
	if err := s.RevokeSession(ctx, "sess_a", at); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeSession(ctx, "sess_a", at.Add(time.Minute)); err != nil {
		t.Fatalf("second revocation: %v", err)
	}
	if err := s.RevokeSession(ctx, "sess_nope", at); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("revoke unknown: %v; want ErrNotFound", err)
	}
	got, err := other().SessionByHash(ctx, hash(11))
	if err != nil {
		t.Fatal(err)
	}
	if !got.RevokedAt.Equal(at) {
		t.Fatalf("revoked at %v; want %v (the first revocation)", got.RevokedAt, at)
	}
	if got, _ := s.SessionByHash(ctx, hash(12)); !got.RevokedAt.IsZero() {
		t.Fatalf("sess_b revoked at %v; want active", got.RevokedAt)
	}
	a.RevokedAt = at
	list, err := s.ListSessions(ctx, "user_1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]session.Session{b, a}, list); d != "" {
		t.Fatalf("user_1 sessions (-want +got):\n%s", d)
	}
	all, err := s.ListSessions(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]session.Session{c, b, a}, all); d != "" {
		t.Fatalf("all sessions (-want +got):\n%s", d)
	}
}

func testConcurrentCreates(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.CreateKey(context.Background(), "shared", newKey(fmt.Sprintf("key_%02d", i), hash(100+i), "assets:read"))
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent creates: %v", err)
	}
	keys, _ := s.ListKeys(context.Background())
	projects := map[string]bool{}
	for _, k := range keys {
		projects[k.ProjectID] = true
	}
	if len(keys) != 20 || len(projects) != 1 {
		t.Fatalf("got %d keys in %d projects; want 20 in 1", len(keys), len(projects))
	}
}

func regDoc(source, body string) storage.RegistryDocument {
	return storage.RegistryDocument{Source: source, Format: "assetd", Body: []byte(body), Hash: fmt.Sprintf("%x", len(body)) + body, ImportedAt: storage.Ms(t0)}
}

func testRegistryDocuments(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	v0, _ := s.Versions(ctx)
	for _, step := range []struct {
		doc     storage.RegistryDocument
		changed bool
	}{
		{regDoc("a", `{"assets":[]}`), true},
		{regDoc("b", `{"assets":[1]}`), true},
		{regDoc("a", `{"assets":[]}`), false}, // same content: idempotent
		{regDoc("a", `{"assets":[2]}`), true}, // new content: replaces, moves last
	} {
		changed, err := s.PutRegistryDocument(ctx, step.doc)
		if err != nil || changed != step.changed {
			t.Fatalf("Put %s %s = %v, %v; want %v", step.doc.Source, step.doc.Body, changed, err, step.changed)
		}
	}
	docs, err := s.ListRegistryDocuments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Source != "b" || docs[1].Source != "a" || string(docs[1].Body) != `{"assets":[2]}` {
		t.Fatalf("documents: %+v", docs)
	}
	v1, _ := s.Versions(ctx)
	if v1[storage.TopicRegistry]-v0[storage.TopicRegistry] != 3 {
		t.Fatalf("registry version moved %d; want 3 (one per changing put)", v1[storage.TopicRegistry]-v0[storage.TopicRegistry])
	}
	if err := s.DeleteRegistryDocument(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRegistryDocument(ctx, "b"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	// A large body (an engine may store it compressed) comes back byte
	// for byte.
	var big strings.Builder
	big.WriteString(`{"assets":[`)
	for i := range 20_000 {
		fmt.Fprintf(&big, `{"assetId":"syn-%06d","name":"Synthetic asset %d"},`, i, i*7919%100_003)
	}
	big.WriteString(`{}]}`)
	if _, err := s.PutRegistryDocument(ctx, regDoc("big", big.String())); err != nil {
		t.Fatal(err)
	}
	docs, err = s.ListRegistryDocuments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[1].Source != "big" || string(docs[1].Body) != big.String() {
		t.Fatalf("the %d-byte document did not come back as stored", big.Len())
	}
}
