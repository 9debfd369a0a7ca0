package species

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/biodiversity-downloads/downloader/taxonomy"
)

// FuzzRequests sends arbitrary query strings and keys to every species
// call over the backbone cut: each answers, or is refused as an invalid
// request or an unknown key; never a panic or another error.
func FuzzRequests(f *testing.F) {
	dir := f.TempDir()
	if _, err := taxonomy.Load(context.Background(), dir, backboneCut, taxonomy.LoadOptions{}); err != nil {
		f.Fatal(err)
	}
	src := NewDir(dir, nil)
	f.Cleanup(func() { _ = src.Close() })
	s := New(src)
	for _, q := range []string{"name=Puma%20concolor&kingdom=Animalia&verbose=true", "usageKey=2435104", "q=Pu&rank=species&limit=3&offset=1",
		"name=Oenanthe&strict=true&rank=genus", "limit=-1", "offset=999999999999999999999", "rank=ssp.&name=Abies%20alba%20alba"} {
		f.Add(q, "2435099")
	}
	f.Fuzz(func(t *testing.T, query, key string) {
		v, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		ok := func(err error) {
			t.Helper()
			if err != nil && !errors.Is(err, ErrInvalidRequest) && !errors.Is(err, ErrNotFound) {
				t.Fatalf("%q %q: %v", query, key, err)
			}
		}
		ctx := context.Background()
		_, err = s.Match(ctx, v)
		ok(err)
		_, err = s.MatchV2(ctx, v)
		ok(err)
		_, err = s.Suggest(ctx, v)
		ok(err)
		_, err = s.Usage(ctx, key)
		ok(err)
		_, err = s.Children(ctx, key, v)
		ok(err)
		_, err = s.Synonyms(ctx, key, v)
		ok(err)
		_, err = s.Parents(ctx, key)
		ok(err)
	})
}
