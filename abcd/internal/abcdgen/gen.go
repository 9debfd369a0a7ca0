// Package abcdgen generates realistic ABCD 2.06 archives for benchmarks: a
// zip of bare DataSets documents (response.00001.xml, ...) as BioCASe writes
// them, metadata repeated in every document, units modelled on the real
// samples in abcd/testdata (herbarium and zoology specimens with one or two
// identifications, collectors, coordinates for most, an image for some,
// type designations for a few).
package abcdgen

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/klauspost/compress/flate"
)

// WriteArchive writes a zip with units units, perDoc per document.
func WriteArchive(w io.Writer, units, perDoc int, seed uint64) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, 5)
	})
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for doc, done := 1, 0; done < units; doc++ {
		n := min(perDoc, units-done)
		f, err := zw.Create(fmt.Sprintf("response.%05d.xml", doc))
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 256<<10)
		writeDocument(bw, rng, done, n)
		if err := bw.Flush(); err != nil {
			return err
		}
		done += n
	}
	return zw.Close()
}

const head = `<?xml version='1.0' encoding='UTF-8'?>
<abcd:DataSets xmlns:abcd="http://www.tdwg.org/schemas/abcd/2.06">
  <abcd:DataSet>
    <abcd:DatasetGUID>urn:uuid:5e1f7c1a-8f0b-4a2e-9c35-0c7d2f1b9a11</abcd:DatasetGUID>
    <abcd:TechnicalContacts>
      <abcd:TechnicalContact>
        <abcd:Name>Botanic Garden and Botanical Museum Berlin</abcd:Name>
        <abcd:Email>biodiversitydata@bgbm.org</abcd:Email>
      </abcd:TechnicalContact>
    </abcd:TechnicalContacts>
    <abcd:ContentContacts>
      <abcd:ContentContact>
        <abcd:Name>Herbarium Curator</abcd:Name>
        <abcd:Email>herbarium@example.org</abcd:Email>
      </abcd:ContentContact>
    </abcd:ContentContacts>
    <abcd:Metadata>
      <abcd:Description>
        <abcd:Representation language="en">
          <abcd:Title>Generated Herbarium (benchmark)</abcd:Title>
          <abcd:Details>Synthetic specimens modelled on real BioCASe ABCD 2.06 responses.</abcd:Details>
        </abcd:Representation>
      </abcd:Description>
      <abcd:RevisionData>
        <abcd:DateModified>2024-05-01T00:00:00</abcd:DateModified>
      </abcd:RevisionData>
      <abcd:Owners>
        <abcd:Owner>
          <abcd:Organisation>
            <abcd:Name>
              <abcd:Representation language="en">
                <abcd:Text>Botanic Garden and Botanical Museum Berlin</abcd:Text>
                <abcd:Abbreviation>BGBM</abcd:Abbreviation>
              </abcd:Representation>
            </abcd:Name>
          </abcd:Organisation>
        </abcd:Owner>
      </abcd:Owners>
      <abcd:IPRStatements>
        <abcd:Licenses>
          <abcd:License language="en">
            <abcd:Text>CC BY 4.0</abcd:Text>
            <abcd:URI>https://creativecommons.org/licenses/by/4.0/</abcd:URI>
          </abcd:License>
        </abcd:Licenses>
        <abcd:Citations>
          <abcd:Citation language="en">
            <abcd:Text>Generated Herbarium (benchmark). Botanic Garden and Botanical Museum Berlin.</abcd:Text>
          </abcd:Citation>
        </abcd:Citations>
      </abcd:IPRStatements>
    </abcd:Metadata>
    <abcd:Units>
`

const tail = `    </abcd:Units>
  </abcd:DataSet>
</abcd:DataSets>
`

