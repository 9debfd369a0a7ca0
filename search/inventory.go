package search

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// An inventory is one of GBIF's /occurrence/counts/{name} routes
// (metrics-ws OccurrenceCubeResource, metrics-es AggregationQuery): the
// records counted by the values of one field, over the records the route's
// few parameters select, most frequent first, as a JSON object.
type inventory struct {
	facet string
	// params maps the route's parameters to the /occurrence/count
	// dimensions they are (nubKey is taxonKey, as GBIF reads it).
	params map[string]string
	// gbifNames writes country codes as GBIF's Country names (DENMARK).
	gbifNames bool
}

var inventories = map[string]inventory{
	"basisOfRecord":       {facet: "BASIS_OF_RECORD"},
	"countries":           {facet: "COUNTRY", params: map[string]string{"publishingCountry": "publishingCountry"}, gbifNames: true},
	"publishingCountries": {facet: "PUBLISHING_COUNTRY", params: map[string]string{"country": "country"}, gbifNames: true},
	"datasets":            {facet: "DATASET_KEY", params: map[string]string{"country": "country", "taxonKey": "taxonKey", "nubKey": "taxonKey"}},
	"year":                {facet: "YEAR", params: map[string]string{"year": "year"}},
}

// inventoryValues caps the values of an inventory (metrics-es AGG_SIZE).
const inventoryValues = 30_000

// InventoryNames are the inventories served, sorted.
func InventoryNames() []string { return slices.Sorted(maps.Keys(inventories)) }

// Inventory answers GET /occurrence/counts/{name}: ErrNotFound for a name
// GBIF does not serve, ErrInvalidRequest for a parameter the route does not
// take or a bad value. checklistKey is read and ignored (one taxonomy).
func (s *Service) Inventory(ctx context.Context, name string, q url.Values) ([]FacetCount, error) {
	inv, ok := inventories[name]
	if !ok {
		return nil, fmt.Errorf("%w: no inventory %q (inventories: %s)", ErrNotFound, name, strings.Join(InventoryNames(), ", "))
	}
	for k := range q {
		if _, ok := inv.params[k]; !ok && k != "checklistKey" {
			return nil, fmt.Errorf("%w: counts/%s takes no parameter %s", ErrInvalidRequest, name, k)
		}
	}
	// The route's parameters are /occurrence/count dimensions: ParseCount
	// reads them (GBIF's Country names included).
	dims := url.Values{}
	for _, k := range []string{"country", "publishingCountry", "taxonKey", "nubKey", "year"} {
		v := strings.TrimSpace(q.Get(k))
		if dim, ok := inv.params[k]; ok && v != "" && !dims.Has(dim) { // nubKey only without taxonKey
			dims.Set(dim, v)
		}
	}
	if name == "year" {
		lo, hi, err := yearRange(dims.Get("year"), time.Now().Year()+1)
		if err != nil {
			return nil, err
		}
		dims.Set("year", strconv.Itoa(lo)+","+strconv.Itoa(hi))
	}
	pred, err := s.ParseCount(dims)
	if err != nil {
		return nil, err
	}
	key, err := facetKey(inv.facet)
	if err != nil {
		return nil, err
	}
	resp, err := s.Search(ctx, Request{Predicate: pred, Facets: []FacetRequest{{Key: key, Limit: inventoryValues}}})
	if err != nil {
		return nil, err
	}
	var counts []FacetCount
	if len(resp.Facets) > 0 {
		counts = resp.Facets[0].Counts
	}
	if inv.gbifNames {
		for i := range counts {
			if n, ok := occurrence.GBIFCountryName(counts[i].Name); ok {
				counts[i].Name = n
			}
		}
	}
	return counts, nil
}

// yearRange reads counts/year's year as GBIF's parseYearRange does: empty
// is 1500 to next year, "a" is a to next year, "a,b" a to b; a bound
// below 1000 or beyond next year is an error.
func yearRange(v string, next int) (lo, hi int, err error) {
	if v == "" {
		return 1500, next, nil
	}
	bad := fmt.Errorf("%w: Parameter %s is not a valid year range (Valid year range between 1000 and now expected, separated by a comma)", ErrInvalidRequest, v)
	parts := strings.Split(v, ",")
	if len(parts) > 2 {
		return 0, 0, bad
	}
	lo, err = strconv.Atoi(strings.TrimSpace(parts[0]))
	if err != nil {
		return 0, 0, bad
	}
	hi = next
	if len(parts) == 2 {
		if hi, err = strconv.Atoi(strings.TrimSpace(parts[1])); err != nil {
			return 0, 0, bad
		}
	}
	if lo < 1000 || hi > next || lo > hi {
		return 0, 0, bad
	}
	return lo, hi, nil
}

