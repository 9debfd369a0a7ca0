package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// finished records a download of creator, created at created, that
// succeeded with datasets, through the worker's own claim and succeed.
func finished(t *testing.T, db *DB, key, creator string, created time.Time, source string, datasets ...DatasetUsage) {
	t.Helper()
	ctx := context.Background()
	r := row{Creator: creator}
	r.Key, r.Status = key, StatusPreparing
	r.Request = Request{Format: "DWCA", Type: "OCCURRENCE", Creator: creator, Source: source}
	r.Created, r.Modified, r.EraseAfter = Time{created}, Time{created}, Time{created.Add(time.Hour)}
	if err := db.insertDownload(ctx, db.SQL, r, key); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.claim(ctx, key, "w", time.Minute); err != nil || !ok {
		t.Fatalf("claim %s: %v %v", key, ok, err)
	}
	var total int64
	for _, d := range datasets {
		total += d.NumberRecords
	}
	if err := db.inTx(ctx, func(tx *sql.Tx) error {
		ok, err := db.succeed(ctx, tx, key, "w", key+".zip", ExportResult{Records: total, Datasets: datasets,
			License: "http://creativecommons.org/licenses/by/4.0/legalcode"})
		if err == nil && !ok {
			err = errors.New("not succeeded")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func usageTestService(t *testing.T, db *DB) *Service {
	t.Helper()
	s := queueTestService(t, db, false)
	if err := db.AddUser(context.Background(), User{Name: "bob"}, "correct horse"); err != nil {
		t.Fatal(err)
	}
	return s
}

func month(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 12, 0, 0, 0, time.UTC) }

const (
	dsA, dsB, dsC = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002", "cccccccc-0000-4000-8000-000000000003"
	orgX, orgY    = "11111111-0000-4000-8000-00000000000x", "22222222-0000-4000-8000-00000000000y"
)

// usageFixture: three succeeded downloads over two months, one failed one.
func usageFixture(t *testing.T, db *DB) {
	finished(t, db, "0000001-a", "alice", month(2023, 12, 31), "pygbif",
		DatasetUsage{DatasetKey: dsA, DatasetTitle: "Alpha", NumberRecords: 10, PublishingOrgKey: orgX, PublishingCountryCode: "DK"},
		DatasetUsage{DatasetKey: dsB, DatasetTitle: "Beta", NumberRecords: 30, PublishingOrgKey: orgX, PublishingCountryCode: "DK",
			DatasetDOI: "10.1234/beta"},
		DatasetUsage{DatasetKey: dsC, DatasetTitle: "Gamma", NumberRecords: 5, PublishingOrgKey: orgY, PublishingCountryCode: "SE"})
	finished(t, db, "0000002-a", "alice", month(2024, 1, 1), "rgbif",
		DatasetUsage{DatasetKey: dsA, DatasetTitle: "Alpha", NumberRecords: 7})
	finished(t, db, "0000003-a", "bob", month(2024, 1, 20), "pygbif",
		DatasetUsage{DatasetKey: dsA, DatasetTitle: "Alpha", NumberRecords: 1, PublishingOrgKey: orgX, PublishingCountryCode: "DK"},
		DatasetUsage{DatasetKey: dsC, DatasetTitle: "Gamma", NumberRecords: 2})
	r := row{Creator: "bob"}
	r.Key, r.Status, r.Request = "0000004-a", StatusFailed, Request{Format: "DWCA", Type: "OCCURRENCE", Source: "pygbif"}
	r.Created, r.Modified, r.EraseAfter = Time{month(2024, 1, 5)}, Time{month(2024, 1, 5)}, Time{month(2024, 7, 5)}
	if err := db.insertDownload(context.Background(), db.SQL, r, "x"); err != nil {
		t.Fatal(err)
	}
}

func TestUsageLists(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		s := usageTestService(t, db)
		usageFixture(t, db)
		ctx := context.Background()
		ds, err := s.Datasets(ctx, "0000001-a", UsageQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if ds.Count != 3 || len(ds.Results) != 3 || ds.Results[0].DatasetKey != dsB || ds.Results[0].DatasetDOI != "10.1234/beta" ||
			ds.Results[0].PublishingCountryCode != "DK" || ds.Results[2].DatasetKey != dsC {
			t.Fatalf("datasets by records %+v", ds)
		}
		ds, err = s.Datasets(ctx, "0000001-a", UsageQuery{SortBy: "dataset_title", SortOrder: "desc", Limit: 2, Offset: 1})
		if err != nil || len(ds.Results) != 2 || ds.Results[0].DatasetTitle != "Beta" || ds.Results[1].DatasetTitle != "Alpha" || !ds.EndOfRecords {
			t.Fatalf("datasets by title desc, second page: %+v %v", ds, err)
		}
		ds, err = s.Datasets(ctx, "0000001-a", UsageQuery{Title: "Gamma"})
		if err != nil || ds.Count != 1 || ds.Results[0].DatasetKey != dsC {
			t.Fatalf("datasets titled Gamma: %+v %v", ds, err)
		}
		if _, err := s.Datasets(ctx, "0000001-a", UsageQuery{SortBy: "COLOUR"}); !errors.Is(err, ErrInvalidRequest) {
			t.Fatalf("bad sortBy: %v", err)
		}
		if _, err := s.Datasets(ctx, "0000009-a", UsageQuery{}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("unknown download: %v", err)
		}

		orgs, err := s.Organizations(ctx, "0000001-a", UsageQuery{})
		if err != nil || orgs.Count != 2 || len(orgs.Results) != 2 ||
			orgs.Results[0] != (OrganizationUsage{DownloadKey: "0000001-a", OrganizationKey: orgX, NumberRecords: 40, PublishingCountryCode: "DK"}) ||
			orgs.Results[1].OrganizationKey != orgY || orgs.Results[1].NumberRecords != 5 {
			t.Fatalf("organizations %+v %v", orgs, err)
		}
		countries, err := s.Countries(ctx, "0000001-a", UsageQuery{SortBy: "COUNTRY_CODE", SortOrder: "DESC"})
		if err != nil || countries.Count != 2 || countries.Results[0].PublishingCountryCode != "SE" ||
			countries.Results[1] != (CountryUsage{DownloadKey: "0000001-a", NumberRecords: 40, PublishingCountryCode: "DK"}) {
			t.Fatalf("countries %+v %v", countries, err)
		}
		// Nothing recorded: empty lists, not invented ones.
		if orgs, err := s.Organizations(ctx, "0000002-a", UsageQuery{}); err != nil || orgs.Count != 0 || orgs.Results == nil {
			t.Fatalf("organizations of a download without recorded ones: %+v %v", orgs, err)
		}

		// Statistics of a download: only with stats, only what is recorded.
		d, err := s.Get(ctx, nil, "0000001-a", true)
		if err != nil || d.NumberOrganizations == nil || *d.NumberOrganizations != 2 || d.NumberPublishingCountries == nil ||
			*d.NumberPublishingCountries != 2 || d.NumberDatasets != 3 {
			t.Fatalf("with statistics: %+v %v", d, err)
		}
		if d, _ := s.Get(ctx, nil, "0000001-a", false); d.NumberOrganizations != nil {
			t.Fatalf("without statistics: %+v", d)
		}
		d, err = s.Get(ctx, nil, "0000002-a", true)
		if err != nil || d.NumberOrganizations != nil || d.NumberPublishingCountries != nil {
			t.Fatalf("nothing recorded, yet counted: %+v %v", d, err)
		}
		b, _ := json.Marshal(d)
		var fields map[string]any
		_ = json.Unmarshal(b, &fields)
		for _, absent := range []string{"numberOrganizations", "numberPublishingCountries", "doi", "erasureNotification", "source"} {
			if _, ok := fields[absent]; ok {
				t.Errorf("anonymous JSON has %s: %s", absent, b)
			}
		}
		if req := fields["request"].(map[string]any); req["verbatimExtensions"] == nil || req["predicate"] != nil {
			t.Errorf("request %v: want verbatimExtensions [] and no predicate", req)
		}
		if fields["license"] != "http://creativecommons.org/licenses/by/4.0/legalcode" {
			t.Errorf("license %v", fields["license"])
		}

		var n int
		err = s.EachDataset(ctx, "0000003-a", func(u DatasetUsage) error {
			n++
			if n == 1 && (u.DatasetKey != dsC || u.NumberRecords != 2) {
				t.Errorf("first exported dataset %+v", u)
			}
			return nil
		})
		if err != nil || n != 2 {
			t.Fatalf("exported %d datasets: %v", n, err)
		}
	})
}

func TestDownloadStatistics(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		s := usageTestService(t, db)
		usageFixture(t, db)
		ctx := context.Background()
		p, err := s.DownloadStatistics(ctx, StatsFilter{}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := []DownloadStatistics{
			{DatasetKey: dsA, TotalRecords: 8, NumberDownloads: 2, Year: 2024, Month: 1},
			{DatasetKey: dsC, TotalRecords: 2, NumberDownloads: 1, Year: 2024, Month: 1},
			{DatasetKey: dsA, TotalRecords: 10, NumberDownloads: 1, Year: 2023, Month: 12},
			{DatasetKey: dsB, TotalRecords: 30, NumberDownloads: 1, Year: 2023, Month: 12},
			{DatasetKey: dsC, TotalRecords: 5, NumberDownloads: 1, Year: 2023, Month: 12},
		}
		if p.Count != int64(len(want)) || len(p.Results) != len(want) {
			t.Fatalf("statistics %+v", p)
		}
		for i := range want {
			if p.Results[i] != want[i] {
				t.Errorf("row %d: %+v, want %+v", i, p.Results[i], want[i])
			}
		}
		p, err = s.DownloadStatistics(ctx, StatsFilter{From: month(2024, 1, 1).Add(-12 * time.Hour), PublishingCountry: "dk"}, 0, 0)
		if err != nil || p.Count != 1 || p.Results[0] != (DownloadStatistics{DatasetKey: dsA, TotalRecords: 1, NumberDownloads: 1, Year: 2024, Month: 1}) {
			t.Fatalf("2024, published in DK: %+v %v", p, err)
		}
		var rows []DownloadStatistics
		if err := s.EachDownloadStatistic(ctx, StatsFilter{DatasetKey: dsC}, func(st DownloadStatistics) error {
			rows = append(rows, st)
			return nil
		}); err != nil || len(rows) != 2 || rows[0] != want[1] || rows[1] != want[4] {
			t.Fatalf("export rows of %s: %+v %v", dsC, rows, err)
		}

		checkMonthly := func(what string, got MonthlyCounts, err error, wantJSON string) {
			t.Helper()
			b, jerr := json.Marshal(got)
			if err != nil || jerr != nil || string(b) != wantJSON {
				t.Errorf("%s: %s (%v %v), want %s", what, b, err, jerr, wantJSON)
			}
		}
		m, err := s.DownloadsByMonth(ctx, StatsFilter{})
		checkMonthly("downloads by month", m, err, `{"2023":{"12":1},"2024":{"1":2}}`) // the FAILED one is not counted
		m, err = s.DownloadsByMonth(ctx, StatsFilter{Source: "pygbif"})
		checkMonthly("by source pygbif", m, err, `{"2023":{"12":1},"2024":{"1":1}}`)
		m, err = s.DownloadsByMonth(ctx, StatsFilter{UserCountry: "DK"})
		checkMonthly("by user country", m, err, `{}`)
		m, err = s.DatasetDownloadsByMonth(ctx, StatsFilter{}, false)
		checkMonthly("downloads by dataset", m, err, `{"2023":{"12":1},"2024":{"1":2}}`)
		m, err = s.DatasetDownloadsByMonth(ctx, StatsFilter{DatasetKey: dsA}, true)
		checkMonthly("records of dataset A", m, err, `{"2023":{"12":10},"2024":{"1":8}}`)
		m, err = s.DatasetDownloadsByMonth(ctx, StatsFilter{PublishingOrgKey: orgY, To: month(2024, 1, 1)}, true)
		checkMonthly("records of organization Y in 2023", m, err, `{"2023":{"12":5}}`)
	})
}

// Months and years sort as numbers in the statistics maps.
func TestMonthlyCountsOrder(t *testing.T) {
	b, err := json.Marshal(MonthlyCounts{2024: {12: 1, 2: 3}, 999: {1: 4}, 10000: {}})
	if err != nil || string(b) != `{"999":{"1":4},"2024":{"2":3,"12":1},"10000":{}}` {
		t.Fatalf("%s %v", b, err)
	}
}

func TestListCountAndCancelRules(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		s := usageTestService(t, db)
		usageFixture(t, db)
		ctx := context.Background()
		bob := User{Name: "bob"}
		if _, err := s.List(ctx, bob, "alice", ListFilter{}, true, 0, 0); !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("bob lists alice's: %v", err)
		}
		if _, err := s.CountUser(ctx, bob, "alice", ListFilter{}); !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("bob counts alice's: %v", err)
		}
		if err := s.Cancel(ctx, bob, "0000001-a"); !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("bob cancels alice's: %v", err)
		}
		if n, err := s.CountUser(ctx, bob, "bob", ListFilter{}); err != nil || n != 2 {
			t.Fatalf("bob's count %d %v", n, err)
		}
		if n, err := s.CountUser(ctx, bob, "bob", ListFilter{Statuses: []Status{StatusFailed}}); err != nil || n != 1 {
			t.Fatalf("bob's failed count %d %v", n, err)
		}
		if n, err := s.CountUser(ctx, alice, "alice", ListFilter{From: month(2024, 1, 1).Add(-time.Hour)}); err != nil || n != 1 {
			t.Fatalf("alice's count from 2024 %d %v", n, err)
		}
		p, err := s.List(ctx, alice, "alice", ListFilter{}, true, 0, 0)
		if err != nil || len(p.Results) != 2 || p.Results[0].Key != "0000002-a" || p.Results[1].NumberOrganizations == nil ||
			p.Results[0].NumberOrganizations != nil || p.Results[1].Request.Creator != "alice" || p.Results[1].Source != "pygbif" {
			t.Fatalf("alice's list %+v %v", p, err)
		}
		// Cancelling a finished download changes nothing and succeeds.
		if err := s.Cancel(ctx, alice, "0000001-a"); err != nil {
			t.Fatalf("cancel a finished download: %v", err)
		}
		if d, _ := s.Get(ctx, &alice, "0000001-a", false); d.Status != StatusSucceeded {
			t.Fatalf("after cancel: %s", d.Status)
		}
		// Others see neither creator nor source.
		if d, _ := s.Get(ctx, &bob, "0000001-a", false); d.Source != "" || d.Request.Creator != "" {
			t.Fatalf("bob sees %+v", d)
		}
	})
}
