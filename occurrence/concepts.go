package occurrence

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/biodiversity-downloads/downloader/internal/asciifold"
)

// GBIF aligns some Darwin Core values to the concepts of its vocabularies
// (registry.gbif.org/vocabulary): typeStatus, establishmentMeans,
// degreeOfEstablishment, pathway, sex and lifeStage hold a concept's name
// ("Holotype", "introduced", "Female"), or nothing when the published
// value names none. A value is looked up as GBIF's vocabulary-lookup
// library does (InMemoryVocabularyLookup): after the vocabulary's
// prefilter, with whitespace removed, lower-cased and folded to ASCII, it
// is compared with the concepts' names (without "-", "_" and
// whitespace), then their labels and alternative labels in any language
// (several concepts: the one whose English label it is, else none), then
// their hidden labels. The concepts are conceptData, GBIF's own exports.

// conceptDef is one concept as conceptData lists it.
type conceptDef struct {
	name, parent string
	labels       []langLabel
	hidden       []string
	// tags are the concept's "name: value" tags a vocabulary's
	// interpretation reads (GeoTime's rank, startAge and endAge).
	tags []string
}

// langLabel is a label or alternative label in a language ("en", "es-ES").
type langLabel struct{ lang, text string }

// conceptVocabulary answers lookups of one GBIF vocabulary.
type conceptVocabulary struct {
	name      string
	prefilter func(string) string
	names     map[string]string   // normalized name -> name
	labels    map[string][]string // normalized label -> names, in order
	english   map[string][]string // normalized English label -> names
	hidden    map[string]string   // normalized hidden label -> name
	concepts  []string            // names, in the export's order
	children  map[string][]string // name -> the names of its children
	parents   map[string]string   // name -> its parent's name
}

func newConceptVocabulary(name string, prefilter func(string) string) *conceptVocabulary {
	defs, ok := conceptData[name]
	if !ok {
		panic("occurrence: no concepts for vocabulary " + name)
	}
	v := &conceptVocabulary{name: name, prefilter: prefilter, names: map[string]string{},
		labels: map[string][]string{}, english: map[string][]string{}, hidden: map[string]string{}, children: map[string][]string{},
		parents: map[string]string{}}
	for _, c := range defs {
		v.concepts = append(v.concepts, c.name)
		if c.parent != "" {
			v.children[c.parent] = append(v.children[c.parent], c.name)
			v.parents[c.name] = c.parent
		}
		v.names[asciiFold(normalizeConceptName(c.name))] = c.name
		for _, l := range c.labels {
			k := v.key(l.text)
			v.labels[k] = appendUnique(v.labels[k], c.name)
			if l.lang == "en" {
				v.english[k] = appendUnique(v.english[k], c.name)
			}
		}
		for _, h := range c.hidden {
			v.hidden[v.key(h)] = c.name // a later concept's wins, as in GBIF's cache
		}
	}
	return v
}

// key normalizes a value or a label: prefilter, whitespace removed, lower
// case, ASCII.
func (v *conceptVocabulary) key(s string) string {
	if v.prefilter != nil {
		s = v.prefilter(s)
	}
	return asciiFold(strings.ToLower(strings.Map(dropJavaSpace, s)))
}

// nameKey normalizes a value to compare with the concepts' names:
// prefilter, then as names are normalized.
func (v *conceptVocabulary) nameKey(s string) string {
	if v.prefilter != nil {
		s = v.prefilter(s)
	}
	return asciiFold(normalizeConceptName(s))
}

// lookup returns the name of the concept value names.
func (v *conceptVocabulary) lookup(value string) (string, bool) {
	if value == "" {
		return "", false
	}
	// Names compare as GBIF's normalizeName leaves them (no "-" or "_":
	// SSU-rRNA names SSU_rRNA), labels as its normalizeLabel does.
	if n, ok := v.names[v.nameKey(value)]; ok {
		return n, true
	}
	k := v.key(value)
	if ns := v.labels[k]; len(ns) == 1 {
		return ns[0], true
	} else if len(ns) > 1 {
		if en := v.english[k]; len(en) == 1 {
			return en[0], true
		}
	}
	n, ok := v.hidden[k]
	return n, ok
}

