package taxonomy

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The cases below are facts taken from GBIF's name parser tests: the input,
// the rank and code given, and the parse GBIF's parser expects, re-typed
// from gbif/name-parser
// name-parser/src/test/java/org/gbif/nameparser/NameParserGBIFTest.java at
// commit b9d4cba05f0cc54615b101bc7e9ec96261eb6106 (the last commit with
// GBIF's Java parser). GBIF's ranks map onto ours by name (SECTION_BOTANY
// is SECTION). Not taken: phrase names ("sp. Somersbey (B.J.Conn 4024)"),
// Greek-letter and asterisk rank markers, nomenclatural references cut
// from the authorship, the zoological section above family, and GBIF's
// exact warning texts (ours are compared instead).

// gbifCase is one of GBIF's assertName(...).nothingElse() assertions: every
// field of want is compared, so what is not set must be empty.
type gbifCase struct {
	in        string
	rank      Rank
	code      NomCode
	canonical string
	want      ParsedName
}

func au(year string, authors ...string) Authorship {
	return Authorship{Year: year, Authors: authors}
}

func aux(ex string, year string, authors ...string) Authorship {
	return Authorship{Year: year, Authors: authors, ExAuthors: []string{ex}}
}

var gbifNames = []gbifCase{
	// sic and corrig.
	{in: "Ameiva plei Rosicky, 1955", canonical: "Ameiva plei", want: ParsedName{Genus: "Ameiva", SpecificEpithet: "plei", Rank: RankSpecies, Combination: au("1955", "Rosicky"), Code: CodeZoological}},
	{in: "Ameiva plei (sic) Duméril & Bibron, 1839", canonical: "Ameiva plei", want: ParsedName{Genus: "Ameiva", SpecificEpithet: "plei", Rank: RankSpecies, Combination: au("1839", "Duméril", "Bibron"), Sic: true, Code: CodeZoological}},
	{in: "†Amnicola kushixiaensis [sic]", canonical: "Amnicola kushixiaensis", want: ParsedName{Genus: "Amnicola", SpecificEpithet: "kushixiaensis", Rank: RankSpecies, Extinct: true, Sic: true}},
	{in: "†Amnicola (Amnicola) dubrueilliana [sic]", canonical: "Amnicola dubrueilliana", want: ParsedName{Genus: "Amnicola", InfragenericEpithet: "Amnicola", SpecificEpithet: "dubrueilliana", Rank: RankSpecies, Extinct: true, Sic: true}},
	{in: "Anabathron (Scrobs) elongatus [sic]", canonical: "Anabathron elongatus", want: ParsedName{Genus: "Anabathron", InfragenericEpithet: "Scrobs", SpecificEpithet: "elongatus", Rank: RankSpecies, Sic: true}},
	{in: "Scaphander lignarius var. brittanica [sic]", canonical: "Scaphander lignarius var. brittanica", want: ParsedName{Genus: "Scaphander", SpecificEpithet: "lignarius", InfraspecificEpithet: "brittanica", Rank: RankVariety, Sic: true}},
	{in: "†Tulotoma bifarcinata var. contiqua [sic]", canonical: "Tulotoma bifarcinata var. contiqua", want: ParsedName{Genus: "Tulotoma", SpecificEpithet: "bifarcinata", InfraspecificEpithet: "contiqua", Rank: RankVariety, Extinct: true, Sic: true}},
	{in: "Scincus homolocephalus (sic) Wiegmann, 1828", canonical: "Scincus homolocephalus", want: ParsedName{Genus: "Scincus", SpecificEpithet: "homolocephalus", Rank: RankSpecies, Combination: au("1828", "Wiegmann"), Sic: true, Code: CodeZoological}},
	{in: "Clionella sinuata borni [sic]", canonical: "Clionella sinuata borni", want: ParsedName{Genus: "Clionella", SpecificEpithet: "sinuata", InfraspecificEpithet: "borni", Rank: RankInfraspecificName, Sic: true}},
	{in: "Melanella hollandri [sic] var. detrita Kucik", canonical: "Melanella hollandri var. detrita", want: ParsedName{Genus: "Melanella", SpecificEpithet: "hollandri", InfraspecificEpithet: "detrita", Rank: RankVariety, Combination: au("", "Kucik"), Sic: true}},
	{in: "Alnetoidia (Alnella) [sic] sudzhuchenica Sohi, 1998", canonical: "Alnetoidia sudzhuchenica", want: ParsedName{Genus: "Alnetoidia", InfragenericEpithet: "Alnella", SpecificEpithet: "sudzhuchenica", Rank: RankSpecies, Combination: au("1998", "Sohi"), Sic: true, Code: CodeZoological}},
	{in: "Flavobacterium branchiophila (sic) Wakabayashi et al. 1989", canonical: "Flavobacterium branchiophila", want: ParsedName{Genus: "Flavobacterium", SpecificEpithet: "branchiophila", Rank: RankSpecies, Combination: au("1989", "Wakabayashi", "al."), Sic: true, Code: CodeZoological}},
	{in: "Campylobacter lari corrig. Benjamin et al. 1984", canonical: "Campylobacter lari", want: ParsedName{Genus: "Campylobacter", SpecificEpithet: "lari", Rank: RankSpecies, Combination: au("1984", "Benjamin", "al."), Corrig: true, Code: CodeZoological}},
	{in: "Firmicutes corrig. Gibbons & Murray, 1978", canonical: "Firmicutes", want: ParsedName{Uninomial: "Firmicutes", Rank: RankUnranked, Combination: au("1978", "Gibbons", "Murray"), Corrig: true, Code: CodeZoological}},
	{in: "Barleeidae [sic]", canonical: "Barleeidae", want: ParsedName{Uninomial: "Barleeidae", Rank: RankUnranked, Sic: true}},
	// doubtful genera in brackets
	{in: "[Acontia] chia Holland, 1894", canonical: "Acontia chia", want: ParsedName{Genus: "Acontia", SpecificEpithet: "chia", Rank: RankSpecies, Combination: au("1894", "Holland"), Code: CodeZoological, Doubtful: true, Warnings: []string{WarnDoubtfulGenus}}},
	{in: "[Dexia]", canonical: "Dexia", want: ParsedName{Uninomial: "Dexia", Rank: RankUnranked, Doubtful: true, Warnings: []string{WarnDoubtfulGenus}}},
	// nomenclatural notes
	{in: "Agama annectans Blanford, 1870 [orth. error]", canonical: "Agama annectans", want: ParsedName{Genus: "Agama", SpecificEpithet: "annectans", Rank: RankSpecies, Combination: au("1870", "Blanford"), NomenclaturalNote: "orth.error", Code: CodeZoological}},
	{in: "Agrostis compressa Willd., nom. superfl.", canonical: "Agrostis compressa", want: ParsedName{Genus: "Agrostis", SpecificEpithet: "compressa", Rank: RankSpecies, Combination: au("", "Willd."), NomenclaturalNote: "nom.superfl."}},
	{in: "Polygala vulgaris L., 1753 [nom. et typ. cons.]", canonical: "Polygala vulgaris", want: ParsedName{Genus: "Polygala", SpecificEpithet: "vulgaris", Rank: RankSpecies, Combination: au("1753", "L."), NomenclaturalNote: "nom.&typ.cons.", Code: CodeZoological}},
	{in: "Anthurium lanceum Engl. nom.illeg.", canonical: "Anthurium lanceum", want: ParsedName{Genus: "Anthurium", SpecificEpithet: "lanceum", Rank: RankSpecies, Combination: au("", "Engl."), NomenclaturalNote: "nom.illeg.", Code: CodeBotanical}},
	{in: "Taraxacum piet-oosterveldii H. Øllg. in press", canonical: "Taraxacum piet-oosterveldii", want: ParsedName{Genus: "Taraxacum", SpecificEpithet: "piet-oosterveldii", Rank: RankSpecies, Combination: au("", "H.Øllg."), NomenclaturalNote: "in press", Manuscript: true}},
	{in: "Taraxacum oosterveldii Petrasiak & Johansen, unpublished", canonical: "Taraxacum oosterveldii", want: ParsedName{Genus: "Taraxacum", SpecificEpithet: "oosterveldii", Rank: RankSpecies, Combination: au("", "Petrasiak", "Johansen"), NomenclaturalNote: "unpublished", Manuscript: true}},
	{in: "Abrodictyum caespifrons (C. Chr.) comb. ined.", canonical: "Abrodictyum caespifrons", want: ParsedName{Genus: "Abrodictyum", SpecificEpithet: "caespifrons", Rank: RankSpecies, Basionym: au("", "C.Chr."), NomenclaturalNote: "comb.ined.", Manuscript: true}},
	{in: "Acranthera virescens (Ridl.) ined.", canonical: "Acranthera virescens", want: ParsedName{Genus: "Acranthera", SpecificEpithet: "virescens", Rank: RankSpecies, Basionym: au("", "Ridl."), NomenclaturalNote: "ined.", Manuscript: true}},
	{in: "Genoplesium vernalis D.L.Jones ms.", canonical: "Genoplesium vernalis", want: ParsedName{Genus: "Genoplesium", SpecificEpithet: "vernalis", Rank: RankSpecies, Combination: au("", "D.L.Jones"), NomenclaturalNote: "ms.", Manuscript: true}},
	{in: "Micromeria cristata subsp. kosaninii ( ilic) ined.", canonical: "Micromeria cristata subsp. kosaninii", want: ParsedName{Genus: "Micromeria", SpecificEpithet: "cristata", InfraspecificEpithet: "kosaninii", Rank: RankSubspecies, Unparsed: "(ilic)", NomenclaturalNote: "ined.", Manuscript: true, Code: CodeBotanical}},
	// authors
	{in: "Nemopistha sinica C.-k. Yang, 1986", canonical: "Nemopistha sinica", want: ParsedName{Genus: "Nemopistha", SpecificEpithet: "sinica", Rank: RankSpecies, Combination: au("1986", "C.-k.Yang"), Code: CodeZoological}},
	{in: "Jezzinothrips cretacicus zur Strassen, 1973", canonical: "Jezzinothrips cretacicus", want: ParsedName{Genus: "Jezzinothrips", SpecificEpithet: "cretacicus", Rank: RankSpecies, Combination: au("1973", "zur Strassen"), Code: CodeZoological}},
	{in: "Jezzinothrips cretacicus amazur Strassen, 1973", canonical: "Jezzinothrips cretacicus amazur", want: ParsedName{Genus: "Jezzinothrips", SpecificEpithet: "cretacicus", InfraspecificEpithet: "amazur", Rank: RankInfraspecificName, Combination: au("1973", "Strassen"), Code: CodeZoological}},
	{in: "Grammitis friderici-et-pauli (Christ) Copel.", canonical: "Grammitis friderici-et-pauli", want: ParsedName{Genus: "Grammitis", SpecificEpithet: "friderici-et-pauli", Rank: RankSpecies, Combination: au("", "Copel."), Basionym: au("", "Christ"), Code: CodeBotanical}},
	{in: "Desbrochers des Loges, 1881", canonical: "Desbrochers", want: ParsedName{Uninomial: "Desbrochers", Rank: RankUnranked, Combination: au("1881", "des Loges"), Code: CodeZoological}},
	{in: "Mergus merganser Linnaeus, 1758", canonical: "Mergus merganser", want: ParsedName{Genus: "Mergus", SpecificEpithet: "merganser", Rank: RankSpecies, Combination: au("1758", "Linnaeus"), Code: CodeZoological}},
	{in: "Gyalidea minuta van den Boom & Vezda", canonical: "Gyalidea minuta", want: ParsedName{Genus: "Gyalidea", SpecificEpithet: "minuta", Rank: RankSpecies, Combination: au("", "van den Boom", "Vezda")}},
	{in: "Taraxacum dunense v. Soest", canonical: "Taraxacum dunense", want: ParsedName{Genus: "Taraxacum", SpecificEpithet: "dunense", Rank: RankSpecies, Combination: au("", "v.Soest")}},
	{in: "Rubus planus v. d. Beek", canonical: "Rubus planus", want: ParsedName{Genus: "Rubus", SpecificEpithet: "planus", Rank: RankSpecies, Combination: au("", "v.d.Beek")}},
	{in: "Salix repens L. subsp. galeifolia Neumann ex Rech. f.", canonical: "Salix repens subsp. galeifolia", want: ParsedName{Genus: "Salix", SpecificEpithet: "repens", InfraspecificEpithet: "galeifolia", Rank: RankSubspecies, Combination: aux("Neumann", "", "Rech.f."), Code: CodeBotanical}},
	{in: "Taraxacum vulgaris Backer ex K.Heyne", canonical: "Taraxacum vulgaris", want: ParsedName{Genus: "Taraxacum", SpecificEpithet: "vulgaris", Rank: RankSpecies, Combination: aux("Backer", "", "K.Heyne")}},
	{in: "Diodia teres Walter", canonical: "Diodia teres", want: ParsedName{Genus: "Diodia", SpecificEpithet: "teres", Rank: RankSpecies, Combination: au("", "Walter")}},
	{in: "Dysponetus bulbosus Hartmann-Schroder 1982", canonical: "Dysponetus bulbosus", want: ParsedName{Genus: "Dysponetus", SpecificEpithet: "bulbosus", Rank: RankSpecies, Combination: au("1982", "Hartmann-Schroder"), Code: CodeZoological}},
	{in: "Zophosis persis (Chatanay 1914)", canonical: "Zophosis persis", want: ParsedName{Genus: "Zophosis", SpecificEpithet: "persis", Rank: RankSpecies, Basionym: au("1914", "Chatanay"), Code: CodeZoological}},
	{in: "Abies alba Mill.", canonical: "Abies alba", want: ParsedName{Genus: "Abies", SpecificEpithet: "alba", Rank: RankSpecies, Combination: au("", "Mill.")}},
	{in: "Alstonia vieillardii Van Heurck & Müll.Arg.", canonical: "Alstonia vieillardii", want: ParsedName{Genus: "Alstonia", SpecificEpithet: "vieillardii", Rank: RankSpecies, Combination: au("", "Van Heurck", "Müll.Arg.")}},
	{in: "Angiopteris d'urvilleana de Vriese", canonical: "Angiopteris d'urvilleana", want: ParsedName{Genus: "Angiopteris", SpecificEpithet: "d'urvilleana", Rank: RankSpecies, Combination: au("", "de Vriese")}},
	{in: "Agrostis hyemalis (Walter) Britton, Sterns, & Poggenb.", canonical: "Agrostis hyemalis", want: ParsedName{Genus: "Agrostis", SpecificEpithet: "hyemalis", Rank: RankSpecies, Combination: au("", "Britton", "Sterns", "Poggenb."), Basionym: au("", "Walter"), Code: CodeBotanical}},
	{in: "Passalus (Pertinax) gaboi Jiménez-Maxim & Reyes, 2022", canonical: "Passalus gaboi", want: ParsedName{Genus: "Passalus", InfragenericEpithet: "Pertinax", SpecificEpithet: "gaboi", Rank: RankSpecies, Combination: au("2022", "Jiménez-Maxim", "Reyes"), Code: CodeZoological}},
	{in: "Gracillaria v-flava Haworth, 1828", canonical: "Gracillaria v-flava", want: ParsedName{Genus: "Gracillaria", SpecificEpithet: "v-flava", Rank: RankSpecies, Combination: au("1828", "Haworth"), Code: CodeZoological}},
	{in: "Anniella nigra FISCHER 1885", canonical: "Anniella nigra", want: ParsedName{Genus: "Anniella", SpecificEpithet: "nigra", Rank: RankSpecies, Combination: au("1885", "Fischer"), Code: CodeZoological}},
	{in: "XENACOELOMORPHA", canonical: "Xenacoelomorpha", want: ParsedName{Uninomial: "Xenacoelomorpha", Rank: RankUnranked}},
	{in: "Lagenophora queenslandica Jian Wang ter & A.R.Bean", canonical: "Lagenophora queenslandica", want: ParsedName{Genus: "Lagenophora", SpecificEpithet: "queenslandica", Rank: RankSpecies, Combination: au("", "Jian Wang ter", "A.R.Bean")}},
	{in: "Abies arctica A.Murray bis", canonical: "Abies arctica", want: ParsedName{Genus: "Abies", SpecificEpithet: "arctica", Rank: RankSpecies, Combination: au("", "A.Murray bis")}},
	{in: "Abies lowiana (Gordon) A.Murray bis", canonical: "Abies lowiana", want: ParsedName{Genus: "Abies", SpecificEpithet: "lowiana", Rank: RankSpecies, Basionym: au("", "Gordon"), Combination: au("", "A.Murray bis"), Code: CodeBotanical}},
	{in: "Trappeindia Castellano, S.L. Mill., L. Singh bis & T.N. Lakh. 2012", canonical: "Trappeindia", want: ParsedName{Uninomial: "Trappeindia", Rank: RankUnranked, Combination: au("2012", "Castellano", "S.L.Mill.", "L.Singh bis", "T.N.Lakh."), Code: CodeZoological}},
	{in: "Trichosporon cutaneum (Beurm., Gougerot & Vaucher bis) M. Ota", canonical: "Trichosporon cutaneum", want: ParsedName{Genus: "Trichosporon", SpecificEpithet: "cutaneum", Rank: RankSpecies, Basionym: au("", "Beurm.", "Gougerot", "Vaucher bis"), Combination: au("", "M.Ota"), Code: CodeBotanical}},
	{in: "Megistocera tenuis (van der Wulp, 1885)", canonical: "Megistocera tenuis", want: ParsedName{Genus: "Megistocera", SpecificEpithet: "tenuis", Rank: RankSpecies, Basionym: au("1885", "van der Wulp"), Code: CodeZoological}},
	{in: "Stachys marashica Ilçim, Çenet & Dadandi", canonical: "Stachys marashica", want: ParsedName{Genus: "Stachys", SpecificEpithet: "marashica", Rank: RankSpecies, Combination: au("", "Ilçim", "Çenet", "Dadandi")}},
	{in: "Viola bocquetiana S. Yildirimli", canonical: "Viola bocquetiana", want: ParsedName{Genus: "Viola", SpecificEpithet: "bocquetiana", Rank: RankSpecies, Combination: au("", "S.Yildirimli")}},
	{in: "Anatolidamnicola gloeri gloeri Şahin, Koca & Yildirim, 2012", canonical: "Anatolidamnicola gloeri gloeri", want: ParsedName{Genus: "Anatolidamnicola", SpecificEpithet: "gloeri", InfraspecificEpithet: "gloeri", Rank: RankInfraspecificName, Combination: au("2012", "Şahin", "Koca", "Yildirim"), Code: CodeZoological}},
	{in: "Modiola caroliniana L.f", canonical: "Modiola caroliniana", want: ParsedName{Genus: "Modiola", SpecificEpithet: "caroliniana", Rank: RankSpecies, Combination: au("", "L.f")}},
	{in: "Modiola caroliniana (L.) G. Don filius", canonical: "Modiola caroliniana", want: ParsedName{Genus: "Modiola", SpecificEpithet: "caroliniana", Rank: RankSpecies, Basionym: au("", "L."), Combination: au("", "G.Don filius"), Code: CodeBotanical}},
	{in: "Modiola caroliniana (L.) G. Don fil.", canonical: "Modiola caroliniana", want: ParsedName{Genus: "Modiola", SpecificEpithet: "caroliniana", Rank: RankSpecies, Basionym: au("", "L."), Combination: au("", "G.Don fil."), Code: CodeBotanical}},
	{in: "Cirsium creticum d'Urv.", canonical: "Cirsium creticum", want: ParsedName{Genus: "Cirsium", SpecificEpithet: "creticum", Rank: RankSpecies, Combination: au("", "d'Urv.")}},
	{in: "Cirsium creticum d'Urv. subsp. creticum", canonical: "Cirsium creticum subsp. creticum", want: ParsedName{Genus: "Cirsium", SpecificEpithet: "creticum", InfraspecificEpithet: "creticum", Rank: RankSubspecies, Code: CodeBotanical}},
	{in: "Cirsium creticum Balsamo M Fregni E Tongiorgi P", canonical: "Cirsium creticum", want: ParsedName{Genus: "Cirsium", SpecificEpithet: "creticum", Rank: RankSpecies, Combination: au("", "M.Balsamo", "E.Fregni", "P.Tongiorgi")}},
	{in: "Cirsium creticum Balsamo M Todaro MA", canonical: "Cirsium creticum", want: ParsedName{Genus: "Cirsium", SpecificEpithet: "creticum", Rank: RankSpecies, Combination: au("", "M.Balsamo", "M.A.Todaro")}},
	{in: "Bolivina albatrossi Cushman Em. Sellier de Civrieux, 1976", canonical: "Bolivina albatrossi", want: ParsedName{Genus: "Bolivina", SpecificEpithet: "albatrossi", Rank: RankSpecies, Combination: au("1976", "Cushman Em.Sellier de Civrieux"), Code: CodeZoological}},
	{in: "Cribbia pendula la Croix & P.J.Cribb", canonical: "Cribbia pendula", want: ParsedName{Genus: "Cribbia", SpecificEpithet: "pendula", Rank: RankSpecies, Combination: au("", "la Croix", "P.J.Cribb")}},
	{in: "Cribbia pendula de la Croix & le P.J.Cribb", canonical: "Cribbia pendula", want: ParsedName{Genus: "Cribbia", SpecificEpithet: "pendula", Rank: RankSpecies, Combination: au("", "de la Croix", "le P.J.Cribb")}},
	{in: "Navicula ambigua f. craticularis Istv?nffi, 1898, 1897", canonical: "Navicula ambigua f. craticularis", want: ParsedName{Genus: "Navicula", SpecificEpithet: "ambigua", InfraspecificEpithet: "craticularis", Rank: RankForm, Combination: au("1898", "Istvnffi"), Doubtful: true, Code: CodeZoological, Warnings: []string{WarnQuestionMarks}}},
	{in: "Cestodiscus gemmifer F.S.Castracane degli Antelminelli", canonical: "Cestodiscus gemmifer", want: ParsedName{Genus: "Cestodiscus", SpecificEpithet: "gemmifer", Rank: RankSpecies, Combination: au("", "F.S.Castracane degli Antelminelli")}},
	{in: "Hieracium scorzoneraefolium De la Soie", canonical: "Hieracium scorzoneraefolium", want: ParsedName{Genus: "Hieracium", SpecificEpithet: "scorzoneraefolium", Rank: RankSpecies, Combination: au("", "De la Soie")}},
	{in: "Sepidium capricorne des Desbrochers des Loges, 1881", canonical: "Sepidium capricorne", want: ParsedName{Genus: "Sepidium", SpecificEpithet: "capricorne", Rank: RankSpecies, Combination: au("1881", "des Desbrochers des Loges"), Code: CodeZoological}},
	{in: "Calycostylis aurantiaca Hort. ex Vilmorin", canonical: "Calycostylis aurantiaca", want: ParsedName{Genus: "Calycostylis", SpecificEpithet: "aurantiaca", Rank: RankSpecies, Combination: aux("hort.", "", "Vilmorin")}},
	{in: "Pourretia magnispatha hortusa ex K. Koch", canonical: "Pourretia magnispatha", want: ParsedName{Genus: "Pourretia", SpecificEpithet: "magnispatha", Rank: RankSpecies, Combination: aux("hort.", "", "K.Koch")}},
	{in: "Platycarpha glomerata (Thunberg) A.P.de Candolle", canonical: "Platycarpha glomerata", want: ParsedName{Genus: "Platycarpha", SpecificEpithet: "glomerata", Rank: RankSpecies, Basionym: au("", "Thunberg"), Combination: au("", "A.P.de Candolle"), Code: CodeBotanical}},
	{in: "Abies alba (Huguet del Villar) S. Rivas-Martínez, F. Fernández González & D. Sánchez-Mata", canonical: "Abies alba", want: ParsedName{Genus: "Abies", SpecificEpithet: "alba", Rank: RankSpecies, Basionym: au("", "Huguet del Villar"), Combination: au("", "S.Rivas-Martínez", "F.Fernández González", "D.Sánchez-Mata"), Code: CodeBotanical}},
	{in: "Sida kohautiana var. corchorifolia (H. da C. Monteiro Filho) H. da C. Monteiro Filho", canonical: "Sida kohautiana var. corchorifolia", want: ParsedName{Genus: "Sida", SpecificEpithet: "kohautiana", InfraspecificEpithet: "corchorifolia", Rank: RankVariety, Basionym: au("", "H.da C.Monteiro Filho"), Combination: au("", "H.da C.Monteiro Filho"), Code: CodeBotanical}},
	{in: "Stenosigma humerale Giordani Soika, 1990", canonical: "Stenosigma humerale", want: ParsedName{Genus: "Stenosigma", SpecificEpithet: "humerale", Rank: RankSpecies, Combination: au("1990", "Giordani Soika"), Code: CodeZoological}},
	{in: "Purana guttularis (Walker, F., 1858)", canonical: "Purana guttularis", want: ParsedName{Genus: "Purana", SpecificEpithet: "guttularis", Rank: RankSpecies, Basionym: au("1858", "F.Walker"), Code: CodeZoological}},
	{in: "Physomerinus septemfoveolatus Schaufuss, L. W.", canonical: "Physomerinus septemfoveolatus", want: ParsedName{Genus: "Physomerinus", SpecificEpithet: "septemfoveolatus", Rank: RankSpecies, Combination: au("", "L.W.Schaufuss")}},
	{in: "Physomerinus septemfoveolatus Schaufuss, L. W., 1877", canonical: "Physomerinus septemfoveolatus", want: ParsedName{Genus: "Physomerinus", SpecificEpithet: "septemfoveolatus", Rank: RankSpecies, Combination: au("1877", "L.W.Schaufuss"), Code: CodeZoological}},
	{in: "Euplectus cavicollis LeConte, J. L., 1878", canonical: "Euplectus cavicollis", want: ParsedName{Genus: "Euplectus", SpecificEpithet: "cavicollis", Rank: RankSpecies, Combination: au("1878", "J.L.LeConte"), Code: CodeZoological}},
	{in: "Abaxisotima acuminata (Wang & Liu, 1996)", canonical: "Abaxisotima acuminata", want: ParsedName{Genus: "Abaxisotima", SpecificEpithet: "acuminata", Rank: RankSpecies, Basionym: au("1996", "Wang", "Liu"), Code: CodeZoological}},
	{in: "Abaxisotima acuminata (Wang, Yuwen & Xian-wei Liu, 1996)", canonical: "Abaxisotima acuminata", want: ParsedName{Genus: "Abaxisotima", SpecificEpithet: "acuminata", Rank: RankSpecies, Basionym: au("1996", "Wang", "Yuwen", "Xian-wei Liu"), Code: CodeZoological}},
	{in: "Abaxisotima bicolor (Liu, Xian-wei, Z. Zheng & G. Xi, 1991)", canonical: "Abaxisotima bicolor", want: ParsedName{Genus: "Abaxisotima", SpecificEpithet: "bicolor", Rank: RankSpecies, Basionym: au("1991", "Liu", "Xian-wei", "Z.Zheng", "G.Xi"), Code: CodeZoological}},
	{in: "Tripodiscium gephyristes  (Hülseman, 1963) BJ&KR-Atsdatabanken", canonical: "Tripodiscium gephyristes", want: ParsedName{Genus: "Tripodiscium", SpecificEpithet: "gephyristes", Rank: RankSpecies, Basionym: au("1963", "Hülseman"), Combination: au("", "BJ", "KR-Atsdatabanken"), Code: CodeZoological}},
	{in: "Protocystis xiphodon  (Haeckel, 1887), Borgert, 1901", canonical: "Protocystis xiphodon", want: ParsedName{Genus: "Protocystis", SpecificEpithet: "xiphodon", Rank: RankSpecies, Basionym: au("1887", "Haeckel"), Combination: au("1901", "Borgert"), Code: CodeZoological}},
	{in: "Arachnosphaera dichotoma  Jørgensen, 1900", canonical: "Arachnosphaera dichotoma", want: ParsedName{Genus: "Arachnosphaera", SpecificEpithet: "dichotoma", Rank: RankSpecies, Combination: au("1900", "Jørgensen"), Code: CodeZoological}},
	{in: "Huaiyuanella Xing, Yan & Yin, 1984", canonical: "Huaiyuanella", want: ParsedName{Uninomial: "Huaiyuanella", Rank: RankUnranked, Combination: au("1984", "Xing", "Yan", "Yin"), Code: CodeZoological}},
	{in: "Junellia o'donelli Moldenke, 1946", canonical: "Junellia o'donelli", want: ParsedName{Genus: "Junellia", SpecificEpithet: "o'donelli", Rank: RankSpecies, Combination: au("1946", "Moldenke"), Code: CodeZoological}},
	{in: "Trophon d'orbignyi Carcelles, 1946", canonical: "Trophon d'orbignyi", want: ParsedName{Genus: "Trophon", SpecificEpithet: "d'orbignyi", Rank: RankSpecies, Combination: au("1946", "Carcelles"), Code: CodeZoological}},
	{in: "Arca m'coyi Tenison-Woods, 1878", canonical: "Arca m'coyi", want: ParsedName{Genus: "Arca", SpecificEpithet: "m'coyi", Rank: RankSpecies, Combination: au("1878", "Tenison-Woods"), Code: CodeZoological}},
	{in: "Eristalis l'herminierii Macquart", canonical: "Eristalis l'herminierii", want: ParsedName{Genus: "Eristalis", SpecificEpithet: "l'herminierii", Rank: RankSpecies, Combination: au("", "Macquart")}},
	{in: "Serjania meridionalis Cambess. var. o'donelli F.A. Barkley", canonical: "Serjania meridionalis var. o'donelli", want: ParsedName{Genus: "Serjania", SpecificEpithet: "meridionalis", InfraspecificEpithet: "o'donelli", Rank: RankVariety, Combination: au("", "F.A.Barkley")}},
	{in: "Minilimosina v-atrum (Villeneuve, 1917)", canonical: "Minilimosina v-atrum", want: ParsedName{Genus: "Minilimosina", SpecificEpithet: "v-atrum", Rank: RankSpecies, Basionym: au("1917", "Villeneuve"), Code: CodeZoological}},
	{in: "Cortinarius moenne-loccozii Bidaud", canonical: "Cortinarius moenne-loccozii", want: ParsedName{Genus: "Cortinarius", SpecificEpithet: "moenne-loccozii", Rank: RankSpecies, Combination: au("", "Bidaud")}},
	{in: "Asarum sieboldii f. non-maculatum (Y.N.Lee) M.Kim", canonical: "Asarum sieboldii f. non-maculatum", want: ParsedName{Genus: "Asarum", SpecificEpithet: "sieboldii", InfraspecificEpithet: "non-maculatum", Rank: RankForm, Basionym: au("", "Y.N.Lee"), Combination: au("", "M.Kim"), Code: CodeBotanical}},
	{in: "Passalus (Pertinax) gaboi Jiménez‑Ferbans & Reyes‑Castillo, 2022", canonical: "Passalus gaboi", want: ParsedName{Genus: "Passalus", InfragenericEpithet: "Pertinax", SpecificEpithet: "gaboi", Rank: RankSpecies, Combination: au("2022", "Jiménez-Ferbans", "Reyes-Castillo"), Code: CodeZoological, Warnings: []string{WarnHomoglyphs}}},
	{in: "Gymnocalycium eurypleurumn Plesn¡k ex F.Ritter", canonical: "Gymnocalycium eurypleurumn", want: ParsedName{Genus: "Gymnocalycium", SpecificEpithet: "eurypleurumn", Rank: RankSpecies, Combination: aux("Plesnik", "", "F.Ritter"), Warnings: []string{WarnHomoglyphs}}},
	// years
	{in: "Deudorix epijarbas turbo Fruhstorfer, [1912]", canonical: "Deudorix epijarbas turbo", want: ParsedName{Genus: "Deudorix", SpecificEpithet: "epijarbas", InfraspecificEpithet: "turbo", Rank: RankInfraspecificName, Combination: au("1912", "Fruhstorfer"), Code: CodeZoological}},
	{in: "Ophidocampa tapacumae Ehrenberg, 1870, 1869", canonical: "Ophidocampa tapacumae", want: ParsedName{Genus: "Ophidocampa", SpecificEpithet: "tapacumae", Rank: RankSpecies, Combination: au("1870", "Ehrenberg"), Code: CodeZoological}},
	{in: "Brachyspira Hovind-Hougen, Birch-Andersen, Henrik-Nielsen, Orholm, Pedersen, Teglbjaerg & Thaysen, 1983, 1982", canonical: "Brachyspira", want: ParsedName{Uninomial: "Brachyspira", Rank: RankUnranked, Combination: au("1983", "Hovind-Hougen", "Birch-Andersen", "Henrik-Nielsen", "Orholm", "Pedersen", "Teglbjaerg", "Thaysen"), Code: CodeZoological}},
	{in: "Ctenotus alacer Storr, 1970 [\"1969\"]", canonical: "Ctenotus alacer", want: ParsedName{Genus: "Ctenotus", SpecificEpithet: "alacer", Rank: RankSpecies, Combination: au("1970", "Storr"), Code: CodeZoological}},
	{in: "Ctenotus alacer Storr, 1970 (imprint 1969)", canonical: "Ctenotus alacer", want: ParsedName{Genus: "Ctenotus", SpecificEpithet: "alacer", Rank: RankSpecies, Combination: au("1970", "Storr"), Code: CodeZoological}},
	{in: "Ctenotus alacer Storr, 1887 (\"1886-1888\")", canonical: "Ctenotus alacer", want: ParsedName{Genus: "Ctenotus", SpecificEpithet: "alacer", Rank: RankSpecies, Combination: au("1887", "Storr"), Code: CodeZoological}},
	{in: "Melanargia halimede menetriesi Wagener, 1959 & 1961", canonical: "Melanargia halimede menetriesi", want: ParsedName{Genus: "Melanargia", SpecificEpithet: "halimede", InfraspecificEpithet: "menetriesi", Rank: RankInfraspecificName, Combination: au("1959", "Wagener"), Code: CodeZoological}},
	{in: " Anolis marmoratus girafus LAZELL 1964: 377", canonical: "Anolis marmoratus girafus", want: ParsedName{Genus: "Anolis", SpecificEpithet: "marmoratus", InfraspecificEpithet: "girafus", Rank: RankInfraspecificName, Combination: au("1964", "Lazell"), Unparsed: ":377", Code: CodeZoological}},
	// infraspecific names
	{in: "Poa pratensis subsp. anceps (Gaudin) Dumort., 1824", rank: RankSpecies, canonical: "Poa pratensis subsp. anceps", want: ParsedName{Genus: "Poa", SpecificEpithet: "pratensis", InfraspecificEpithet: "anceps", Rank: RankSubspecies, Basionym: au("", "Gaudin"), Combination: au("1824", "Dumort."), Code: CodeBotanical, Warnings: []string{WarnSubspeciesAssigned}}},
	{in: "Abies alba ssp. alpina Mill.", canonical: "Abies alba alpina", want: ParsedName{Genus: "Abies", SpecificEpithet: "alba", InfraspecificEpithet: "alpina", Rank: RankSubspecies, Combination: au("", "Mill.")}},
	{in: "Festuca ovina L. subvar. gracilis Hackel", canonical: "Festuca ovina subvar. gracilis", want: ParsedName{Genus: "Festuca", SpecificEpithet: "ovina", InfraspecificEpithet: "gracilis", Rank: RankSubvariety, Combination: au("", "Hackel")}},
	{in: "Pseudomonas syringae pv. aceris (Ark, 1939) Young, Dye & Wilkie, 1978", canonical: "Pseudomonas syringae pv. aceris", want: ParsedName{Genus: "Pseudomonas", SpecificEpithet: "syringae", InfraspecificEpithet: "aceris", Rank: RankPathovar, Combination: au("1978", "Young", "Dye", "Wilkie"), Basionym: au("1939", "Ark"), Code: CodeBacterial}},
	{in: "Agaricus compactus sarcocephalus (Fr.) Fr. ", canonical: "Agaricus compactus sarcocephalus", want: ParsedName{Genus: "Agaricus", SpecificEpithet: "compactus", InfraspecificEpithet: "sarcocephalus", Rank: RankInfraspecificName, Combination: au("", "Fr."), Basionym: au("", "Fr."), Code: CodeBotanical}},
	{in: "Baccharis microphylla Kunth var. rhomboidea Wedd. ex Sch. Bip. (nom. nud.)", canonical: "Baccharis microphylla var. rhomboidea", want: ParsedName{Genus: "Baccharis", SpecificEpithet: "microphylla", InfraspecificEpithet: "rhomboidea", Rank: RankVariety, Combination: aux("Wedd.", "", "Sch.Bip."), NomenclaturalNote: "nom.nud."}},
	{in: "Achillea millefolium var. pallidotegula", rank: RankInfraspecificName, canonical: "Achillea millefolium var. pallidotegula", want: ParsedName{Genus: "Achillea", SpecificEpithet: "millefolium", InfraspecificEpithet: "pallidotegula", Rank: RankVariety}},
	{in: "Monograptus turriculatus mut. minor", rank: RankMutatio, canonical: "Monograptus turriculatus mut. minor", want: ParsedName{Genus: "Monograptus", SpecificEpithet: "turriculatus", InfraspecificEpithet: "minor", Rank: RankMutatio, Code: CodeZoological}},
	{in: "Poa pratensis kewensis primula (L.) Rouy, 1913", canonical: "Poa pratensis primula", want: ParsedName{Genus: "Poa", SpecificEpithet: "pratensis", InfraspecificEpithet: "primula", Rank: RankInfrasubspecificName, Combination: au("1913", "Rouy"), Basionym: au("", "L."), Code: CodeZoological}},
	{in: "Bombus sichelii alticola latofasciatus", canonical: "Bombus sichelii latofasciatus", want: ParsedName{Genus: "Bombus", SpecificEpithet: "sichelii", InfraspecificEpithet: "latofasciatus", Rank: RankInfrasubspecificName}},
	{in: "Acipenser gueldenstaedti colchicus natio danubicus Movchan, 1967", canonical: "Acipenser gueldenstaedti natio danubicus", want: ParsedName{Genus: "Acipenser", SpecificEpithet: "gueldenstaedti", InfraspecificEpithet: "danubicus", Rank: RankNatio, Combination: au("1967", "Movchan"), Code: CodeZoological}},
	{in: "Cymbella cistula var. sinus regis", canonical: "Cymbella cistula var. sinus", want: ParsedName{Genus: "Cymbella", SpecificEpithet: "cistula", InfraspecificEpithet: "sinus", Rank: RankVariety, Unparsed: "regis"}},
	{in: "Hieracium vulgatum t.infr. arrectariicaule Sudre", canonical: "Hieracium vulgatum arrectariicaule", want: ParsedName{Genus: "Hieracium", SpecificEpithet: "vulgatum", InfraspecificEpithet: "arrectariicaule", Rank: RankInfraspecificName, Combination: au("", "Sudre")}},
	{in: "Hexaconthium pachydermum forma legitime Cortese & Bjørklund 1998", canonical: "Hexaconthium pachydermum f. legitime", want: ParsedName{Genus: "Hexaconthium", SpecificEpithet: "pachydermum", InfraspecificEpithet: "legitime", Rank: RankForm, Combination: au("1998", "Cortese", "Bjørklund"), Code: CodeZoological}},
	{in: "Hexaconthium pachydermum form A Cortese & Bjørklund 1998", canonical: "Hexaconthium pachydermum f. A", want: ParsedName{Type: NameInformal, Genus: "Hexaconthium", SpecificEpithet: "pachydermum", InfraspecificEpithet: "A", Rank: RankForm, Combination: au("1998", "Cortese", "Bjørklund"), Code: CodeZoological}},
	{in: "Actinomma leptodermum longispinum Cortese & Bjørklund 1998", canonical: "Actinomma leptodermum longispinum", want: ParsedName{Genus: "Actinomma", SpecificEpithet: "leptodermum", InfraspecificEpithet: "longispinum", Rank: RankInfraspecificName, Combination: au("1998", "Cortese", "Bjørklund"), Code: CodeZoological}},
	{in: "Vulpes vulpes sp. silaceus Miller, 1907", canonical: "Vulpes vulpes silaceus", want: ParsedName{Genus: "Vulpes", SpecificEpithet: "vulpes", InfraspecificEpithet: "silaceus", Rank: RankSubspecies, Combination: au("1907", "Miller"), Code: CodeZoological, Warnings: []string{WarnSubspeciesAssigned}}},
	{in: "Puccinia graminis f. sp. avenae", canonical: "Puccinia graminis f.sp. avenae", want: ParsedName{Genus: "Puccinia", SpecificEpithet: "graminis", InfraspecificEpithet: "avenae", Rank: RankFormaSpecialis, Code: CodeBacterial}},
	{in: "Diatrypella favacea var. favacea (Fr.) Ces. & De Not.", canonical: "Diatrypella favacea var. favacea", want: ParsedName{Genus: "Diatrypella", SpecificEpithet: "favacea", InfraspecificEpithet: "favacea", Rank: RankVariety, Combination: au("", "Ces.", "De Not."), Basionym: au("", "Fr."), Code: CodeBotanical}},
	{in: "Protoventuria rosae (De Not.) Berl. & Sacc.", canonical: "Protoventuria rosae", want: ParsedName{Genus: "Protoventuria", SpecificEpithet: "rosae", Rank: RankSpecies, Combination: au("", "Berl.", "Sacc."), Basionym: au("", "De Not."), Code: CodeBotanical}},
	{in: "Xylocopa (Koptortosoma) senior clitelligera Friese", canonical: "Xylocopa senior clitelligera", want: ParsedName{Genus: "Xylocopa", InfragenericEpithet: "Koptortosoma", SpecificEpithet: "senior", InfraspecificEpithet: "clitelligera", Rank: RankInfraspecificName, Combination: au("", "Friese")}},
	{in: "Mesotrichia senior (Vachal)", canonical: "Mesotrichia senior", want: ParsedName{Genus: "Mesotrichia", SpecificEpithet: "senior", Rank: RankSpecies, Basionym: au("", "Vachal"), Code: CodeZoological}},
	// ex authors
	{in: "Acacia truncata (Burm. f.) hort. ex Hoffmanns.", canonical: "Acacia truncata", want: ParsedName{Genus: "Acacia", SpecificEpithet: "truncata", Rank: RankSpecies, Basionym: au("", "Burm.f."), Combination: aux("hort.", "", "Hoffmanns."), Code: CodeBotanical}},
	{in: "Abutilon bastardioides Baker f. ex Rose", canonical: "Abutilon bastardioides", want: ParsedName{Genus: "Abutilon", SpecificEpithet: "bastardioides", Rank: RankSpecies, Combination: aux("Baker f.", "", "Rose")}},
	{in: "Abies brevifolia hort. ex Dallim.", canonical: "Abies brevifolia", want: ParsedName{Genus: "Abies", SpecificEpithet: "brevifolia", Rank: RankSpecies, Combination: aux("hort.", "", "Dallim.")}},
	{in: "Abies brevifolia cv. ex Dallim.", canonical: "Abies brevifolia", want: ParsedName{Genus: "Abies", SpecificEpithet: "brevifolia", Rank: RankSpecies, Combination: aux("hort.", "", "Dallim.")}},
	{in: "Abutilon ×hybridum cv. ex Voss", canonical: "Abutilon × hybridum", want: ParsedName{Genus: "Abutilon", SpecificEpithet: "hybridum", Rank: RankSpecies, Notho: PartSpecific, Combination: aux("hort.", "", "Voss")}},
	// monomials
	{in: "Animalia", canonical: "Animalia", want: ParsedName{Uninomial: "Animalia", Rank: RankUnranked}},
	{in: "Chrysopetalidae", canonical: "Chrysopetalidae", want: ParsedName{Uninomial: "Chrysopetalidae", Rank: RankUnranked}},
	{in: "Chrysopetalidae", code: CodeZoological, canonical: "Chrysopetalidae", want: ParsedName{Uninomial: "Chrysopetalidae", Rank: RankFamily, Code: CodeZoological}},
	{in: "Acripeza Guérin-Ménéville 1838", canonical: "Acripeza", want: ParsedName{Uninomial: "Acripeza", Rank: RankUnranked, Combination: au("1838", "Guérin-Ménéville"), Code: CodeZoological}},
	{in: "Salmonidae Jarocki or Schinz, 1822", canonical: "Salmonidae", want: ParsedName{Uninomial: "Salmonidae", Rank: RankUnranked, Combination: au("1822", "Jarocki or Schinz"), Code: CodeZoological}},
	{in: "Hormospora De Not.", canonical: "Hormospora", want: ParsedName{Uninomial: "Hormospora", Rank: RankUnranked, Combination: au("", "De Not.")}},
	{in: "Boldiaceae", canonical: "Boldiaceae", want: ParsedName{Uninomial: "Boldiaceae", Rank: RankFamily}},
	{in: "Woodsiaceae (Hooker) Herter", canonical: "Woodsiaceae", want: ParsedName{Uninomial: "Woodsiaceae", Rank: RankFamily, Combination: au("", "Herter"), Basionym: au("", "Hooker"), Code: CodeBotanical}},
	{in: "Dioscoreales Hooker f.", code: CodeBotanical, canonical: "Dioscoreales", want: ParsedName{Uninomial: "Dioscoreales", Rank: RankOrder, Combination: au("", "Hooker f."), Code: CodeBotanical}},
	{in: "Sicyoniidae † Ortmann, 1898", canonical: "Sicyoniidae", want: ParsedName{Uninomial: "Sicyoniidae", Rank: RankUnranked, Combination: au("1898", "Ortmann"), Extinct: true, Code: CodeZoological}},
	{in: "†Titanoptera", canonical: "Titanoptera", want: ParsedName{Uninomial: "Titanoptera", Rank: RankUnranked, Extinct: true}},
	{in: "†††Titanoptera", canonical: "Titanoptera", want: ParsedName{Uninomial: "Titanoptera", Rank: RankUnranked, Extinct: true}},
	{in: "† Tuarangiida MacKinnon, 1982", canonical: "Tuarangiida", want: ParsedName{Uninomial: "Tuarangiida", Rank: RankUnranked, Combination: au("1982", "MacKinnon"), Extinct: true, Code: CodeZoological}},
	// in references
	{in: "Amathia tricornis Busk ms in Chimonides, 1987", canonical: "Amathia tricornis", want: ParsedName{Genus: "Amathia", SpecificEpithet: "tricornis", Rank: RankSpecies, Combination: au("1987", "Busk"), PublishedIn: "Chimonides, 1987", NomenclaturalNote: "ms", Manuscript: true}},
	{in: "Xolisma turquini Small apud Britton & Wilson", canonical: "Xolisma turquini", want: ParsedName{Genus: "Xolisma", SpecificEpithet: "turquini", Rank: RankSpecies, Combination: au("", "Small"), PublishedIn: "Britton & Wilson"}},
	{in: "Negundo aceroides var. violaceum G.Kirchn. in Petzold & G.Kirchn.", canonical: "Negundo aceroides var. violaceum", want: ParsedName{Genus: "Negundo", SpecificEpithet: "aceroides", InfraspecificEpithet: "violaceum", Rank: RankVariety, Combination: au("", "G.Kirchn."), PublishedIn: "Petzold & G.Kirchn."}},
	{in: "Abies denheyeri Eghbalian, Khanjani and Ueckermann in Eghbalian, Khanjani & Ueckermann, 2017", canonical: "Abies denheyeri", want: ParsedName{Genus: "Abies", SpecificEpithet: "denheyeri", Rank: RankSpecies, Combination: au("2017", "Eghbalian", "Khanjani", "Ueckermann"), PublishedIn: "Eghbalian, Khanjani & Ueckermann, 2017", Code: CodeZoological}},
	{in: "Mica Budde-Lund in Voeltzkow, 1908", canonical: "Mica", want: ParsedName{Uninomial: "Mica", Rank: RankUnranked, Combination: au("1908", "Budde-Lund"), PublishedIn: "Voeltzkow, 1908", Code: CodeZoological}},
	// infrageneric and suprageneric names
	{in: "Centaurea subg. Jacea", canonical: "Centaurea subgen. Jacea", want: ParsedName{Genus: "Centaurea", InfragenericEpithet: "Jacea", Rank: RankSubgenus}},
	{in: "Centaurea L. subg. Jacea", canonical: "Centaurea subgen. Jacea", want: ParsedName{Genus: "Centaurea", InfragenericEpithet: "Jacea", Rank: RankSubgenus}},
	{in: "Poaceae subtrib. Scolochloinae Soreng", canonical: "Scolochloinae", want: ParsedName{Uninomial: "Scolochloinae", Rank: RankSubtribe, Combination: au("", "Soreng")}},
	{in: "subtrib. Scolochloinae Soreng", canonical: "Scolochloinae", want: ParsedName{Uninomial: "Scolochloinae", Rank: RankSubtribe, Combination: au("", "Soreng")}},
	{in: "Aeonium nothosect. Leugalonium", canonical: "Aeonium nothosect. Leugalonium", want: ParsedName{Genus: "Aeonium", InfragenericEpithet: "Leugalonium", Rank: RankSection, Notho: PartInfrageneric, Code: CodeBotanical}},
	{in: "Narcissus nothoser. Dubizettae", canonical: "Narcissus nothoser. Dubizettae", want: ParsedName{Genus: "Narcissus", InfragenericEpithet: "Dubizettae", Rank: RankSeries, Notho: PartInfrageneric, Code: CodeBotanical}},
	{in: "Serapias nothosubsect. Pladiopetalae", canonical: "Serapias nothosubsect. Pladiopetalae", want: ParsedName{Genus: "Serapias", InfragenericEpithet: "Pladiopetalae", Rank: RankSubsection, Notho: PartInfrageneric, Code: CodeBotanical}},
	{in: "Rubus nothosubgen. Cylarubus", canonical: "Rubus nothosubgen. Cylarubus", want: ParsedName{Genus: "Rubus", InfragenericEpithet: "Cylarubus", Rank: RankSubgenus, Notho: PartInfrageneric}},
	{in: "Arrhoges (Antarctohoges)", rank: RankSubgenus, canonical: "Arrhoges subgen. Antarctohoges", want: ParsedName{Genus: "Arrhoges", InfragenericEpithet: "Antarctohoges", Rank: RankSubgenus}},
	{in: "Arrhoges (Antarctohoges)", canonical: "Arrhoges", want: ParsedName{Uninomial: "Arrhoges", Rank: RankUnranked, Basionym: au("", "Antarctohoges"), Code: CodeZoological}},
	{in: "Polygonum", rank: RankSubgenus, canonical: "subgen. Polygonum", want: ParsedName{InfragenericEpithet: "Polygonum", Rank: RankSubgenus}},
	{in: "subgen. Trematostoma Sacc.", canonical: "subgen. Trematostoma", want: ParsedName{InfragenericEpithet: "Trematostoma", Rank: RankSubgenus, Combination: au("", "Sacc.")}},
	{in: "Echinocereus sect. Triglochidiata Bravo", canonical: "Echinocereus sect. Triglochidiata", want: ParsedName{Genus: "Echinocereus", InfragenericEpithet: "Triglochidiata", Rank: RankSection, Combination: au("", "Bravo"), Code: CodeBotanical}},
	{in: "Zignoella subgen. Trematostoma Sacc.", canonical: "Zignoella subgen. Trematostoma", want: ParsedName{Genus: "Zignoella", InfragenericEpithet: "Trematostoma", Rank: RankSubgenus, Combination: au("", "Sacc.")}},
	{in: "Polygonum subgen. Bistorta (L.) Zernov", canonical: "Polygonum subgen. Bistorta", want: ParsedName{Genus: "Polygonum", InfragenericEpithet: "Bistorta", Rank: RankSubgenus, Combination: au("", "Zernov"), Basionym: au("", "L."), Code: CodeBotanical}},
	{in: "Festuca subg. Schedonorus (P. Beauv. ) Peterm.", canonical: "Festuca subgen. Schedonorus", want: ParsedName{Genus: "Festuca", InfragenericEpithet: "Schedonorus", Rank: RankSubgenus, Combination: au("", "Peterm."), Basionym: au("", "P.Beauv."), Code: CodeBotanical}},
	{in: "Catapodium subg.Agropyropsis  Trab.", canonical: "Catapodium subgen. Agropyropsis", want: ParsedName{Genus: "Catapodium", InfragenericEpithet: "Agropyropsis", Rank: RankSubgenus, Combination: au("", "Trab.")}},
	{in: " Gnaphalium subg. Laphangium Hilliard & B. L. Burtt", canonical: "Gnaphalium subgen. Laphangium", want: ParsedName{Genus: "Gnaphalium", InfragenericEpithet: "Laphangium", Rank: RankSubgenus, Combination: au("", "Hilliard", "B.L.Burtt")}},
	// placeholders that parse
	{in: "denheyeri Eghbalian, Khanjani and Ueckermann in Eghbalian, Khanjani & Ueckermann, 2017", canonical: "? denheyeri", want: ParsedName{Type: NamePlaceholder, Genus: "?", SpecificEpithet: "denheyeri", Rank: RankSpecies, Combination: au("2017", "Eghbalian", "Khanjani", "Ueckermann"), PublishedIn: "Eghbalian, Khanjani & Ueckermann, 2017", Code: CodeZoological, Warnings: []string{WarnMissingGenus}}},
	{in: "\"? gryphoidis", canonical: "? gryphoidis", want: ParsedName{Type: NamePlaceholder, Genus: "?", SpecificEpithet: "gryphoidis", Rank: RankSpecies}},
	{in: "\"? gryphoidis (Bourguignat 1870) Schoepf. 1909", canonical: "? gryphoidis", want: ParsedName{Type: NamePlaceholder, Genus: "?", SpecificEpithet: "gryphoidis", Rank: RankSpecies, Basionym: au("1870", "Bourguignat"), Combination: au("1909", "Schoepf."), Code: CodeZoological}},
	{in: "Missing penchinati Bourguignat, 1870", canonical: "? penchinati", want: ParsedName{Type: NamePlaceholder, Genus: "?", SpecificEpithet: "penchinati", Rank: RankSpecies, Combination: au("1870", "Bourguignat"), Code: CodeZoological}},
	{in: "OdontellidaeGEN", rank: RankGenus, canonical: "Odontellidae", want: ParsedName{Type: NamePlaceholder, Uninomial: "Odontellidae", Phrase: "GEN", Rank: RankGenus}},
	{in: "EusiridaeNZD", code: CodeZoological, canonical: "Eusiridae", want: ParsedName{Type: NamePlaceholder, Uninomial: "Eusiridae", Phrase: "NZD", Rank: RankFamily, Code: CodeZoological}},
	{in: "Blattellinae_SB", canonical: "Blattellinae", want: ParsedName{Type: NamePlaceholder, Uninomial: "Blattellinae", Phrase: "SB", Rank: RankUnranked}},
	{in: "GenusANIC_3", canonical: "Genus", want: ParsedName{Type: NamePlaceholder, Uninomial: "Genus", Phrase: "ANIC_3", Rank: RankUnranked}},
	// sanctioning authors
	{in: "Boletus versicolor L. : Fr.", canonical: "Boletus versicolor", want: ParsedName{Genus: "Boletus", SpecificEpithet: "versicolor", Rank: RankSpecies, Combination: au("", "L."), SanctioningAuthor: "Fr."}},
	{in: "Agaricus compactus sarcocephalus (Fr. : Fr.) Fr. ", canonical: "Agaricus compactus sarcocephalus", want: ParsedName{Genus: "Agaricus", SpecificEpithet: "compactus", InfraspecificEpithet: "sarcocephalus", Rank: RankInfraspecificName, Combination: au("", "Fr."), Basionym: au("", "Fr."), Code: CodeBotanical}},
	{in: "Merulius lacrimans (Wulfen : Fr.) Schum.", canonical: "Merulius lacrimans", want: ParsedName{Genus: "Merulius", SpecificEpithet: "lacrimans", Rank: RankSpecies, Combination: au("", "Schum."), Basionym: au("", "Wulfen"), Code: CodeBotanical}},
	{in: "Merulius lacrimans (Wulfen) Schum. : Fr.", canonical: "Merulius lacrimans", want: ParsedName{Genus: "Merulius", SpecificEpithet: "lacrimans", Rank: RankSpecies, Combination: au("", "Schum."), Basionym: au("", "Wulfen"), SanctioningAuthor: "Fr.", Code: CodeBotanical}},
	// hybrids
	{in: "Iris germanica nothovar. florentina", canonical: "Iris germanica nothovar. florentina", want: ParsedName{Genus: "Iris", SpecificEpithet: "germanica", InfraspecificEpithet: "florentina", Rank: RankVariety, Notho: PartInfraspecific}},
	{in: "Abies alba var. ×alpina L.", canonical: "Abies alba nothovar. alpina", want: ParsedName{Genus: "Abies", SpecificEpithet: "alba", InfraspecificEpithet: "alpina", Rank: RankVariety, Notho: PartInfraspecific, Combination: au("", "L.")}},
	{in: "Polypodium  x vulgare nothosubsp. mantoniae (Rothm.) Schidlay", canonical: "Polypodium vulgare nothosubsp. mantoniae", want: ParsedName{Genus: "Polypodium", SpecificEpithet: "vulgare", InfraspecificEpithet: "mantoniae", Rank: RankSubspecies, Notho: PartInfraspecific, Basionym: au("", "Rothm."), Combination: au("", "Schidlay"), Code: CodeBotanical}},
	{in: "+ Pyrocrataegus willei L.L.Daniel", canonical: "× Pyrocrataegus willei", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", Rank: RankSpecies, Notho: PartGeneric, Combination: au("", "L.L.Daniel")}},
	{in: "×Pyrocrataegus willei L.L. Daniel", canonical: "× Pyrocrataegus willei", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", Rank: RankSpecies, Notho: PartGeneric, Combination: au("", "L.L.Daniel")}},
	{in: " × Pyrocrataegus willei  L. L. Daniel", canonical: "× Pyrocrataegus willei", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", Rank: RankSpecies, Notho: PartGeneric, Combination: au("", "L.L.Daniel")}},
	{in: " X Pyrocrataegus willei L. L. Daniel", canonical: "× Pyrocrataegus willei", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", Rank: RankSpecies, Notho: PartGeneric, Combination: au("", "L.L.Daniel")}},
	{in: "Pyrocrataegus ×willei L. L. Daniel", canonical: "Pyrocrataegus × willei", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", Rank: RankSpecies, Notho: PartSpecific, Combination: au("", "L.L.Daniel")}},
	{in: "Pyrocrataegus × willei L. L. Daniel", canonical: "Pyrocrataegus × willei", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", Rank: RankSpecies, Notho: PartSpecific, Combination: au("", "L.L.Daniel")}},
	{in: "Pyrocrataegus x willei L. L. Daniel", canonical: "Pyrocrataegus × willei", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", Rank: RankSpecies, Notho: PartSpecific, Combination: au("", "L.L.Daniel")}},
	{in: "Pyrocrataegus X willei L. L. Daniel", canonical: "Pyrocrataegus × willei", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", Rank: RankSpecies, Notho: PartSpecific, Combination: au("", "L.L.Daniel")}},
	{in: "Pyrocrataegus willei ×libidi  L.L.Daniel", canonical: "Pyrocrataegus willei × libidi", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", InfraspecificEpithet: "libidi", Rank: RankInfraspecificName, Notho: PartInfraspecific, Combination: au("", "L.L.Daniel")}},
	{in: "Pyrocrataegus willei nothosubsp. libidi  L.L.Daniel", canonical: "Pyrocrataegus willei nothosubsp. libidi", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", InfraspecificEpithet: "libidi", Rank: RankSubspecies, Notho: PartInfraspecific, Combination: au("", "L.L.Daniel")}},
	{in: "+ Pyrocrataegus willei nothosubsp. libidi  L.L.Daniel", canonical: "Pyrocrataegus willei nothosubsp. libidi", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", InfraspecificEpithet: "libidi", Rank: RankSubspecies, Notho: PartInfraspecific, Combination: au("", "L.L.Daniel")}},
	{in: "×Pyrocrataegus ×willei ×libidi L.L.Daniel", canonical: "Pyrocrataegus willei × libidi", want: ParsedName{Genus: "Pyrocrataegus", SpecificEpithet: "willei", InfraspecificEpithet: "libidi", Rank: RankInfraspecificName, Notho: PartInfraspecific, Combination: au("", "L.L.Daniel")}},
	// aggregates
	{in: "Achillea millefolium agg. L.", canonical: "Achillea millefolium", want: ParsedName{Genus: "Achillea", SpecificEpithet: "millefolium", Rank: RankSpeciesAggregate, Combination: au("", "L.")}},
	{in: "Strumigenys koningsbergeri-group", canonical: "Strumigenys koningsbergeri", want: ParsedName{Genus: "Strumigenys", SpecificEpithet: "koningsbergeri", Rank: RankSpeciesAggregate}},
	{in: "Selenophorus parumpunctatus species group", canonical: "Selenophorus parumpunctatus", want: ParsedName{Genus: "Selenophorus", SpecificEpithet: "parumpunctatus", Rank: RankSpeciesAggregate}},
	{in: "Monomorium monomorium group", canonical: "Monomorium monomorium", want: ParsedName{Genus: "Monomorium", SpecificEpithet: "monomorium", Rank: RankSpeciesAggregate}},
	{in: "Achillea millefolium L.", rank: RankSpecies, canonical: "Achillea millefolium", want: ParsedName{Genus: "Achillea", SpecificEpithet: "millefolium", Rank: RankSpecies, Combination: au("", "L.")}},
	{in: "Achillea millefolium L.", rank: RankSpeciesAggregate, canonical: "Achillea millefolium", want: ParsedName{Genus: "Achillea", SpecificEpithet: "millefolium", Rank: RankSpeciesAggregate, Combination: au("", "L.")}},
	{in: "Achillea millefolium L.", rank: RankFamily, canonical: "Achillea millefolium", want: ParsedName{Type: NameInformal, Genus: "Achillea", SpecificEpithet: "millefolium", Rank: RankFamily, Combination: au("", "L."), Doubtful: true, Warnings: []string{WarnRankMismatch}}},
	// Candidatus
	{in: "\"Candidatus Endowatersipora\" Anderson and Haygood, 2007", canonical: "\"Candidatus Endowatersipora\"", want: ParsedName{Uninomial: "Endowatersipora", Rank: RankUnranked, Candidatus: true, Combination: au("2007", "Anderson", "Haygood"), Code: CodeZoological}},
	{in: "Candidatus Phytoplasma allocasuarinae", canonical: "\"Candidatus Phytoplasma allocasuarinae\"", want: ParsedName{Genus: "Phytoplasma", SpecificEpithet: "allocasuarinae", Rank: RankSpecies, Candidatus: true}},
	{in: "Ca. Phytoplasma allocasuarinae", canonical: "\"Candidatus Phytoplasma allocasuarinae\"", want: ParsedName{Genus: "Phytoplasma", SpecificEpithet: "allocasuarinae", Rank: RankSpecies, Candidatus: true}},
	{in: "Ca. Phytoplasma", canonical: "\"Candidatus Phytoplasma\"", want: ParsedName{Uninomial: "Phytoplasma", Rank: RankUnranked, Candidatus: true}},
	{in: "'Candidatus Nicolleia'", canonical: "\"Candidatus Nicolleia\"", want: ParsedName{Uninomial: "Nicolleia", Rank: RankUnranked, Candidatus: true}},
	{in: "\"Candidatus Riegeria\" Gruber-Vodicka et al., 2011", canonical: "\"Candidatus Riegeria\"", want: ParsedName{Uninomial: "Riegeria", Rank: RankUnranked, Candidatus: true, Combination: au("2011", "Gruber-Vodicka", "al."), Code: CodeZoological}},
	{in: "Centropogon candidatus Lammers", canonical: "Centropogon candidatus", want: ParsedName{Genus: "Centropogon", SpecificEpithet: "candidatus", Rank: RankSpecies, Combination: au("", "Lammers")}},
	{in: "Candidatus Liberibacter solanacearum", canonical: "\"Candidatus Liberibacter solanacearum\"", want: ParsedName{Genus: "Liberibacter", SpecificEpithet: "solanacearum", Rank: RankSpecies, Candidatus: true}},
	// cultivars
	{in: "Abutilon 'Kentish Belle'", canonical: "Abutilon 'Kentish Belle'", want: ParsedName{Genus: "Abutilon", CultivarEpithet: "Kentish Belle", Rank: RankCultivar}},
	{in: "Acer campestre L. cv. 'nanum'", canonical: "Acer campestre 'nanum'", want: ParsedName{Genus: "Acer", SpecificEpithet: "campestre", CultivarEpithet: "nanum", Rank: RankCultivar, Combination: au("", "L.")}},
	{in: "Abutilon 'Nabob'", canonical: "Abutilon 'Nabob'", want: ParsedName{Genus: "Abutilon", CultivarEpithet: "Nabob", Rank: RankCultivar}},
	{in: "Sorbus americana Marshall cv. 'Belmonte'", canonical: "Sorbus americana 'Belmonte'", want: ParsedName{Genus: "Sorbus", SpecificEpithet: "americana", CultivarEpithet: "Belmonte", Rank: RankCultivar, Combination: au("", "Marshall")}},
	{in: "Sorbus hupehensis C.K.Schneid. cv. 'November pink'", canonical: "Sorbus hupehensis 'November pink'", want: ParsedName{Genus: "Sorbus", SpecificEpithet: "hupehensis", CultivarEpithet: "November pink", Rank: RankCultivar, Combination: au("", "C.K.Schneid.")}},
	{in: "Symphoricarpos albus (L.) S.F.Blake cv. 'Turesson'", canonical: "Symphoricarpos albus 'Turesson'", want: ParsedName{Genus: "Symphoricarpos", SpecificEpithet: "albus", CultivarEpithet: "Turesson", Rank: RankCultivar, Basionym: au("", "L."), Combination: au("", "S.F.Blake")}},
	{in: "Symphoricarpos sp. cv. 'mother of pearl'", canonical: "Symphoricarpos 'mother of pearl'", want: ParsedName{Genus: "Symphoricarpos", CultivarEpithet: "mother of pearl", Rank: RankCultivar}},
	{in: "Primula Border Auricula Group", canonical: "Primula Border Auricula Group", want: ParsedName{Genus: "Primula", CultivarEpithet: "Border Auricula", Rank: RankCultivarGroup}},
	{in: "Rhododendron boothii Mishmiense Group", canonical: "Rhododendron boothii Mishmiense Group", want: ParsedName{Genus: "Rhododendron", SpecificEpithet: "boothii", CultivarEpithet: "Mishmiense", Rank: RankCultivarGroup}},
	{in: "Paphiopedilum Sorel grex", canonical: "Paphiopedilum Sorel gx", want: ParsedName{Genus: "Paphiopedilum", CultivarEpithet: "Sorel", Rank: RankGrex}},
	{in: "Cattleya Prince John gx", canonical: "Cattleya Prince John gx", want: ParsedName{Genus: "Cattleya", CultivarEpithet: "Prince John", Rank: RankGrex}},
	// OTUs with parts
	{in: "Desulfobacterota_B", canonical: "Desulfobacterota_B", want: ParsedName{Type: NameOTU, Uninomial: "Desulfobacterota_B", Rank: RankUnranked}},
	{in: "UBA3054", canonical: "UBA3054", want: ParsedName{Type: NameOTU, Uninomial: "UBA3054", Rank: RankUnranked}},
	{in: "F0040", canonical: "F0040", want: ParsedName{Type: NameOTU, Uninomial: "F0040", Rank: RankUnranked}},
	{in: "AABM5-125-24", canonical: "AABM5-125-24", want: ParsedName{Type: NameOTU, Uninomial: "AABM5-125-24", Rank: RankUnranked}},
	{in: "B130-G9", canonical: "B130-G9", want: ParsedName{Type: NameOTU, Uninomial: "B130-G9", Rank: RankUnranked}},
	{in: "BMS3Abin14", canonical: "BMS3Abin14", want: ParsedName{Type: NameOTU, Uninomial: "BMS3Abin14", Rank: RankUnranked}},
	{in: "4572-55", canonical: "4572-55", want: ParsedName{Type: NameOTU, Uninomial: "4572-55", Rank: RankUnranked}},
	{in: "T1SED10-198M", canonical: "T1SED10-198M", want: ParsedName{Type: NameOTU, Uninomial: "T1SED10-198M", Rank: RankUnranked}},
	{in: "UBA11359_C", canonical: "UBA11359_C", want: ParsedName{Type: NameOTU, Uninomial: "UBA11359_C", Rank: RankUnranked}},
	{in: "01-FULL-45-15b", canonical: "01-FULL-45-15b", want: ParsedName{Type: NameOTU, Uninomial: "01-FULL-45-15b", Rank: RankUnranked}},
	{in: "E44-bin80", canonical: "E44-bin80", want: ParsedName{Type: NameOTU, Uninomial: "E44-bin80", Rank: RankUnranked}},
	{in: "E2", canonical: "E2", want: ParsedName{Type: NameOTU, Uninomial: "E2", Rank: RankUnranked}},
	{in: "9FT-COMBO-53-11", canonical: "9FT-COMBO-53-11", want: ParsedName{Type: NameOTU, Uninomial: "9FT-COMBO-53-11", Rank: RankUnranked}},
	{in: "AqS3", canonical: "AqS3", want: ParsedName{Type: NameOTU, Uninomial: "AqS3", Rank: RankUnranked}},
	{in: "Gp7-AA8", canonical: "Gp7-AA8", want: ParsedName{Type: NameOTU, Uninomial: "Gp7-AA8", Rank: RankUnranked}},
	{in: "0-14-0-10-38-17 sp002774085", canonical: "0-14-0-10-38-17 sp002774085", want: ParsedName{Type: NameOTU, Genus: "0-14-0-10-38-17", SpecificEpithet: "sp002774085", Rank: RankSpecies}},
	{in: "18JY21-1 sp004344915", canonical: "18JY21-1 sp004344915", want: ParsedName{Type: NameOTU, Genus: "18JY21-1", SpecificEpithet: "sp004344915", Rank: RankSpecies}},
	{in: "Boldenaria", canonical: "Boldenaria", want: ParsedName{Uninomial: "Boldenaria", Rank: RankUnranked}},
	{in: "Boldea vulgaris", canonical: "Boldea vulgaris", want: ParsedName{Genus: "Boldea", SpecificEpithet: "vulgaris", Rank: RankSpecies}},
	// informal names
	{in: "Trisulcus aff. nana  (Popofsky, 1913), Petrushevskaya, 1971", canonical: "Trisulcus aff. nana", want: ParsedName{Type: NameInformal, Genus: "Trisulcus", SpecificEpithet: "nana", Rank: RankSpecies, Basionym: au("1913", "Popofsky"), Combination: au("1971", "Petrushevskaya"), QualifierPart: PartSpecific, Qualifier: "aff.", Code: CodeZoological}},
	{in: "Cerapachys mayeri cf. var. brachynodus", canonical: "Cerapachys mayeri cf. var. brachynodus", want: ParsedName{Type: NameInformal, Genus: "Cerapachys", SpecificEpithet: "mayeri", InfraspecificEpithet: "brachynodus", Rank: RankVariety, QualifierPart: PartInfraspecific, Qualifier: "cf."}},
	{in: "Solenopsis cf fugax", canonical: "Solenopsis cf. fugax", want: ParsedName{Type: NameInformal, Genus: "Solenopsis", SpecificEpithet: "fugax", Rank: RankSpecies, QualifierPart: PartSpecific, Qualifier: "cf."}},
	{in: "N. giraldo", canonical: "N. giraldo", want: ParsedName{Type: NameInformal, Genus: "N.", SpecificEpithet: "giraldo", Rank: RankSpecies}},
	{in: "Foa fo", canonical: "Foa fo", want: ParsedName{Genus: "Foa", SpecificEpithet: "fo", Rank: RankSpecies}},
	{in: "Lepidoptera sp. JGP0404", canonical: "Lepidoptera sp.JGP0404", want: ParsedName{Type: NameInformal, Genus: "Lepidoptera", SpecificEpithet: "sp.JGP0404", Rank: RankSpecies, Manuscript: true}},
	{in: "Verticordia sp.1", canonical: "Verticordia sp.1", want: ParsedName{Type: NameInformal, Genus: "Verticordia", SpecificEpithet: "sp.1", Rank: RankSpecies, Manuscript: true}},
	{in: "Bryozoan sp. E", canonical: "Bryozoan sp.E", want: ParsedName{Type: NameInformal, Genus: "Bryozoan", SpecificEpithet: "sp.E", Rank: RankSpecies, Manuscript: true}},
	// indeterminate names
	{in: "Trametes spec.", canonical: "Trametes sp.", want: ParsedName{Type: NameInformal, Genus: "Trametes", Rank: RankSpecies, Warnings: []string{WarnIndetermined}}},
	{in: "Trametes indet.", canonical: "Trametes sp.", want: ParsedName{Type: NameInformal, Genus: "Trametes", Rank: RankSpecies, Warnings: []string{WarnIndetermined}}},
	{in: "Camillina indet", canonical: "Camillina sp.", want: ParsedName{Type: NameInformal, Genus: "Camillina", Rank: RankSpecies, Warnings: []string{WarnIndetermined}}},
	{in: "Mesocricetus sp.", canonical: "Mesocricetus sp.", want: ParsedName{Type: NameInformal, Genus: "Mesocricetus", Rank: RankSpecies, Warnings: []string{WarnIndetermined}}},
	{in: "Nitzschia sinuata var. (Grunow) Lange-Bert.", canonical: "Nitzschia sinuata var.", want: ParsedName{Type: NameInformal, Genus: "Nitzschia", SpecificEpithet: "sinuata", Rank: RankVariety, Warnings: []string{WarnIndetermined}}},
	{in: "Canis lupus subsp. Linnaeus, 1758", canonical: "Canis lupus ssp.", want: ParsedName{Type: NameInformal, Genus: "Canis", SpecificEpithet: "lupus", Rank: RankSubspecies, Warnings: []string{WarnIndetermined}}},
	{in: "Polygonum vulgaris ssp.", canonical: "Polygonum vulgaris ssp.", want: ParsedName{Type: NameInformal, Genus: "Polygonum", SpecificEpithet: "vulgaris", Rank: RankSubspecies, Warnings: []string{WarnIndetermined}}},
	{in: "Melastoma vacillans Blume var.", canonical: "Melastoma vacillans var.", want: ParsedName{Type: NameInformal, Genus: "Melastoma", SpecificEpithet: "vacillans", Rank: RankVariety, Warnings: []string{WarnIndetermined}}},
	{in: "Lepidoptera Hooker", rank: RankSpecies, canonical: "Lepidoptera sp.", want: ParsedName{Type: NameInformal, Genus: "Lepidoptera", Rank: RankSpecies, Warnings: []string{WarnIndetermined}}},
	{in: "Lepidoptera alba DC.", rank: RankSubspecies, canonical: "Lepidoptera alba ssp.", want: ParsedName{Type: NameInformal, Genus: "Lepidoptera", SpecificEpithet: "alba", Rank: RankSubspecies, Warnings: []string{WarnIndetermined}}},
	{in: "Polygonum", rank: RankSubspecies, canonical: "Polygonum subsp.", want: ParsedName{Type: NameInformal, Genus: "Polygonum", Rank: RankSubspecies, Warnings: []string{WarnIndetermined}}},
	{in: "Polygonum alba", rank: RankGenus, canonical: "Polygonum alba", want: ParsedName{Type: NameInformal, Genus: "Polygonum", SpecificEpithet: "alba", Rank: RankGenus, Doubtful: true, Warnings: []string{WarnRankMismatch}}},
	// blacklisted and null epithets
	{in: "Abies null Hood", canonical: "Abies null", want: ParsedName{Genus: "Abies", SpecificEpithet: "null", Rank: RankSpecies, Combination: au("", "Hood"), Doubtful: true, Warnings: []string{WarnNullEpithet}}},
	{in: "Unidentified unidentified Hood", canonical: "Unidentified unidentified", want: ParsedName{Genus: "Unidentified", SpecificEpithet: "unidentified", Rank: RankSpecies, Combination: au("", "Hood"), Doubtful: true, Warnings: []string{WarnBlacklistedEpithet}}},
	{in: "Abies unidentified", canonical: "Abies unidentified", want: ParsedName{Genus: "Abies", SpecificEpithet: "unidentified", Rank: RankSpecies, Doubtful: true, Warnings: []string{WarnBlacklistedEpithet}}},
	{in: "Passiflora possible Müller", canonical: "Passiflora possible", want: ParsedName{Genus: "Passiflora", SpecificEpithet: "possible", Rank: RankSpecies, Combination: au("", "Müller"), Doubtful: true, Warnings: []string{WarnBlacklistedEpithet}}},
	{in: "Austrorhynchus pectatus null pectatus", canonical: "Austrorhynchus pectatus pectatus", want: ParsedName{Genus: "Austrorhynchus", SpecificEpithet: "pectatus", InfraspecificEpithet: "pectatus", Rank: RankInfraspecificName, Doubtful: true, Warnings: []string{WarnNullEpithet}}},
	// removed authorships
	{in: "Cynoglossus aurolineatus Not applicable", canonical: "Cynoglossus aurolineatus", want: ParsedName{Genus: "Cynoglossus", SpecificEpithet: "aurolineatus", Rank: RankSpecies, Warnings: []string{WarnAuthorshipRemoved}}},
	{in: "Asellus major Not given", canonical: "Asellus major", want: ParsedName{Genus: "Asellus", SpecificEpithet: "major", Rank: RankSpecies, Warnings: []string{WarnAuthorshipRemoved}}},
	{in: "Doradidae <Unspecified Agent>", canonical: "Doradidae", want: ParsedName{Uninomial: "Doradidae", Rank: RankUnranked, Doubtful: true, Warnings: []string{WarnAuthorshipRemoved, WarnUnusualCharacters}}},
	// taxonomic notes
	{in: "Anthurium lanceum Engl., nom. illeg., non. A. lancea.", canonical: "Anthurium lanceum", want: ParsedName{Genus: "Anthurium", SpecificEpithet: "lanceum", Rank: RankSpecies, Combination: au("", "Engl."), NomenclaturalNote: "nom.illeg.", TaxonomicNote: "non. A.lancea.", Code: CodeBotanical}},
	{in: "Achromobacter Yabuuchi and Yano, 1981 emend. Yabuuchi et al., 1998", canonical: "Achromobacter", want: ParsedName{Uninomial: "Achromobacter", Rank: RankUnranked, Combination: au("1981", "Yabuuchi", "Yano"), TaxonomicNote: "emend. Yabuuchi et al., 1998", Code: CodeZoological}},
	{in: "Centropyge fisheri (non Snyder, 1904)", canonical: "Centropyge fisheri", want: ParsedName{Genus: "Centropyge", SpecificEpithet: "fisheri", Rank: RankSpecies, TaxonomicNote: "non Snyder, 1904"}},
	{in: "Centropyge fisheri non (Snyder, 1904)", canonical: "Centropyge fisheri", want: ParsedName{Genus: "Centropyge", SpecificEpithet: "fisheri", Rank: RankSpecies, TaxonomicNote: "non (Snyder, 1904)"}},
	{in: "Centropyge fisheri (not Snyder, 1904)", canonical: "Centropyge fisheri", want: ParsedName{Genus: "Centropyge", SpecificEpithet: "fisheri", Rank: RankSpecies, TaxonomicNote: "not Snyder, 1904"}},
	{in: "Vittaria auct.", canonical: "Vittaria", want: ParsedName{Uninomial: "Vittaria", Rank: RankUnranked, TaxonomicNote: "auct."}},
	{in: "Pycnophyes Auctt., non Zelinka, 1907", canonical: "Pycnophyes", want: ParsedName{Uninomial: "Pycnophyes", Rank: RankUnranked, TaxonomicNote: "auctt., non Zelinka, 1907"}},
	{in: "Dyadobacter (Chelius & Triplett, 2000) emend. Reddy & Garcia-Pichel, 2005", canonical: "Dyadobacter", want: ParsedName{Uninomial: "Dyadobacter", Rank: RankUnranked, Basionym: au("2000", "Chelius", "Triplett"), TaxonomicNote: "emend. Reddy & Garcia-Pichel, 2005", Code: CodeZoological}},
	{in: "Thalassiosira praeconvexa Burckle emend Gersonde & Schrader, 1984", canonical: "Thalassiosira praeconvexa", want: ParsedName{Genus: "Thalassiosira", SpecificEpithet: "praeconvexa", Rank: RankSpecies, Combination: au("", "Burckle"), TaxonomicNote: "emend Gersonde & Schrader, 1984"}},
	{in: "Amphora gracilis f. exilis Gutwinski according to Hollerback & Krasavina, 1971", canonical: "Amphora gracilis f. exilis", want: ParsedName{Genus: "Amphora", SpecificEpithet: "gracilis", InfraspecificEpithet: "exilis", Rank: RankForm, Combination: au("", "Gutwinski"), TaxonomicNote: "according to Hollerback & Krasavina, 1971"}},
	{in: "Ramaria subbotrytis (Coker) Corner 1950 ss. auct. europ.", canonical: "Ramaria subbotrytis", want: ParsedName{Genus: "Ramaria", SpecificEpithet: "subbotrytis", Rank: RankSpecies, Basionym: au("", "Coker"), Combination: au("1950", "Corner"), TaxonomicNote: "ss. auct. europ.", Code: CodeZoological}},
	{in: "Thelephora cuticularis Berk. ss. auct. europ.", canonical: "Thelephora cuticularis", want: ParsedName{Genus: "Thelephora", SpecificEpithet: "cuticularis", Rank: RankSpecies, Combination: au("", "Berk."), TaxonomicNote: "ss. auct. europ."}},
	{in: "Handmannia austriaca f. elliptica Handmann fide Hustedt, 1922", canonical: "Handmannia austriaca f. elliptica", want: ParsedName{Genus: "Handmannia", SpecificEpithet: "austriaca", InfraspecificEpithet: "elliptica", Rank: RankForm, Combination: au("", "Handmann"), TaxonomicNote: "fide Hustedt, 1922"}},
	{in: "Hebeloma album Peck 1900 non ss. auct. europ.", canonical: "Hebeloma album", want: ParsedName{Genus: "Hebeloma", SpecificEpithet: "album", Rank: RankSpecies, Combination: au("1900", "Peck"), TaxonomicNote: "non ss. auct. europ.", Code: CodeZoological}},
	{in: "Nitocris (Nitocris) similis Breuning, 1956 (nec Gahan, 1893)", canonical: "Nitocris similis", want: ParsedName{Genus: "Nitocris", InfragenericEpithet: "Nitocris", SpecificEpithet: "similis", Rank: RankSpecies, Combination: au("1956", "Breuning"), TaxonomicNote: "nec Gahan, 1893", Code: CodeZoological}},
	{in: "Bartlingia Brongn. non Rchb. 1824 nec F.Muell. 1882", canonical: "Bartlingia", want: ParsedName{Uninomial: "Bartlingia", Rank: RankUnranked, Combination: au("", "Brongn."), TaxonomicNote: "non Rchb. 1824 nec F.Muell. 1882"}},
	{in: "Lindera Thunb. non Adans. 1763", canonical: "Lindera", want: ParsedName{Uninomial: "Lindera", Rank: RankUnranked, Combination: au("", "Thunb."), TaxonomicNote: "non Adans. 1763"}},
	{in: "Chorististium maculatum (non Bloch 1790)", canonical: "Chorististium maculatum", want: ParsedName{Genus: "Chorististium", SpecificEpithet: "maculatum", Rank: RankSpecies, TaxonomicNote: "non Bloch 1790"}},
	{in: "Puntius arulius subsp. tambraparniei (non Silas 1954)", canonical: "Puntius arulius subsp. tambraparniei", want: ParsedName{Genus: "Puntius", SpecificEpithet: "arulius", InfraspecificEpithet: "tambraparniei", Rank: RankSubspecies, TaxonomicNote: "non Silas 1954", Code: CodeBotanical}},
	{in: "Ficus exasperata auct. non Vahl", canonical: "Ficus exasperata", want: ParsedName{Genus: "Ficus", SpecificEpithet: "exasperata", Rank: RankSpecies, TaxonomicNote: "auct. non Vahl"}},
	{in: "Mentha rotundifolia auct. non (L.) Huds. 1762", canonical: "Mentha rotundifolia", want: ParsedName{Genus: "Mentha", SpecificEpithet: "rotundifolia", Rank: RankSpecies, TaxonomicNote: "auct. non (L.) Huds. 1762"}},
	// other
	{in: "Crassatellites janus Hedley, 1906", canonical: "Crassatellites janus", want: ParsedName{Genus: "Crassatellites", SpecificEpithet: "janus", Rank: RankSpecies, Combination: au("1906", "Hedley"), Code: CodeZoological}},
	{in: "Ypsolophus satellitella", canonical: "Ypsolophus satellitella", want: ParsedName{Genus: "Ypsolophus", SpecificEpithet: "satellitella", Rank: RankSpecies}},
	{in: "Nephodia satellites", canonical: "Nephodia satellites", want: ParsedName{Genus: "Nephodia", SpecificEpithet: "satellites", Rank: RankSpecies}},
	{in: "abies alba Mill.", canonical: "Abies alba", want: ParsedName{Genus: "Abies", SpecificEpithet: "alba", Rank: RankSpecies, Combination: au("", "Mill.")}},
}

// gbifSensu are GBIF's taxonomic note assertions (assertSensu).
var gbifSensu = []struct{ in, note string }{
	{"Vespa emarginata Linnaeus, 1758: Fabricius, 1793", "Fabricius, 1793"},
	{"Trifolium repens sensu Baker f.", "sensu Baker f."},
	{"Achillea millefolium sensu latu", "sensu latu"},
	{"Achillea millefolium s.str.", "s.str."},
	{"Achillea millefolium sec. Greuter 2009", "sec. Greuter 2009"},
	{"Globularia cordifolia L. excl. var. (emend. Lam.)", "excl. var. (emend. Lam.)"},
}

// gbifUnparsable are GBIF's assertUnparsable cases: no parts, this type.
var gbifUnparsable = []struct {
	in  string
	typ NameType
}{
	{"Amauropeltoid clade", NameInformal},
	{"Cyanobacteriota/Melainabacteria clade", NameInformal},
	{"Mollusca not assigned", NamePlaceholder},
	{"[unassigned] Cladobranchia", NamePlaceholder},
	{"Biota incertae sedis", NamePlaceholder},
	{"Unaccepted", NamePlaceholder},
	{"uncultured Verrucomicrobiales bacterium", NamePlaceholder},
	{"uncultured Vibrio sp.", NamePlaceholder},
	{"uncultured virus", NamePlaceholder},
	{"Temp dummy name", NamePlaceholder},
	{"N.N.", NamePlaceholder},
	{"N.N. (e.g., Breoghania)", NamePlaceholder},
	{"N.N. (Chitinivorax)", NamePlaceholder},
	{"N.n. (Chitinivorax)", NamePlaceholder},
	{"Gen.nov. sp.nov.", NameNoName},
	{"Gen.nov.", NameNoName},
	{"Iteaphila-group", NamePlaceholder},
	{"Bartonella group", NamePlaceholder},
	{"Asplenium rhizophyllum DC. x ruta-muraria E.L. Braun 1939", NameHybridFormula},
	{"Arthopyrenia hyalospora X Hydnellum scrobiculatum", NameHybridFormula},
	{"Arthopyrenia hyalospora (Banker) D. Hall X Hydnellum scrobiculatum D.E. Stuntz", NameHybridFormula},
	{"Arthopyrenia hyalospora × ? ", NameHybridFormula},
	{"Agrostis L. × Polypogon Desf. ", NameHybridFormula},
	{"Agrostis stolonifera L. × Polypogon monspeliensis (L.) Desf. ", NameHybridFormula},
	{"Asplenium rhizophyllum X A. ruta-muraria E.L. Braun 1939", NameHybridFormula},
	{"Asplenium rhizophyllum x ruta-muraria", NameHybridFormula},
	{"Salix aurita L. × S. caprea L.", NameHybridFormula},
	{"Mentha aquatica L. × M. arvensis L. × M. spicata L.", NameHybridFormula},
	{"Polypodium vulgare subsp. prionodes (Asch.) Rothm. × subsp. vulgare", NameHybridFormula},
	{"Tilletia caries (Bjerk.) Tul. × T. foetida (Wallr.) Liro.", NameHybridFormula},
	{"Cirsium acaulon x arvense", NameHybridFormula},
	{"Juncus effusus × inflexus", NameHybridFormula},
	{"Symphytum caucasicum x uplandicum", NameHybridFormula},
	// hybrids.txt
	{"Acer campestre x lobelii", NameHybridFormula},
	{"Epilobium lamyi x tetragonum", NameHybridFormula},
	{"Thymus pulegioides subsp. pulegioides x serpyllum subsp. serpyllum", NameHybridFormula},
	{"Symphoricarpos albus var. laevigatus x microphyllus x orbiculatus", NameHybridFormula},
	{"SH1508347.08FU", NameOTU},
	{"SH19186714.17FU", NameOTU},
	{"SH191814.08FU", NameOTU},
	{"BOLD:ACW2100", NameOTU},
	{"non  Ramaria fagetorum Maas Geesteranus 1976 nomen nudum = Ramaria subbotrytis sensu auct. europ.", NameNoName},
	{"Basal_Cryptophyceae-1", NameNoName},
	// empty() and avoidNPE()
	{"", NameNoName}, {" ", NameNoName}, {"\t", NameNoName}, {"\n", NameNoName}, {"\t\n", NameNoName},
	{"\"", NameNoName}, {"'", NameNoName}, {"\\", NameNoName}, {".", NameNoName}, {"@", NameNoName},
	{"&nbsp;", NameNoName}, {"X", NameNoName}, {"a", NameNoName}, {"-,.#", NameNoName}, {" .", NameNoName},
	// nonames.txt
	{"@23546", NameNoName}, {"tobedeleted", NameNoName}, {"tobedeleted , 1999", NameNoName},
	{"Scelotes tobedeleted , 1999", NameNoName}, {"Microdus (Therophilus) (delete) , 1999", NameNoName},
	{"delete exaratus [DELETE] [none], 1999 sec. [none]", NameNoName},
	// placeholder.txt
	{"Poa indeterminate", NamePlaceholder}, {"Pezizomycotina, ordines incertae sedis", NamePlaceholder},
	{"Ascomycota, families incertae sedis", NamePlaceholder}, {"Oxypoda ((incertae sedis)) inimica Casey, 1911", NamePlaceholder},
	{"Undescribed genus", NamePlaceholder}, {"? unclassed", NamePlaceholder},
	// viral names (viralNames() and a selection of viruses.txt)
	{"Cactus virus 2", NameVirus}, {"Vibrio phage 149 (type IV)", NameVirus}, {"Suid herpesvirus 3 Ictv", NameVirus},
	{"Tomato yellow leaf curl Mali virus Ictv", NameVirus}, {"Not Sapovirus MC10", NameVirus},
	{"Diolcogaster facetosa bracovirus", NameVirus}, {"Human papillomavirus", NameVirus},
	{"Sapovirus Hu/GI/Nsc, 150/PA/Bra/, 1993", NameVirus}, {"Aspergillus mycovirus, 1816", NameVirus},
	{"Hantavirus sdp2 Yxl-, 2008", NameVirus}, {"Norovirus Nizhny Novgorod /, 2461 / Rus /, 2007", NameVirus},
	{"Carrot carlavirus WM-, 2008", NameVirus}, {"C2-like viruses", NameVirus}, {"C1 bacteriophage", NameVirus},
	{"C-terminal Gfp fusion vector pUG23", NameVirus}, {"C-terminal Gfp fusion vector", NameVirus},
	{"CMVd3 Flexi Vector pFN24K (HaloTag 7)", NameVirus}, {"bacteriophage, 315.6", NameVirus},
	{"bacteriophages", NameVirus}, {"\"T1-like viruses\"", NameVirus}, {"Inachis io NPV", NameVirus},
	{"Hyloicus pinastri NPV", NameVirus}, {"Dictyoploca japonica NPV", NameVirus}, {"Apocheima pilosaria NPV", NameVirus},
	{"Lymantria xylina NPV", NameVirus}, {"Feltia subterranea GV", NameVirus}, {"Dionychopus amasis GV", NameVirus},
	{"Gossypium mustilinum symptomless alphasatellite", NameVirus}, {"Okra leaf curl Mali alphasatellites-Cameroon", NameVirus},
	{"Bemisia betasatellite LW-2014", NameVirus}, {"Intracisternal A-particles", NameVirus},
	{"Saccharomyces cerevisiae killer particle M1", NameVirus}, {"Spodoptera frugiperda MNPV", NameVirus},
	{"Rachiplusia ou MNPV (strain R1)", NameVirus}, {"Helicoverpa armigera SNPV NNg1", NameVirus},
	{"Zamilon virophage", NameVirus}, {"Sputnik virophage 3", NameVirus}, {"beta satellites", NameVirus},
	{"Heterosigma akashiwo RNA virus", NameVirus}, {"Abaca bunchy top virus", NameVirus},
}

// gbifOTUIDs are OTU identifiers GBIF returns upper-cased.
var gbifOTUIDs = []struct{ in, id string }{
	{" BOLD:ACW2100 ", "BOLD:ACW2100"},
	{"Festuca sp. BOLD:ACW2100", "BOLD:ACW2100"},
	{"sh460441.07fu", "SH460441.07FU"},
}

func TestParseGBIFCases(t *testing.T) {
	for _, c := range gbifNames {
		n := Parse(c.in, c.rank, c.code)
		if got := n.CanonicalName(); got != c.canonical {
			t.Errorf("%q: canonical %q, want %q", c.in, got, c.canonical)
		}
		w := c.want
		if w.Type == NameNoName {
			w.Type = NameScientific
		}
		got := *n
		got.Verbatim = ""
		if !slices.Equal(sortedCopy(got.Warnings), sortedCopy(w.Warnings)) {
			t.Errorf("%q: warnings %q, want %q", c.in, got.Warnings, w.Warnings)
		}
		got.Warnings, w.Warnings = nil, nil
		normAuth(&got.Combination)
		normAuth(&got.Basionym)
		normAuth(&w.Combination)
		normAuth(&w.Basionym)
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%q:\n got  %s\n want %s", c.in, dumpName(&got), dumpName(&w))
		}
	}
}

func TestParseGBIFSensu(t *testing.T) {
	for _, c := range gbifSensu {
		if got := Parse(c.in, RankUnknown, CodeUnknown).TaxonomicNote; got != c.note {
			t.Errorf("%q: taxonomic note %q, want %q", c.in, got, c.note)
		}
	}
}

func TestParseGBIFUnparsable(t *testing.T) {
	for _, c := range gbifUnparsable {
		n := Parse(c.in, RankUnknown, CodeUnknown)
		if n.Type != c.typ || n.Parsed() {
			t.Errorf("%q: type %s (parsed %v), want unparsed %s: %s", c.in, n.Type, n.Parsed(), c.typ, dumpName(n))
		}
	}
	for _, c := range gbifOTUIDs {
		n := Parse(c.in, RankUnknown, CodeUnknown)
		if n.Type != NameOTU || n.Verbatim != c.id {
			t.Errorf("%q: %s %q, want OTU %q", c.in, n.Type, n.Verbatim, c.id)
		}
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// normAuth makes empty author lists nil for comparison.
func normAuth(a *Authorship) {
	if len(a.Authors) == 0 {
		a.Authors = nil
	}
	if len(a.ExAuthors) == 0 {
		a.ExAuthors = nil
	}
}

// dumpName prints a parse for test messages.
func dumpName(n *ParsedName) string {
	var b strings.Builder
	fmt.Fprintf(&b, "type=%s rank=%s code=%s", n.Type, n.Rank, n.Code)
	add := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%q", k, v)
		}
	}
	add("uni", n.Uninomial)
	add("genus", n.Genus)
	add("infragen", n.InfragenericEpithet)
	add("sp", n.SpecificEpithet)
	add("infrasp", n.InfraspecificEpithet)
	add("cv", n.CultivarEpithet)
	add("phrase", n.Phrase)
	if !n.Combination.Empty() {
		fmt.Fprintf(&b, " comb=%q/%q/%q", n.Combination.Year, n.Combination.Authors, n.Combination.ExAuthors)
	}
	if !n.Basionym.Empty() {
		fmt.Fprintf(&b, " bas=%q/%q/%q", n.Basionym.Year, n.Basionym.Authors, n.Basionym.ExAuthors)
	}
	add("sanct", n.SanctioningAuthor)
	add("sensu", n.TaxonomicNote)
	add("nom", n.NomenclaturalNote)
	add("pub", n.PublishedIn)
	add("unparsed", n.Unparsed)
	if n.Notho != PartNone {
		add("notho", n.Notho.String())
	}
	if n.Qualifier != "" {
		add("qual", n.QualifierPart.String()+":"+n.Qualifier)
	}
	for _, f := range []struct {
		k string
		v bool
	}{{"extinct", n.Extinct}, {"doubtful", n.Doubtful}, {"ms", n.Manuscript}, {"sic", n.Sic}, {"corrig", n.Corrig}, {"candidatus", n.Candidatus}} {
		if f.v {
			b.WriteString(" " + f.k)
		}
	}
	if len(n.Warnings) > 0 {
		fmt.Fprintf(&b, " warn=%q", n.Warnings)
	}
	fmt.Fprintf(&b, " | canon=%q min=%q", n.CanonicalName(), n.CanonicalMinimal())
	return b.String()
}