// Dimension is a dimension of GBIF's occurrence cube as /occurrence/count/
// schema lists it: its parameter and its Java type's name (Jackson writes
// a Class by name).
type Dimension struct {
	Key  string `json:"key"`
	Type string `json:"type"`
}

// Rollup is a set of dimensions GBIF's /occurrence/count answers for.
type Rollup struct {
	Dimensions []Dimension `json:"dimensions"`
}

// cubeTypes are the Java types of the cube's dimensions (gbif-api
// OccurrenceCube).
var cubeTypes = map[string]string{
	"basisOfRecord": "org.gbif.api.vocabulary.BasisOfRecord", "country": "org.gbif.api.vocabulary.Country",
	"datasetKey": "java.util.UUID", "isGeoreferenced": "java.lang.Boolean", "issue": "org.gbif.api.vocabulary.OccurrenceIssue",
	"protocol": "org.gbif.api.vocabulary.EndpointType", "publishingCountry": "org.gbif.api.vocabulary.Country",
	"taxonKey": "java.lang.String", "typeStatus": "org.gbif.api.vocabulary.TypeStatus", "year": "java.lang.Integer",
}

// cubeRollups are GBIF's OccurrenceCube.ROLLUPS, in its order (gbif-api at
// 06da136). /occurrence/count here answers any combination of the ten
// dimensions; the schema lists GBIF's so clients that read it (pygbif's
// count_schema) see what they would at GBIF.
var cubeRollups = [][]string{
	{"basisOfRecord"}, {"basisOfRecord", "country"}, {"basisOfRecord", "country", "isGeoreferenced"},
	{"basisOfRecord", "country", "isGeoreferenced", "taxonKey"}, {"basisOfRecord", "country", "taxonKey"},
	{"basisOfRecord", "datasetKey"}, {"basisOfRecord", "datasetKey", "isGeoreferenced"},
	{"basisOfRecord", "datasetKey", "isGeoreferenced", "taxonKey"}, {"basisOfRecord", "datasetKey", "taxonKey"},
	{"basisOfRecord", "isGeoreferenced", "taxonKey"}, {"basisOfRecord", "isGeoreferenced", "publishingCountry"},
	{"basisOfRecord", "isGeoreferenced", "publishingCountry", "taxonKey"}, {"basisOfRecord", "publishingCountry"},
	{"basisOfRecord", "publishingCountry", "taxonKey"}, {"basisOfRecord", "taxonKey"},
	{"country"}, {"country", "datasetKey", "isGeoreferenced"}, {"country", "isGeoreferenced"},
	{"country", "isGeoreferenced", "publishingCountry"}, {"country", "isGeoreferenced", "taxonKey"},
	{"country", "publishingCountry"}, {"country", "taxonKey"}, {"country", "typeStatus"},
	{"datasetKey"}, {"datasetKey", "isGeoreferenced"}, {"datasetKey", "isGeoreferenced", "taxonKey"},
	{"datasetKey", "issue"}, {"datasetKey", "taxonKey"}, {"datasetKey", "typeStatus"},
	{"isGeoreferenced"}, {"isGeoreferenced", "publishingCountry"}, {"isGeoreferenced", "publishingCountry", "taxonKey"},
	{"isGeoreferenced", "taxonKey"}, {"issue"}, {"publishingCountry"}, {"publishingCountry", "taxonKey"},
	{"publishingCountry", "typeStatus"}, {"taxonKey"}, {"taxonKey", "typeStatus"}, {"typeStatus"},
	{"protocol"}, {"year"},
}

// CountSchema answers GET /occurrence/count/schema.
func CountSchema() []Rollup {
	out := make([]Rollup, len(cubeRollups))
	for i, r := range cubeRollups {
		for _, k := range r {
			out[i].Dimensions = append(out[i].Dimensions, Dimension{Key: k, Type: cubeTypes[k]})
		}
	}
	return out
}