// narrower returns the concepts under the concept name, at any depth.
func (v *conceptVocabulary) narrower(name string) []string {
	var out []string
	var walk func(string)
	walk = func(n string) {
		for _, c := range v.children[n] {
			if !slices.Contains(out, c) { // a vocabulary is a tree; this only guards a cycle
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(name)
	return out
}

// lineage is the concept's ancestors from the vocabulary's root down, then
// the concept, as GBIF's pipelines store a concept's lineage
// (VocabularyConceptFactory); a name the vocabulary lacks is alone.
func (v *conceptVocabulary) lineage(name string) []string {
	out := []string{name}
	for p := v.parents[name]; p != "" && len(out) <= len(v.concepts); p = v.parents[p] {
		out = append(out, p)
	}
	slices.Reverse(out)
	return out
}

// ConceptColumn describes a column holding concepts of one of GBIF's
// vocabularies, as GBIF's table has it: a struct of the concept (concepts
// for a list) and its lineage.
type ConceptColumn struct {
	List bool // several concepts, ";"-joined (typeStatus)
	v    *conceptVocabulary
}

// Lineage is the lineages of the concepts in value (a column's ";"-joined
// list for a List column), one after the other, as GBIF's table's
// lineage field has them.
func (c ConceptColumn) Lineage(value string) []string {
	if value == "" {
		return nil
	}
	var out []string
	for name := range strings.SplitSeq(value, ";") {
		if name = strings.TrimSpace(name); name != "" {
			out = append(out, c.v.lineage(name)...)
		}
	}
	return out
}

// ConceptColumns are the columns GBIF's table types as vocabulary structs
// (download-tables' HiveDataTypes: STRUCT<concept, lineage>, and
// STRUCT<concepts, lineage> for typeStatus), by column name.
func ConceptColumns() map[string]ConceptColumn {
	m := map[string]ConceptColumn{ColTypeStatus: {List: true, v: conceptsTypeStatus}}
	for _, f := range conceptFields {
		m[columns[f.col].Name] = ConceptColumn{v: f.vocab}
	}
	for _, g := range geoPairs {
		m[columns[g.iEarliest].Name] = ConceptColumn{v: conceptsGeoTime}
		m[columns[g.iLatest].Name] = ConceptColumn{v: conceptsGeoTime}
	}
	return m
}

// norm is lookup as a predicate value's normalization: the concept's name,
// or an error listing some.
func (v *conceptVocabulary) norm(s string) (string, error) {
	if n, ok := v.lookup(s); ok {
		return n, nil
	}
	return "", fmt.Errorf("not a concept of GBIF's %s vocabulary (one of %s)", v.name, listSome(v.concepts, 12))
}

// normalizeConceptName drops "-", "_" and whitespace and lower-cases, as
// GBIF's StringNormalizer.normalizeName.
func normalizeConceptName(s string) string {
	return strings.ToLower(strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || dropJavaSpace(r) < 0 {
			return -1
		}
		return r
	}, s))
}

// dropJavaSpace drops what Java's \s matches: space, \t, \n, \v, \f, \r.
func dropJavaSpace(r rune) rune {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return -1
	}
	return r
}

// asciiFold replaces letters with diacritics and compatibility forms by
// their ASCII letters (é -> e, ø -> o, ß -> ss, fullwidth Ａ -> A), as
// GBIF's vocabulary normalization folds them; other characters stay.
func asciiFold(s string) string { return asciifold.Fold(s, norm.NFKD) }

// The vocabularies GBIF's interpretation aligns values to, with the
// prefilters its pipelines give lifeStage (a leading number dropped) and
// sex (digits 1-9 dropped).
var (
	conceptsTypeStatus            = newConceptVocabulary("TypeStatus", nil)
	conceptsEstablishmentMeans    = newConceptVocabulary("EstablishmentMeans", nil)
	conceptsDegreeOfEstablishment = newConceptVocabulary("DegreeOfEstablishment", nil)
	conceptsPathway               = newConceptVocabulary("Pathway", nil)
	conceptsSex                   = newConceptVocabulary("Sex", func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= '1' && r <= '9' {
				return -1
			}
			return r
		}, s)
	})
	conceptsLifeStage = newConceptVocabulary("LifeStage", func(s string) string {
		return strings.TrimLeft(s, "0123456789")
	})
)
