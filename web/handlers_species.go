package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/species"
)

// Species answers GBIF's species routes from the table's taxonomy
// (species.Service).
type Species interface {
	Match(ctx context.Context, q url.Values) (species.MatchV1, error)
	MatchV2(ctx context.Context, q url.Values) (species.MatchV2, error)
	Suggest(ctx context.Context, q url.Values) ([]species.SuggestResult, error)
	Usage(ctx context.Context, key string) (species.NameUsage, error)
	Children(ctx context.Context, key string, q url.Values) (species.Page, error)
	Synonyms(ctx context.Context, key string, q url.Values) (species.Page, error)
	Parents(ctx context.Context, key string) ([]species.NameUsage, error)
}

var _ Species = (*species.Service)(nil)

// speciesRoutes are GBIF's species routes. The literal match and suggest
// segments take precedence over {key} in Go's ServeMux.
func (s *Server) speciesRoutes() []route {
	const sp = "/v1/species"
	return []route{
		{"GET", sp + "/match", nil, speciesAnswer(s, func(sp Species, r *http.Request) (any, error) {
			return sp.Match(r.Context(), r.URL.Query())
		})},
		{"GET", "/v2/species/match", nil, speciesAnswer(s, func(sp Species, r *http.Request) (any, error) {
			return sp.MatchV2(r.Context(), r.URL.Query())
		})},
		{"GET", sp + "/suggest", nil, speciesAnswer(s, func(sp Species, r *http.Request) (any, error) {
			return sp.Suggest(r.Context(), r.URL.Query())
		})},
		{"GET", sp + "/{key}", nil, speciesAnswer(s, func(sp Species, r *http.Request) (any, error) {
			return sp.Usage(r.Context(), r.PathValue("key"))
		})},
		{"GET", sp + "/{key}/children", nil, speciesAnswer(s, func(sp Species, r *http.Request) (any, error) {
			return sp.Children(r.Context(), r.PathValue("key"), r.URL.Query())
		})},
		{"GET", sp + "/{key}/synonyms", nil, speciesAnswer(s, func(sp Species, r *http.Request) (any, error) {
			return sp.Synonyms(r.Context(), r.PathValue("key"), r.URL.Query())
		})},
		{"GET", sp + "/{key}/parents", nil, speciesAnswer(s, func(sp Species, r *http.Request) (any, error) {
			return sp.Parents(r.Context(), r.PathValue("key"))
		})},
	}
}

// speciesAnswer adapts a species call to a handler: its answer as JSON,
// its error with the status of its kind.
func speciesAnswer(s *Server, call func(Species, *http.Request) (any, error)) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if s.cfg.Species == nil {
			return fmt.Errorf("%w: the species API has no taxonomy (serve --taxonomy-dir)", jobs.ErrEngineUnavailable)
		}
		v, err := call(s.cfg.Species, r)
		if err != nil {
			return speciesErr(err)
		}
		writeJSON(w, http.StatusOK, v)
		return nil
	}
}

func speciesErr(err error) error {
	switch {
	case errors.Is(err, species.ErrInvalidRequest):
		return kindErr{err, jobs.ErrInvalidRequest}
	case errors.Is(err, species.ErrNotFound):
		return kindErr{err, jobs.ErrNotFound}
	case errors.Is(err, species.ErrNoTaxonomy):
		return kindErr{err, jobs.ErrEngineUnavailable}
	}
	return err
}
