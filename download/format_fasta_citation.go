package download

import (
	"slices"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// continentTitles are GBIF's Continent titles.
var continentTitles = map[string]string{
	"AFRICA": "Africa", "ANTARCTICA": "Antarctica", "ASIA": "Asia", "OCEANIA": "Oceania",
	"EUROPE": "Europe", "NORTH_AMERICA": "North America", "SOUTH_AMERICA": "South America",
}

// taxonKeyParams are the search parameters whose values are taxon keys.
var taxonKeyParams = []string{"TAXON_KEY", "ACCEPTED_TAXON_KEY", "KINGDOM_KEY", "PHYLUM_KEY", "CLASS_KEY",
	"ORDER_KEY", "FAMILY_KEY", "GENUS_KEY", "SUBGENUS_KEY", "SPECIES_KEY"}

// fastaCitation is a FASTA archive's citation as GBIF's
// FastaCitationBuilder words it: "FASTA Archive Download", what the
// predicate selects (target genes, taxa, places: "of COI sequences from
// Salmo trutta in Denmark"), then "<portal> (<day created>). <ref>". Taxa
// named by key are given by key (GBIF looks their names up, and gives the
// key when that fails); negated parts are left out, as GBIF leaves them.
func fastaCitation(x *Export) string {
	var genes, taxa, places []string
	var walk func(p *occurrence.Predicate)
	walk = func(p *occurrence.Predicate) {
		if p == nil {
			return
		}
		switch p.Type {
		case "and", "or":
			for _, q := range p.Predicates {
				walk(q)
			}
		case "within":
			places = append(places, "a geographic area")
		case "equals", "in":
			values := p.Values
			if p.Type == "equals" {
				values = []string{p.Value}
			}
			for _, v := range values {
				switch {
				case p.Key == "NUCLEOTIDE_SEQUENCE_TARGET_GENE":
					genes = append(genes, v)
				case p.Key == "SCIENTIFIC_NAME" || slices.Contains(taxonKeyParams, p.Key):
					taxa = append(taxa, v)
				case p.Key == "COUNTRY":
					if t, ok := occurrence.GBIFCountryTitle(v); ok {
						v = t
					}
					places = append(places, v)
				case p.Key == "CONTINENT":
					if t, ok := continentTitles[strings.ToUpper(v)]; ok {
						v = t
					}
					places = append(places, v)
				case strings.HasPrefix(p.Key, "GADM_"):
					places = append(places, v)
				}
			}
		}
	}
	walk(x.spec.Predicate)
	var b strings.Builder
	b.WriteString("FASTA Archive Download")
	switch {
	case len(genes) > 0:
		b.WriteString(" of " + strings.Join(genes, ", ") + " sequences")
	case len(taxa) > 0 || len(places) > 0:
		b.WriteString(" of sequences")
	}
	if len(taxa) > 0 {
		b.WriteString(" from " + strings.Join(taxa, ", "))
	}
	if len(places) > 0 {
		b.WriteString(" in " + strings.Join(places, ", "))
	}
	ref := downloadRef(x.spec.DOI, x.spec.Link)
	if ref == "" {
		ref = x.spec.Key
	}
	name := x.opts.Portal.Name
	b.WriteString(". " + name + " (" + x.created.UTC().Format("2 January 2006") + "). " + ref)
	return b.String()
}
