package taxonomy

import (
	"context"
	"sync"
	"testing"
)

// These cases are facts from GBIF's backbone matcher tests: the name, the
// classification given, the backbone key GBIF's matcher returns and its
// confidence range, re-typed from gbif/checklistbank
// checklistbank-nub/src/test/java/org/gbif/nub/lookup/fuzzy/NubMatchingServiceImplIT.java
// at commit 5428d048dd1f24b1c38e13bec9adbe508365b904. They run against
// testdata/gbif-backbone-cut.zip, the same backbone usages GBIF's test
// index holds (testdata/SOURCES.md). Cases that need GBIF's IPNI author
// map, its higher-taxon synonym dictionaries or usage exclusion are not
// taken (see docs/taxonomy.md).
type gbifMatchCase struct {
	test   string
	name   string
	rank   string
	cls    Query
	key    int64 // 0: no match
	typ    MatchType
	lo, hi int // confidence range; 0, 0: any
}

var (
	animalia = Query{Kingdom: "Animalia"}
	plantae  = Query{Kingdom: "Plantae"}
)

var gbifMatches = []gbifMatchCase{
	{test: "testMatching", name: "Anephlus", key: 1100135, lo: 92, hi: 95},
	{test: "testMatching", name: "Aneplus", key: 1100050, lo: 90, hi: 95},
	{test: "testMatching", name: "Aneplus", cls: Query{Kingdom: "Animalia", Class: "Insecta"}, key: 1100050, lo: 97, hi: 100},
	{test: "testMatching", name: "Aneplus", cls: Query{Kingdom: "Animalia", Class: "Diplopoda", Order: "Spirobolida"}, key: 1027792, lo: 90, hi: 99},
	{test: "testMatching", name: "Aneplus", cls: Query{Kingdom: "Animalia", Class: "Diplopoda", Order: "Spirobolida", Family: "Atopetholidae"}, key: 1027792, lo: 98, hi: 100},
	// GBIF's test index lacks the family Atopetholidae, which the cut holds
	// (it has the higher taxa of the classifications): GBIF matches the
	// kingdom, 1, the cut the family
	{test: "testMatching", name: "Anmeplues", cls: Query{Kingdom: "Animalia", Class: "Diplopoda", Order: "Spirobolida", Family: "Atopetholidae"}, key: 8252, typ: MatchHigherRank, lo: 90, hi: 100},
	{test: "testMatching", name: "Anmeplues"},
	{test: "testBadPlantKingdom", name: "Sabia parviflora", key: 7268473, lo: 96, hi: 100},
	{test: "testBadPlantKingdom", name: "Sabiaceae", key: 2409, lo: 90, hi: 100},
	{test: "testBadPlantKingdom", name: "Sabia parviflora", cls: Query{Kingdom: "Plantae", Family: "Sabiaceae"}, key: 2409, lo: 80, hi: 100},
	{test: "testBadPlantKingdom", name: "Tibetia tongolensis", key: 7301567, lo: 96, hi: 100},
	{test: "testBadPlantKingdom", name: "Fabaceae", key: 5386, lo: 90, hi: 100},
	{test: "testBadPlantKingdom", name: "Tibetia tongolensis", cls: Query{Kingdom: "Plantae", Family: "Fabaceae"}, key: 5386, lo: 80, hi: 100},
	{test: "testHomonyms", name: "Oenanthe"},
	{test: "testHomonyms", name: "Oenanthe", cls: animalia, key: 2492483, lo: 96, hi: 99},
	{test: "testHomonyms", name: "Oenanthe", cls: plantae, key: 3034893, lo: 96, hi: 99},
	{test: "testHomonyms", name: "Oenante", cls: plantae, key: 3034893, lo: 84, hi: 95},
	{test: "testHomonyms", name: "Acanthophora"},
	{test: "testHomonyms", name: "Acanthophora", cls: animalia, key: 1, lo: 95, hi: 96},
	{test: "testHomonyms", name: "Acanthophora", cls: Query{Kingdom: "Animalia", Phylum: "Porifera"}, key: 3251480, lo: 97, hi: 99},
	{test: "testHomonyms", name: "Acanthophora", cls: Query{Kingdom: "Plantae", Phylum: "Porifera"}, key: 6, lo: 90, hi: 95},
	{test: "testHomonyms", name: "Acanthophora", cls: Query{Kingdom: "Plantae", Phylum: "Porifera", Family: "Araliaceae"}, key: 3036337, lo: 98, hi: 100},
	{test: "testHomonyms", name: "Acantophora", cls: Query{Kingdom: "Plantae", Phylum: "Porifera", Family: "Araliaceae"}, key: 3036337, lo: 90, hi: 95},
	{test: "testHomonyms", name: "Acanthophora", cls: Query{Kingdom: "Plantae", Phylum: "Porifera", Family: "Rhodomelaceae"}, key: 2659277, lo: 97, hi: 100},
	{test: "testHomonyms", name: "Puma concolor", key: 2435099, lo: 98, hi: 100},
	{test: "testHomonyms", name: "P. concolor", cls: Query{Genus: "Puma"}, key: 2435099, lo: 98, hi: 100},
	{test: "testHomonyms", name: "P. concolor", cls: Query{Kingdom: "Animalia", Genus: "Puma"}, key: 2435099, lo: 99, hi: 100},
	{test: "testHomonyms", name: "Puma concolor", cls: Query{Kingdom: "Pllllaaaantae", Genus: "Puma"}, key: 2435099, lo: 95, hi: 100},
	{test: "testHomonyms", name: "Puma concolor", cls: Query{Kingdom: "Plantae", Genus: "Puma"}, key: 6, lo: 95, hi: 100},
	{test: "testHomonyms", name: "Pima concolor", cls: Query{Kingdom: "Plantae", Genus: "Puma"}, key: 6},
	{test: "testHomonyms", name: "Pica concolor", cls: Query{Kingdom: "Plantae", Genus: "Puma"}, key: 5284657, lo: 85, hi: 90},
	{test: "testHomonyms", name: "Pima concolor", cls: Query{Kingdom: "Plantae", Genus: "Puma", Family: "Pinaceae"}, key: 3925, lo: 90, hi: 100},
	{test: "testHomonyms", name: "Amphibia eyecount"},
	{test: "testHomonyms", name: "Amphibia eyecount", cls: Query{Kingdom: "Plantae", Class: "Rhodophyceae"}, key: 2659299, lo: 90, hi: 99},
	{test: "testHomonyms", name: "Amphibia eyecount", cls: Query{Kingdom: "Animalia", Class: "Amphibia"}, key: 131, lo: 98, hi: 100},
	{test: "testHomonyms2", name: "Elytrigia repens", cls: Query{Kingdom: "Plantae", Family: "Poaceae"}, key: 2706649, lo: 92, hi: 100},
	{test: "testHomonyms3", name: "Siphonophora", key: 1, lo: 90, hi: 100},
	{test: "testAuthorshipMatching2", name: "Prunella alba", key: 5608009, lo: 98, hi: 100},
	{test: "testAuthorshipMatching2", name: "Prunella alba Pall. ex M.Bieb.", key: 5608009, lo: 100, hi: 100},
	{test: "testAuthorshipMatching2", name: "Prunella alba M.Bieb.", key: 5608009, lo: 100, hi: 100},
	{test: "testAuthorshipMatching2", name: "Prunella alba Pall.", key: 5608009, lo: 80, hi: 90},
	{test: "testAuthorshipMatching2", name: "Prunella alba Döring", key: 5608009, lo: 80, hi: 90},
	{test: "testAuthorshipMatching2", name: "Elytrigia repens", key: 2706649, lo: 92, hi: 98},
	{test: "testAuthorshipMatching2", name: "Elytrigia repens Desv.", key: 7522774, lo: 98, hi: 100},
	{test: "testAuthorshipMatching2", name: "Elytrigia repens Nevski", key: 2706649, lo: 98, hi: 100},
	{test: "testAuthorshipMatching2", name: "Elytrigia repens (L.) Desv.", key: 7522774, lo: 100, hi: 100},
	{test: "testAuthorshipMatching2", name: "Elytrigia repens (L.) Nevski", key: 2706649, lo: 100, hi: 100},
	{test: "testAuthorshipMatching2", name: "Elytrigia repens Karimba", key: 7826764, typ: MatchHigherRank},
	{test: "testAuthorshipMatching2", name: "Elytrigia repens (L.) Karimba", key: 2706649, lo: 80, hi: 90},
	{test: "GIASIP", name: "Bromus sterilis", key: 8341523, lo: 95, hi: 99},
	{test: "GIASIP", name: "Bromus sterilis Guss.", key: 8341523, lo: 99, hi: 100},
	{test: "GIASIP", name: "Bromus sterilis Gus", key: 8341523, lo: 98, hi: 100},
	{test: "GIASIP", name: "Bromus sterilis L.", key: 2703647, lo: 98, hi: 100},
	{test: "GIASIP", name: "Bromus sterilis Linne", key: 2703647, lo: 98, hi: 100},
	{test: "GIASIP", name: "Bromus sterilis Kumm. & Sendtn.", key: 7874095, lo: 98, hi: 100},
	{test: "GIASIP", name: "Bromus sterilis Kumm", key: 7874095, lo: 98, hi: 100},
	{test: "GIASIP", name: "Bromus sterilis Sendtn.", key: 7874095, lo: 98, hi: 100},
	{test: "GIASIP", name: "Daphnia", key: 2234785, lo: 90, hi: 95},
	{test: "GIASIP", name: "Daphnia Müller, 1785", key: 2234785, lo: 96, hi: 100},
	{test: "GIASIP", name: "Daphnia Müller", key: 2234785, lo: 94, hi: 98},
	{test: "GIASIP", name: "Daphne Müller, 1785", key: 2234879, lo: 95, hi: 98},
	{test: "GIASIP", name: "Daphne Müller, 1776", key: 2234879, lo: 96, hi: 100},
	{test: "GIASIP", name: "Daphnia Korth", key: 7956551, lo: 86, hi: 94},
	{test: "GIASIP", name: "Daphnia Korth", cls: Query{Kingdom: "Plantae", Family: "Oxalidaceae"}, key: 3626852, lo: 96, hi: 100},
	{test: "GIASIP", name: "Daphnia Rafinesque", key: 7956551, lo: 88, hi: 94},
	{test: "GIASIP", name: "Daphnia Rafinesque", cls: Query{Kingdom: "Animalia", Family: "Calanidae"}, key: 4333792, lo: 98, hi: 100},
	{test: "GIASIP", name: "Carpobrotus edulis", key: 3084842, lo: 95, hi: 99},
	{test: "GIASIP", name: "Carpobrotus edulis N. E. Br.", key: 3084842, lo: 98, hi: 100},
	{test: "GIASIP", name: "Carpobrotus edulis L.Bolus", key: 7475472, lo: 95, hi: 100},
	{test: "GIASIP", name: "Carpobrotus edulis Bolus", key: 7475472, lo: 95, hi: 100},
	{test: "GIASIP", name: "Carpobrotus dulcis Bolus", key: 3703510, lo: 95, hi: 100},
	{test: "GIASIP", name: "Carpobrotus edulis", cls: Query{Kingdom: "Plantae", Family: "Celastraceae"}, key: 3084842, lo: 92, hi: 98},
	{test: "GIASIP", name: "Celastrus orbiculatus", key: 8104460, lo: 95, hi: 99},
	{test: "GIASIP", name: "Celastrus orbiculatus Murray", key: 8104460, lo: 98, hi: 100},
	{test: "GIASIP", name: "Celastrus orbiculatus Thunb", key: 3169169, lo: 98, hi: 100},
	{test: "GIASIP", name: "Celastrus orbiculatus Lam", key: 7884995, lo: 98, hi: 100},
	{test: "GIASIP", name: "Python molurus subsp. bivittatus", key: 6162891, lo: 98, hi: 100},
	{test: "GIASIP", name: "Python molurus bivittatus", key: 6162891, lo: 98, hi: 100},
	{test: "GIASIP", name: "Python molurus bivittatus Kuhl", key: 6162891, lo: 98, hi: 100},
	{test: "GIASIP", name: "Python molurus subsp. bibittatus", key: 4287608, lo: 97, hi: 100},
	{test: "GIASIP", name: "Ziziphus mauritiana orthacantha", key: 7786586, lo: 95, hi: 98},
	{test: "GIASIP", name: "Ziziphus mauritiana ssp. orthacantha", key: 7786586, lo: 97, hi: 100},
	{test: "GIASIP", name: "Ziziphus mauritiana ssp. orthacantha Chev.", key: 7786586, lo: 98, hi: 100},
	{test: "GIASIP", name: "Ziziphus mauritiana var. orthacantha", key: 8068734, lo: 97, hi: 100},
	{test: "GIASIP", name: "Ziziphus mauritiana var. orthacantha Chev.", key: 8068734, lo: 98, hi: 100},
	{test: "GIASIP", name: "Solanum verbascifolium auriculatum", key: 2930718, lo: 95, hi: 98},
	{test: "GIASIP", name: "Solanum verbascifolium ssp. auriculatum", key: 2930718, lo: 95, hi: 99},
	{test: "GIASIP", name: "Solanum verbascifolium var. auriculatum Kuntze", key: 8363606, lo: 98, hi: 100},
	{test: "GIASIP", name: "Solanum verbascifolium var. auriculatum Maiden", key: 6290014, lo: 98, hi: 100},
	{test: "GIASIP", name: "Solanum verbascifolium var. auriculatum", key: 6290014, lo: 94, hi: 98},
	{test: "testOtuMatching", name: "SH205817.07FU", key: 9732858, lo: 95, hi: 100},
	{test: "testOtuMatching", name: "BOLD:AAX3687", key: 993172099, lo: 95, hi: 100},
	{test: "testOtuMatching", name: "SH021315.07FU", key: 993730906, lo: 95, hi: 100},
	{test: "testOtuMatching", name: "bold:aax3687", cls: Query{Family: "Maldanidae"}, key: 993172099, lo: 95, hi: 100},
	{test: "testOtuMatching", name: "BOLD:AAX3688", cls: Query{Family: "Maldanidae"}},
	{test: "testOtuMatching", name: "BOLD:AAY3687", cls: Query{Family: "Maldanidae"}},
	{test: "testOtuMatching", name: "COLD:AAX3687", cls: Query{Family: "Maldanidae"}},
	{test: "testOtuMatching", name: "AAX3687", cls: Query{Family: "Maldanidae"}},
	{test: "testViruses", name: "Inachis io", key: 5881450, lo: 92, hi: 100},
	{test: "testViruses", name: "Inachis io (Linnaeus)", key: 5881450, lo: 95, hi: 100},
	{test: "testViruses", name: "Inachis io NPV", key: 8562651, lo: 95, hi: 100},
	{test: "testViruses", name: "Dionychopus amasis GV", key: 6876449, lo: 95, hi: 100},
	{test: "testViruses", name: "Dionychopus amasis", key: 4689754, lo: 90, hi: 100},
	{test: "testViruses", name: "Dionychopus amasis", cls: Query{Kingdom: "Virus"}},
	// the cut holds a second plant genus Linaria, 8019465, from the
	// classifications, which GBIF's test index lacks: two equal genera make
	// the genus match too weak, and the family given is matched
	{test: "testPOR2704", name: "Linaria pedunculata (L.) Chaz.", cls: Query{Kingdom: "Plantae", Family: "Scrophulariaceae"}, key: 2390, typ: MatchHigherRank, lo: 90, hi: 100},
	{test: "testClassificationWithAuthors", name: "Toninia aromatica", cls: Query{Kingdom: "Fungi Bartling, 1830", Phylum: "Ascomycota Caval.-Sm., 1998",
		Class: "Lecanoromycetes, O.E. Erikss. & Winka, 1997", Order: "Lecanorales, Nannf., 1932", Family: "Ramalinaceae, C. Agardh, 1821", Genus: "Toninia"}, key: 2608009, lo: 96, hi: 100},
	{test: "testPOR1712", name: "Quedius caseyi divergens", cls: Query{Kingdom: "Animalia", Phylum: "Arthropoda", Class: "Hexapoda", Family: "Staphylinidae", Genus: "Quedius"}, key: 4290501, lo: 90, hi: 100},
	{test: "testPOR2701", name: "Panthera pardus ssp.", cls: Query{Phylum: "Chordata", Class: "Mammalia", Order: "Carnivora", Family: "Felidae", Genus: "Panthera"}, key: 5219436, lo: 98, hi: 100},
	{test: "testPOR2684", name: "Brunella alba Pallas ex Bieb.", cls: Query{Kingdom: "Plantae", Family: "Labiatae", Genus: "Brunella"}, key: 6008586, lo: 96, hi: 100},
	{test: "testPOR2469", name: "Eirone neocaledonica Williams", cls: Query{Kingdom: "Animalia", Phylum: "Arthropoda", Class: "Insecta", Order: "Hymenoptera", Family: "Tiphiidae", Genus: "Eirone"}, key: 4674090, lo: 90, hi: 100},
	{test: "testFeedback1379", name: "iberus gualtieranus", cls: Query{Family: "Helicidae"}, key: 4564258, lo: 95, hi: 100},
	{test: "testFeedback1379", name: "Iberus gualterianus", cls: Query{Family: "Helicidae"}, key: 4564258, lo: 98, hi: 100},
	{test: "testPOR2607", name: "Oreina", cls: Query{Kingdom: "Animalia", Family: "Chrysomelidae"}, key: 6757727, lo: 95, hi: 100},
	{test: "testPOR2607", name: "Oreina elegans", cls: Query{Kingdom: "Animalia", Family: "Chrysomelidae"}, key: 6757727, lo: 90, hi: 100},
	{test: "testPOR2607", name: "Oreina", cls: Query{Kingdom: "Animalia", Phylum: "Arthropoda", Class: "Insecta", Order: "Coleoptera", Family: "Chrysomelidae"}, key: 6757727, lo: 98, hi: 100},
	{test: "testPOR2607", name: "Oreina elegans", cls: Query{Kingdom: "Animalia", Phylum: "Arthropoda", Class: "Insecta", Order: "Coleoptera", Family: "Chrysomelidae"}, key: 6757727, typ: MatchHigherRank},
	{test: "testIndet", name: "Peperomia induta", key: 4189260, lo: 95, hi: 100},
	{test: "testIndet", name: "Peperomia indet", key: 3086367},
	{test: "testIndet", name: "Asteraceae indet.", key: 3065, lo: 92, hi: 100},
	{test: "testIndet", name: "Trametes indet.", key: 2519084, lo: 92, hi: 100},
	{test: "testIndet", name: "Trametes spec.", cls: Query{Kingdom: "Fungi", Phylum: "Basidiomycota", Class: "Agaricomycetes"}, key: 2519084, lo: 92, hi: 100},
	{test: "testIndet", name: "Trametes indet.", cls: Query{Kingdom: "Fungi", Phylum: "Basidiomycota", Class: "Agaricomycetes"}, key: 2519084, lo: 92, hi: 100},
	{test: "testBlogNames", name: "Xysticus sp.", key: 2164999, typ: MatchHigherRank},
	{test: "testBlogNames", name: "Xysticus spec.", key: 2164999, typ: MatchHigherRank},
	{test: "testBlogNames", name: "Triodia sp.", cls: Query{Family: "Poaceae", Genus: "Triodia"}, key: 2702695},
	{test: "testBlogNames", name: "Xyris kralii Wand.", cls: Query{Kingdom: "Plantae", Family: "XYRIDACEAE", Genus: "Xyris"}, key: 2692599, typ: MatchHigherRank},
	{test: "testBlogNames", name: "Zea mays subsp. parviglumis var. huehuet Iltis & Doebley", cls: Query{Kingdom: "Plantae", Family: "GRAMINEAE"}, key: 5290052, lo: 98, hi: 100},
	{test: "testImprovedMatching", name: "Zabidius novemaculeatus", key: 2394331, lo: 98, hi: 100},
	{test: "testImprovedMatching", name: "Zabideus novemaculeatus", key: 2394331, lo: 75, hi: 85},
	{test: "testImprovedMatching", name: "Zabidius novemaculeatus", cls: Query{Family: "Ephippidae"}, key: 2394331, lo: 98, hi: 100},
	{test: "testImprovedMatching", name: "Zabidius novaemaculeatus", cls: Query{Family: "Ephippidae"}, key: 2394331, lo: 90, hi: 100},
	{test: "testImprovedMatching", name: "Zabidius novaemaculeata", cls: Query{Family: "Ephippidae"}, key: 2394331, lo: 90, hi: 100},
	{test: "testImprovedMatching", name: "Zabideus novemaculeatus", cls: Query{Family: "Ephippidae"}, key: 2394331, typ: MatchFuzzy, lo: 85, hi: 95},
	{test: "testImprovedMatching", name: "Yoldia bronni", cls: Query{Kingdom: "Animalia", Family: "Yoldiidae"}, key: 2285488, lo: 98, hi: 100},
	{test: "testImprovedMatching", name: "Yoldia frate", cls: Query{Kingdom: "Animalia", Family: "Nuculanidae"}, key: 2285488, lo: 90, hi: 95},
	{test: "testIberusGualtieranus", name: "Iberus gualterianus minor Serradell", key: 4564258, lo: 90, hi: 99},
	{test: "testIberusGualtieranus", name: "Iberus gualterianus minor Serradell", cls: Query{Family: "Helicidae"}, key: 4564258, lo: 95, hi: 100},
	{test: "higherOverFuzzy", name: "Stolas costaricensis", key: 4734997, typ: MatchHigherRank, lo: 90, hi: 99},
	{test: "higherOverFuzzy", name: "Stolas costaricensis", cls: Query{Kingdom: "Animalia", Phylum: "Arthropoda", Class: "Insecta"}, key: 1334265, typ: MatchFuzzy, lo: 90, hi: 99},
	{test: "higherOverFuzzy", name: "Stolas costaricensis", cls: Query{Kingdom: "Animalia", Phylum: "Arthropoda", Class: "Insecta", Order: "Coleoptera", Family: "Chrysomelidae"}, key: 4734997, typ: MatchHigherRank, lo: 95, hi: 100},
	{test: "subgenusJacea", name: "Centaurea subg. Jacea", cls: plantae, key: 3148240, typ: MatchExact},
	{test: "mycenaFllavoalba", name: "Mycena flavoalba (Fr.) Quel.", cls: Query{Kingdom: "Fungi", Phylum: "Basidiomycota", Class: "Agaricomycetes", Order: "Agaricales", Family: "Mycenaceae", Genus: "Mycena"}, key: 4911770, typ: MatchExact},
	{test: "mycenaFllavoalba", name: "Mycena flavoalba (Fr.) Quél.", cls: Query{Kingdom: "Fungi", Phylum: "Basidiomycota", Class: "Agaricomycetes", Order: "Agaricales", Family: "Mycenaceae", Genus: "Mycena"}, key: 4911770, typ: MatchExact},
	{test: "merganser", name: "Mergus merganser Linnaeus, 1758", key: 2498370, typ: MatchExact},
	{test: "merganser", name: "MERGUS MERGANSER", key: 2498370, typ: MatchExact},
	{test: "otuIncasitive", name: "AAA536-G10 sp003284565", key: 10701019, typ: MatchExact},
	{test: "otuIncasitive", name: "aaa536-g10 sp003284565", key: 10701019, typ: MatchExact},
	{test: "otuIncasitive", name: "Aaa536-g10 sp003284565", key: 10701019, typ: MatchExact},
	{test: "npe", name: ""},
	{test: "npe", name: "null"},
	{test: "dinosaura", name: "Dinosauria", rank: "CLASS", cls: Query{Kingdom: "Animalia", Phylum: "Chordata", Class: "Reptilia"}, key: 358, typ: MatchHigherRank},
	{test: "dinosaura", name: "Dinosauria", rank: "GENUS", cls: Query{Kingdom: "Animalia", Phylum: "Chordata", Class: "Reptilia"}, key: 4819911, typ: MatchFuzzy},
	{test: "dinosaura", name: "Dinosaura", rank: "GENUS", cls: Query{Kingdom: "Animalia", Phylum: "Chordata", Class: "Reptilia"}, key: 4819911, typ: MatchExact},
	{test: "testCommonHigherDenomiator", name: "Jaspidia deceptoria Scopoli, 1763", rank: "FAMILY", cls: animalia, key: 7015, typ: MatchHigherRank},
	{test: "testAuthorBrackets", name: "Eristalis lineata Harris, 1776", rank: "SPECIES", cls: animalia, key: 7834133, typ: MatchExact},
	{test: "testAuthorBrackets", name: "Eristalis lineata (Harris, 1776)", rank: "SPECIES", cls: animalia, key: 7834133, typ: MatchExact},
	{test: "aggregates", name: "Clusiodes melanostomus", rank: "SPECIES", cls: Query{Kingdom: "Animalia", Order: "Diptera", Family: "Clusiidae"}, key: 4295121, typ: MatchExact},
	{test: "aggregates", name: "Clusiodes melanostomus", rank: "SPECIES_AGGREGATE", cls: Query{Kingdom: "Animalia", Order: "Diptera", Family: "Clusiidae"}, key: 1550465, typ: MatchHigherRank},
}

