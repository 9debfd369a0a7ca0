package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/taxonomy"
)

// Taxa matches records to a table's taxonomy while they are interpreted:
// the checklist loaded into the taxonomy directory, else the taxonomy
// derived from the records' own classifications (taxonomy.Derived). One
// Taxa serves every ingest of a process (both backends: it works on the
// interpreted occurrence.Record) and is safe for concurrent use.
type Taxa struct {
	matcher   *taxonomy.Cache
	checklist *taxonomy.Checklist // nil: derived
	derived   *taxonomy.Derived   // nil: checklist
}

// matchCacheSize bounds the match cache of an ingest. A cached Match
// with its classification and usages takes about 1 KB: 100,000 (the
// cache's default) kept ~80 MB live, which under ingest's 256 MB soft
// memory limit made the garbage collector run all the time (2.5x the CPU
// of an ingest of 300,000 generated records, 50,171 cache misses;
// 5,000 was no faster than 20,000).
const matchCacheSize = 20_000

// OpenTaxa opens the taxonomy of a taxonomy directory (a table's
// DIR/taxonomy, or the directory given for an HBase table): its published
// checklist, else its derived taxonomy (created when missing).
func OpenTaxa(dir string) (*Taxa, error) {
	c, err := taxonomy.Open(dir)
	if err == nil {
		return NewTaxa(c), nil
	}
	if !errors.Is(err, taxonomy.ErrNoChecklist) {
		return nil, err
	}
	d, err := taxonomy.OpenDerived(dir)
	if err != nil {
		return nil, err
	}
	return NewTaxa(d), nil
}

// NewTaxa matches against t, a *taxonomy.Checklist or *taxonomy.Derived;
// Close closes it.
func NewTaxa(t taxonomy.Taxonomy) *Taxa {
	x := &Taxa{}
	switch v := t.(type) {
	case *taxonomy.Checklist:
		x.checklist = v
	case *taxonomy.Derived:
		// the workers only find keys; the ordered stage mints (MintRaw)
		x.derived = v
		x.matcher = taxonomy.NewCache(v.Finder(), matchCacheSize)
	}
	if x.matcher == nil {
		x.matcher = taxonomy.NewCache(t, matchCacheSize)
	}
	return x
}

// Describe names the taxonomy: the checklist's key, title and version, or
// "derived".
func (x *Taxa) Describe() string {
	if x.checklist == nil {
		return "derived from the records"
	}
	i := x.checklist.Info()
	return fmt.Sprintf("checklist %s %q version %d", i.Key, i.Title, i.Version)
}

// Sync makes the keys a derived taxonomy minted durable; Load calls it
// before committing records that carry them.
func (x *Taxa) Sync() error {
	if x.derived != nil {
		return x.derived.Sync()
	}
	return nil
}

// Close closes the taxonomy (syncing a derived one).
func (x *Taxa) Close() error {
	if x.derived != nil {
		return x.derived.Close()
	}
	if x.checklist != nil {
		return x.checklist.Close()
	}
	return nil
}

// Stats are the match cache's hits and misses.
func (x *Taxa) Stats() (hits, misses int64) { return x.matcher.Stats() }

// taxonTerm is a Darwin Core term a match reads: its local name (the key
// in the verbatim column) and its id (how a raw record gives it).
type taxonTerm struct {
	local string
	id    occurrence.TermID
}

func dwcTerm(local string) taxonTerm {
	return taxonTerm{local, occurrence.KnownTerm(occurrence.NSDwC + local)}
}

var (
	tScientificName  = dwcTerm("scientificName")
	tAuthorship      = dwcTerm("scientificNameAuthorship")
	tTaxonRank       = dwcTerm("taxonRank")
	tVerbatimRank    = dwcTerm("verbatimTaxonRank")
	tGenericName     = dwcTerm("genericName")
	tSpecificEpithet = dwcTerm("specificEpithet")
	tInfraEpithet    = dwcTerm("infraspecificEpithet")
	tKingdom         = dwcTerm("kingdom")
	tPhylum          = dwcTerm("phylum")
	tClass           = dwcTerm("class")
	tOrder           = dwcTerm("order")
	tFamily          = dwcTerm("family")
	tGenus           = dwcTerm("genus")
)

// query builds the match query from a record's verbatim terms. The
// record's taxonID is not given: sources cite their own checklists' IDs,
// and GBIF matches records to its backbone by name and classification.
// Keys a source carried (gbif:taxonKey) are ignored the same way.
func query(get func(taxonTerm) string) taxonomy.Query {
	rank := get(tTaxonRank)
	if rank == "" {
		rank = get(tVerbatimRank)
	}
	return taxonomy.Query{
		ScientificName: get(tScientificName), Authorship: get(tAuthorship), Rank: rank,
		GenericName: get(tGenericName), SpecificEpithet: get(tSpecificEpithet), InfraspecificEpithet: get(tInfraEpithet),
		Kingdom: get(tKingdom), Phylum: get(tPhylum), Class: get(tClass), Order: get(tOrder),
		Family: get(tFamily), Genus: get(tGenus), Occurrence: true,
	}
}