var (
	genera    = []string{"Achillea", "Acantholimon", "Arrabidaea", "Bignonia", "Closterium", "Euglena", "Gobio", "Peridinium", "Schistidium", "Grimmia", "Spermacoce", "Tetraedron", "Eunotia", "Sheppardia", "Aphanizomenon", "Quercus", "Salix", "Carex", "Festuca", "Poa"}
	epithets  = []string{"chica", "verticillata", "acerosum", "mutabilis", "gobio", "centenniale", "agassizii", "alpicola", "caudatum", "bocagei", "ligustica", "maritima", "kotschyi", "lycaonicum", "armenum", "robur", "alba", "nigra", "rubra", "pratensis"}
	authors   = []string{"L.", "Hantzsch", "Schmitz", "Boiss. &amp; Heldr.", "(Humb. &amp; Bonpl.) B.Verl.", "Sw. ex Hedw.", "(Corda) Hansg.", "All.", "Bässler", "(Playfair) M. Lefèvre", "Willd.", "DC."}
	families  = []string{"BIGNONIACEAE", "RUBIACEAE", "ASTERACEAE", "PLUMBAGINACEAE", "Closteriaceae", "Euglenaceae", "Grimmiaceae", "POACEAE", "CYPERACEAE", "SALICACEAE", "FAGACEAE"}
	people    = []string{"Markus Döring", "Bonpland, A.J.A.", "Humboldt, F.W.H.A. v.", "Willdenow, C.L.", "Richter, Paul", "Kusber, W.-H.", "Jahn, R.", "Fricke, Ronald", "Troschel, Hans-Julius", "Prigogine, A.", "Gentry, A.", "Sandwith, N.Y."}
	countries = [][2]string{{"Germany", "DE"}, {"Venezuela", "VE"}, {"Mexico", "MX"}, {"Turkey", "TR"}, {"Italy", "IT"}, {"Sweden", "SE"}, {"United Kingdom", "GB"}, {"Latvia", "LV"}, {"Congo, The Democratic Republic Of The", "CD"}}
	places    = []string{"Nikolassee, Berlin", "Falkenhagener See, Mitte; Seemitte", "Donau/Danube River, near Ehingen", "Kisanga", "Sweden, Abisko. Freshwater.", "STAZZO ALINEDU", "rio Cassiquiare et l'alto Orinoco", "Schleswig-Holstein, Pinnsee", "Ala Dağ, N slope above Çamardı", "Blidene 5 borehole"}
	basis     = []string{"PreservedSpecimen", "PreservedSpecimen", "PreservedSpecimen", "HumanObservation", "LivingSpecimen"}
)

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func writeDocument(w *bufio.Writer, r *rand.Rand, first, n int) {
	w.WriteString(head)
	for i := range n {
		writeUnit(w, r, first+i+1)
	}
	w.WriteString(tail)
}

func writeUnit(w *bufio.Writer, r *rand.Rand, id int) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("      <abcd:Unit>\n")
	p("        <abcd:UnitGUID>https://herbarium.example.org/object/B%08d</abcd:UnitGUID>\n", id)
	p("        <abcd:SourceInstitutionID>B</abcd:SourceInstitutionID>\n        <abcd:SourceID>Herbarium Berolinense</abcd:SourceID>\n")
	p("        <abcd:UnitID>B %02d %06d 0</abcd:UnitID>\n", r.IntN(100), id)
	p("        <abcd:DateLastEdited>20%02d-%02d-%02dT10:%02d:00</abcd:DateLastEdited>\n", 10+r.IntN(15), 1+r.IntN(12), 1+r.IntN(28), r.IntN(60))
	p("        <abcd:Identifications>\n")
	ids := 1 + r.IntN(2)
	for k := range ids {
		writeIdentification(w, r, k == ids-1)
	}
	p("        </abcd:Identifications>\n")
	p("        <abcd:RecordBasis>%s</abcd:RecordBasis>\n        <abcd:KindOfUnit>herbarium sheet</abcd:KindOfUnit>\n", pick(r, basis))
	if r.IntN(10) < 3 {
		p("        <abcd:MultiMediaObjects>\n          <abcd:MultiMediaObject>\n            <abcd:FileURI>https://image.example.org/images/B%08d_1700.jpg</abcd:FileURI>\n            <abcd:ProductURI>https://herbarium.example.org/object/B%08d</abcd:ProductURI>\n            <abcd:Format>image/jpeg</abcd:Format>\n            <abcd:IPR><abcd:Licenses><abcd:License language=\"en\"><abcd:URI>https://creativecommons.org/licenses/by-sa/3.0/</abcd:URI></abcd:License></abcd:Licenses></abcd:IPR>\n          </abcd:MultiMediaObject>\n        </abcd:MultiMediaObjects>\n", id, id)
	}
	writeGathering(w, r)
	p("        <abcd:CollectorsFieldNumber>%d</abcd:CollectorsFieldNumber>\n", r.IntN(20000))
	if r.IntN(20) == 0 {
		p("        <abcd:SpecimenUnit>\n          <abcd:NomenclaturalTypeDesignations>\n            <abcd:NomenclaturalTypeDesignation>\n              <abcd:TypifiedName><abcd:FullScientificNameString>%s %s %s</abcd:FullScientificNameString></abcd:TypifiedName>\n              <abcd:TypeStatus>%s</abcd:TypeStatus>\n            </abcd:NomenclaturalTypeDesignation>\n          </abcd:NomenclaturalTypeDesignations>\n        </abcd:SpecimenUnit>\n",
			pick(r, genera), pick(r, epithets), pick(r, authors), pick(r, []string{"Holotype", "Isotype", "Lectotype", "Syntype"}))
	}
	if r.IntN(3) == 0 {
		p("        <abcd:Notes>%s; det. %s %d</abcd:Notes>\n", strings.Repeat("together with other material ", 1+r.IntN(3)), pick(r, people), 1800+r.IntN(220))
	}
	p("        <abcd:RecordURI>https://herbarium.example.org/object/B%08d</abcd:RecordURI>\n      </abcd:Unit>\n", id)
}

