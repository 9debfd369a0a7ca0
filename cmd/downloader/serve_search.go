package main

import (
	"flag"
	"time"

	"github.com/biodiversity-downloads/downloader/search"
)

// searchFlags are serve's settings of the occurrence search API.
type searchFlags struct {
	cfg search.Config
}

func (s *searchFlags) register(fs *flag.FlagSet) {
	c := &s.cfg
	fs.IntVar(&c.MaxLimit, "search-max-limit", search.DefaultMaxLimit, "largest page of /v1/occurrence/search (GBIF: 300)")
	fs.IntVar(&c.MaxOffset, "search-max-offset", search.DefaultMaxOffset, "largest offset+limit of /v1/occurrence/search (GBIF: 100,000)")
	fs.IntVar(&c.MaxFacetValues, "search-max-facet-values", search.DefaultMaxFacetValues, "largest facetOffset+facetLimit")
	fs.DurationVar(&c.FacetTimeout, "search-facet-timeout", 10*time.Second, "how long the facets of one search may take")
	fs.IntVar(&c.Cache, "search-cache", 4096, "searches whose split counts (and as many facets) are kept (negative: none)")
	fs.IntVar(&c.MaxReads, "search-max-reads", 0, "record reads at once across all searches (0: one per core)")
}