// InterpretRaw matches the taxon of a raw record and fills rec's taxon
// columns (after occurrence.Interpret). Against a derived taxonomy it
// mints nothing: deferred is not nil when the record names a taxon without
// a key yet, and the caller calls MintRaw with it in input order, so that
// the same input gets the same keys however the workers interleave.
func (x *Taxa) InterpretRaw(ctx context.Context, raw occurrence.RawRecord, rec *occurrence.Record) (deferred *taxonomy.UnmintedError, err error) {
	err = x.interpret(ctx, rawQuery(raw), rec)
	if errors.As(err, &deferred) {
		return deferred, nil
	}
	return nil, err
}

// MintRaw matches a record InterpretRaw deferred, minting the derived
// keys of the taxa it names first (from the query InterpretRaw parsed).
func (x *Taxa) MintRaw(ctx context.Context, raw occurrence.RawRecord, deferred *taxonomy.UnmintedError, rec *occurrence.Record) error {
	if x.derived == nil {
		return x.interpret(ctx, rawQuery(raw), rec)
	}
	// No cache here: every new taxon would invalidate it (a kingdom-less
	// name's "only taxon of that name" changes with the homonyms minted).
	m, err := x.derived.MatchUnminted(ctx, deferred)
	return fill(rec, &m, err)
}

func rawQuery(raw occurrence.RawRecord) taxonomy.Query {
	return query(func(t taxonTerm) string { return strings.TrimSpace(raw.Value(t.id)) })
}

// InterpretVerbatim matches the taxon of a stored record from its
// verbatim terms (keys as occurrence.VerbatimKey writes them) and fills
// rec's taxon columns: the re-interpretation of a table. A derived
// taxonomy mints what it lacks at once (the records were matched when
// they were ingested, so their taxa have keys already).
func (x *Taxa) InterpretVerbatim(ctx context.Context, verbatim map[string]string, rec *occurrence.Record) error {
	q := query(func(t taxonTerm) string { return strings.TrimSpace(verbatim[t.local]) })
	err := x.interpret(ctx, q, rec)
	if errors.Is(err, taxonomy.ErrUnminted) {
		m, err := x.derived.Match(ctx, q)
		return fill(rec, &m, err)
	}
	return err
}

func (x *Taxa) interpret(ctx context.Context, q taxonomy.Query, rec *occurrence.Record) error {
	m, err := x.matcher.Match(ctx, q)
	return fill(rec, &m, err)
}

// fill writes a match (or returns its error) into a record.
func fill(rec *occurrence.Record, m *taxonomy.Match, err error) error {
	if err != nil {
		return fmt.Errorf("taxon match: %w", err)
	}
	applyMatch(rec, m)
	if len(m.Issues) > 0 {
		addIssues(rec, m.Issues)
	}
	return nil
}

// The columns a match fills; every one is set (null when the match does
// not give it), so that values a source carried never survive.
var (
	cTaxonKey          = occurrence.ColumnIndex(occurrence.ColTaxonKey)
	cAcceptedTaxonKey  = occurrence.ColumnIndex(occurrence.ColAcceptedTaxonKey)
	cScientificName    = occurrence.ColumnIndex(occurrence.ColScientificName)
	cAcceptedSciName   = occurrence.ColumnIndex("acceptedScientificName")
	cTaxonRank         = occurrence.ColumnIndex(occurrence.ColTaxonRank)
	cTaxonomicStatus   = occurrence.ColumnIndex("taxonomicStatus")
	cTaxonomicIssue    = occurrence.ColumnIndex("taxonomicIssue")
	cGenericName       = occurrence.ColumnIndex("genericName")
	cSpecificEpithet   = occurrence.ColumnIndex("specificEpithet")
	cInfraEpithet      = occurrence.ColumnIndex(occurrence.ColInfraspecificEpithet)
	rankedColumns      = rankColumns()
	incertaeSedisRank  = taxonomy.IncertaeSedis.Rank.String()
	incertaeSedisNames = taxonomy.IncertaeSedis.Name
)

// rankedAt is the index in rankedColumns of a rank, -1 for a rank the
// table keeps no columns of.
var rankedAt = func() (at [256]int8) {
	for i := range at {
		at[i] = -1
	}
	for i, rc := range rankedColumns {
		at[rc.rank] = int8(i)
	}
	return at
}()

// rankColumn is a rank of the classification and its name and key columns.
type rankColumn struct {
	rank      taxonomy.Rank
	name, key int
}