func writeIdentification(w *bufio.Writer, r *rand.Rand, preferred bool) {
	g, e, a, f := pick(r, genera), pick(r, epithets), pick(r, authors), pick(r, families)
	flag := 0
	if preferred {
		flag = 1
	}
	fmt.Fprintf(w, `          <abcd:Identification>
            <abcd:Result>
              <abcd:TaxonIdentified>
                <abcd:HigherTaxa>
                  <abcd:HigherTaxon><abcd:HigherTaxonName>Plantae</abcd:HigherTaxonName><abcd:HigherTaxonRank>regnum</abcd:HigherTaxonRank></abcd:HigherTaxon>
                  <abcd:HigherTaxon><abcd:HigherTaxonName>%s</abcd:HigherTaxonName><abcd:HigherTaxonRank>familia</abcd:HigherTaxonRank></abcd:HigherTaxon>
                </abcd:HigherTaxa>
                <abcd:ScientificName>
                  <abcd:FullScientificNameString>%s %s %s</abcd:FullScientificNameString>
                  <abcd:NameAtomised><abcd:Botanical><abcd:GenusOrMonomial>%s</abcd:GenusOrMonomial><abcd:FirstEpithet>%s</abcd:FirstEpithet><abcd:AuthorTeam>%s</abcd:AuthorTeam></abcd:Botanical></abcd:NameAtomised>
                </abcd:ScientificName>
              </abcd:TaxonIdentified>
            </abcd:Result>
            <abcd:PreferredFlag>%d</abcd:PreferredFlag>
            <abcd:Identifiers><abcd:Identifier><abcd:PersonName><abcd:FullName>%s</abcd:FullName></abcd:PersonName></abcd:Identifier></abcd:Identifiers>
            <abcd:Date><abcd:DateText>%d</abcd:DateText></abcd:Date>
          </abcd:Identification>
`, f, g, e, a, g, e, a, flag, pick(r, people), 1850+r.IntN(170))
}

func writeGathering(w *bufio.Writer, r *rand.Rand) {
	y, m, d := 1850+r.IntN(170), 1+r.IntN(12), 1+r.IntN(28)
	c := pick(r, countries)
	fmt.Fprintf(w, `        <abcd:Gathering>
          <abcd:DateTime>
            <abcd:DateText>%d.%d.%d</abcd:DateText>
            <abcd:ISODateTimeBegin>%04d-%02d-%02d</abcd:ISODateTimeBegin>
            <abcd:ISODateTimeEnd>%04d-%02d-%02d</abcd:ISODateTimeEnd>
          </abcd:DateTime>
          <abcd:Agents>
            <abcd:GatheringAgent primarycollector="true"><abcd:Person><abcd:FullName>%s</abcd:FullName></abcd:Person></abcd:GatheringAgent>
            <abcd:GatheringAgent><abcd:Person><abcd:FullName>%s</abcd:FullName></abcd:Person></abcd:GatheringAgent>
          </abcd:Agents>
          <abcd:LocalityText>%s, %d km from the station</abcd:LocalityText>
          <abcd:Country><abcd:Name>%s</abcd:Name><abcd:ISO3166Code>%s</abcd:ISO3166Code></abcd:Country>
          <abcd:NamedAreas><abcd:NamedArea><abcd:AreaClass language="en">Continent</abcd:AreaClass><abcd:AreaName language="en">Europe</abcd:AreaName></abcd:NamedArea></abcd:NamedAreas>
`, d, m, y, y, m, d, y, m, min(d+r.IntN(5), 28), pick(r, people), pick(r, people), pick(r, places), r.IntN(50), c[0], c[1])
	if r.IntN(10) < 7 {
		fmt.Fprintf(w, `          <abcd:SiteCoordinateSets>
            <abcd:SiteCoordinates>
              <abcd:CoordinatesLatLong>
                <abcd:LongitudeDecimal>%.6f</abcd:LongitudeDecimal>
                <abcd:LatitudeDecimal>%.6f</abcd:LatitudeDecimal>
                <abcd:SpatialDatum>WGS84</abcd:SpatialDatum>
                <abcd:CoordinateErrorDistanceInMeters>%d</abcd:CoordinateErrorDistanceInMeters>
              </abcd:CoordinatesLatLong>
            </abcd:SiteCoordinates>
          </abcd:SiteCoordinateSets>
`, r.Float64()*360-180, r.Float64()*180-90, 10*(1+r.IntN(200)))
	}
	lo := r.IntN(3000)
	fmt.Fprintf(w, `          <abcd:Altitude><abcd:MeasurementOrFactAtomised><abcd:LowerValue>%d</abcd:LowerValue><abcd:UpperValue>%d</abcd:UpperValue><abcd:UnitOfMeasurement>m</abcd:UnitOfMeasurement></abcd:MeasurementOrFactAtomised></abcd:Altitude>
          <abcd:Biotope><abcd:Text>%s</abcd:Text></abcd:Biotope>
        </abcd:Gathering>
`, lo, lo+r.IntN(200), pick(r, []string{"Shallow lake", "in Graeben", "dry meadow", "limestone rocks", "river bank", "mixed forest"}))
}