var backboneOnce struct {
	sync.Once
	c   *Checklist
	err error
}

// backbone loads testdata/gbif-backbone-cut.zip once per test binary.
func backbone(t testing.TB) *Checklist {
	backboneOnce.Do(func() {
		dir, err := tempDirOutsideTest()
		if err != nil {
			backboneOnce.err = err
			return
		}
		if _, err := Load(context.Background(), dir, "testdata/gbif-backbone-cut.zip", LoadOptions{}); err != nil {
			backboneOnce.err = err
			return
		}
		backboneOnce.c, backboneOnce.err = Open(dir)
	})
	if backboneOnce.err != nil {
		t.Fatal(backboneOnce.err)
	}
	return backboneOnce.c
}

func TestMatchGBIFCases(t *testing.T) {
	c := backbone(t)
	failed := 0
	for _, tc := range gbifMatches {
		q := tc.cls
		q.ScientificName, q.Rank = tc.name, tc.rank
		m, err := c.Match(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		if m.Usage != nil {
			got = m.Usage.Key
		}
		ok := got == tc.key
		if tc.key == 0 {
			ok = ok && m.Type == MatchNone
		} else if tc.typ != MatchNone {
			ok = ok && m.Type == tc.typ
		} else {
			ok = ok && m.Type != MatchNone
		}
		if tc.hi > 0 && (m.Confidence < tc.lo || m.Confidence > tc.hi) {
			ok = false
		}
		if !ok {
			failed++
			name := ""
			if m.Usage != nil {
				name = m.Usage.ScientificName
			}
			t.Errorf("%s: %q %+v: got %d %q %s %d (%s), want %d %s %d-%d", tc.test, tc.name, tc.cls, got, name, m.Type, m.Confidence, m.Note, tc.key, tc.typ, tc.lo, tc.hi)
		}
	}
	t.Logf("%d of %d GBIF match cases pass", len(gbifMatches)-failed, len(gbifMatches))
}