// rankColumns lists the ranks whose name and key the table keeps: GBIF's
// seven and the intermediate ranks the schema has columns for.
func rankColumns() []rankColumn {
	var out []rankColumn
	for _, r := range []struct {
		rank taxonomy.Rank
		name string
	}{
		{taxonomy.RankKingdom, "kingdom"}, {taxonomy.RankPhylum, "phylum"}, {taxonomy.RankClass, "class"},
		{taxonomy.RankOrder, "order"}, {taxonomy.RankSuperfamily, "superfamily"}, {taxonomy.RankFamily, "family"},
		{taxonomy.RankSubfamily, "subfamily"}, {taxonomy.RankTribe, "tribe"}, {taxonomy.RankSubtribe, "subtribe"},
		{taxonomy.RankGenus, "genus"}, {taxonomy.RankSubgenus, "subgenus"}, {taxonomy.RankSpecies, "species"},
	} {
		out = append(out, rankColumn{rank: r.rank, name: occurrence.ColumnIndex(r.name), key: occurrence.ColumnIndex(r.name + "Key")})
	}
	return out
}

// applyMatch writes a match into the record's taxon columns. It reads the
// match directly (no per-usage cache: one held ~500 bytes per distinct
// taxon live for the whole ingest, which the garbage collector paid for).
func applyMatch(r *occurrence.Record, m *taxonomy.Match) {
	for _, rc := range rankedColumns {
		r.SetNull(rc.name)
		r.SetNull(rc.key)
	}
	for _, c := range [...]int{cTaxonomicStatus, cTaxonomicIssue, cGenericName, cSpecificEpithet, cInfraEpithet} {
		r.SetNull(c)
	}
	if len(m.Issues) > 0 {
		// the match's own issues, also merged into issue (GBIF keeps them
		// per checklist and joins the download's checklist's into issue)
		r.SetString(cTaxonomicIssue, joinSorted(m.Issues))
	}
	if m.Usage == nil {
		// GBIF's records that match nothing: the kingdom incertae sedis.
		r.SetInt(cTaxonKey, taxonomy.IncertaeSedis.Key)
		r.SetInt(cAcceptedTaxonKey, taxonomy.IncertaeSedis.Key)
		r.SetString(cScientificName, incertaeSedisNames)
		r.SetString(cAcceptedSciName, incertaeSedisNames)
		r.SetString(cTaxonRank, incertaeSedisRank)
		r.SetString(rankedColumns[0].name, incertaeSedisNames)
		r.SetInt(rankedColumns[0].key, taxonomy.IncertaeSedis.Key)
		return
	}
	u, a := m.Usage, m.Accepted
	r.SetInt(cTaxonKey, u.Key)
	r.SetInt(cAcceptedTaxonKey, a.Key)
	r.SetString(cScientificName, u.ScientificName)
	r.SetString(cAcceptedSciName, a.ScientificName)
	r.SetString(cTaxonRank, u.Rank.String())
	r.SetString(cTaxonomicStatus, u.Status.String())
	for _, t := range m.Classification {
		if i := rankedAt[t.Rank]; i >= 0 {
			r.SetString(rankedColumns[i].name, t.Name)
			r.SetInt(rankedColumns[i].key, t.Key)
		}
	}
	// genericName and the epithets are the matched usage's, as GBIF's.
	first, rest, _ := strings.Cut(u.CanonicalName, " ")
	switch {
	case u.Rank == taxonomy.RankGenus && rest == "":
		r.SetString(cGenericName, first)
	case u.Rank.IsSpeciesOrBelow() && rest != "":
		r.SetString(cGenericName, first)
		ep, infra, _ := strings.Cut(rest, " ")
		r.SetString(cSpecificEpithet, ep)
		if infra != "" {
			r.SetString(cInfraEpithet, infra[strings.LastIndexByte(infra, ' ')+1:])
		}
	}
}

// joinSorted joins issues in order, as the issue column lists them.
func joinSorted(issues []string) string {
	if len(issues) == 1 {
		return issues[0]
	}
	l := slices.Clone(issues)
	slices.Sort(l)
	return strings.Join(slices.Compact(l), ";")
}

// addIssues merges taxon issues into the record's sorted issue list.
func addIssues(r *occurrence.Record, issues []string) {
	var list []string
	if v := r.Get(issueCol); v.Valid {
		list = strings.Split(v.S, ";")
	}
	for _, is := range issues {
		if !slices.Contains(list, is) {
			list = append(list, is)
		}
	}
	slices.Sort(list)
	r.SetString(issueCol, strings.Join(list, ";"))
}

// taxonIssues are the issues a match may raise; re-interpretation drops
// them before matching again.
var taxonIssues = []string{taxonomy.IssueTaxonMatchFuzzy, taxonomy.IssueTaxonMatchHigherRank,
	taxonomy.IssueTaxonMatchNone, taxonomy.IssueTaxonMatchAggregate, taxonomy.IssueTaxonIDNotFound,
	taxonomy.IssueNameAndIDInconsistent}

// dropTaxonIssues removes the taxon issues from the record's issue list.
func dropTaxonIssues(r *occurrence.Record) {
	v := r.Get(issueCol)
	if !v.Valid {
		return
	}
	list := strings.Split(v.S, ";")
	if kept := slices.DeleteFunc(list, func(s string) bool { return slices.Contains(taxonIssues, s) }); len(kept) < len(list) {
		r.SetString(issueCol, strings.Join(kept, ";"))
	}
}
