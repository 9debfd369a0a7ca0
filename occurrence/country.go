package occurrence

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
	"golang.org/x/text/unicode/norm"
)

// countryIndex maps normalized country names and ISO 3166-1 alpha-2/alpha-3
// codes to the alpha-2 code. Names come from CLDR (English, and each country's
// own main language) plus common variants seen in biodiversity data.
var countryIndex = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	en := display.English.Regions()
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			r, err := language.ParseRegion(code)
			if err != nil || !r.IsCountry() || r.String() != code {
				continue
			}
			// A withdrawn code (ZR, BU, TP, UK...) stands for its
			// successor (CD, MM, TL, GB), whose name CLDR gives it too:
			// indexed as itself, it would also take the successor's name
			// when iterated after it ("Congo - Kinshasa" was ZR).
			target := r.Canonicalize().String()
			m[code] = target
			m[strings.ToUpper(r.ISO3())] = target
			m[normName(en.Name(r))] = target
			if tag, err := language.Compose(language.Und, r); err == nil {
				base, _ := tag.Base()
				if namer := display.Regions(language.Make(base.String())); namer != nil {
					if local := namer.Name(r); local != "" {
						m[normName(local)] = target
					}
				}
			}
		}
	}
	for name, code := range countryAliases {
		m[normName(name)] = code
	}
	return m
})

// countryAliases are names seen in real data that CLDR does not give.
var countryAliases = map[string]string{
	"USA": "US", "U.S.A.": "US", "United States of America": "US", "America": "US",
	"UK": "GB", "Great Britain": "GB", "England": "GB", "Scotland": "GB", "Wales": "GB",
	"Northern Ireland": "GB", "Russia": "RU", "Russian Federation": "RU",
	"Czech Republic": "CZ", "Czechia": "CZ", "Holland": "NL", "The Netherlands": "NL",
	"Ivory Coast": "CI", "Côte d'Ivoire": "CI", "Cote d'Ivoire": "CI",
	"Democratic Republic of the Congo": "CD", "DR Congo": "CD", "Zaire": "CD",
	"Republic of the Congo": "CG", "Congo": "CG", "Burma": "MM", "Myanmar": "MM",
	"Persia": "IR", "Iran": "IR", "Syria": "SY", "Laos": "LA", "Vietnam": "VN",
	"Viet Nam": "VN", "South Korea": "KR", "Korea, Republic of": "KR", "North Korea": "KP",
	"Tanzania": "TZ", "Bolivia": "BO", "Venezuela": "VE", "Moldova": "MD",
	"Macedonia": "MK", "North Macedonia": "MK", "Swaziland": "SZ", "Eswatini": "SZ",
	"Cape Verde": "CV", "East Timor": "TL", "Timor-Leste": "TL", "Vatican": "VA",
	"Turkey": "TR", "Türkiye": "TR", "Brasil": "BR", "Deutschland": "DE", "España": "ES",
	"Sverige": "SE", "Norge": "NO", "Danmark": "DK", "Suomi": "FI", "Österreich": "AT",
	"Schweiz": "CH", "Italia": "IT", "Nederland": "NL", "Polska": "PL", "México": "MX",
	"Perú": "PE", "Panamá": "PA", "Sardinia": "IT", "Sardegna": "IT", "Sicily": "IT",
	"Corsica": "FR", "Crete": "GR", "Madeira": "PT", "Azores": "PT", "Canary Islands": "ES",
	"Galapagos": "EC", "Galápagos": "EC", "Hawaii": "US", "Alaska": "US",
}

// normName folds case, accents, punctuation and spacing so that
// "Côte d’Ivoire" and "cote d'ivoire" compare equal.
func normName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFD.String(strings.TrimSpace(s)) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		default:
			space = true
		}
	}
	return b.String()
}

// CountryCode returns the ISO 3166-1 alpha-2 code for a code (alpha-2 or
// alpha-3, any case) or a country name; ok is false when nothing matches.
func CountryCode(s string) (code string, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	idx := countryIndex()
	if len(s) <= 3 {
		if c, ok := idx[strings.ToUpper(s)]; ok {
			return c, true
		}
	}
	c, ok := idx[normName(s)]
	return c, ok
}
