package dwca

import (
	"archive/zip"
	"io"
	"strings"
	"testing"
)

// emlOf reads the EML document of a test archive.
func emlOf(t testing.TB, archive, name string) []byte {
	t.Helper()
	z, err := zip.OpenReader("testdata/" + archive)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	r, err := z.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadContacts(t *testing.T) {
	cases := []struct {
		archive, entry string
		want           []Contact
	}{
		// An IPT EML (2009) naming one person as contact and creator.
		{"dwca-io-archive-occ.zip", "archive-occ/eml.xml", []Contact{
			{Role: "contact", Name: "Markus Döring", Email: "mdoering@gbif.org"},
			{Role: "creator", Name: "Markus Döring", Email: "mdoering@gbif.org"}}},
		// A museum's EML: the point of contact first, then creator and
		// metadata provider.
		{"dissco-dwca-lux-associated-media.zip", "eml.xml", nil},
	}
	for _, c := range cases {
		got, err := ReadContacts(strings.NewReader(string(emlOf(t, c.archive, c.entry))))
		if err != nil {
			t.Fatalf("%s: %v", c.archive, err)
		}
		if c.want == nil {
			if len(got) == 0 || got[0].Role != "contact" || got[0].Email == "" {
				t.Errorf("%s: contacts %+v, want the <contact> first", c.archive, got)
			}
			for i := 1; i < len(got); i++ {
				if rank(got[i].Role) < rank(got[i-1].Role) {
					t.Errorf("%s: %s after %s", c.archive, got[i].Role, got[i-1].Role)
				}
			}
			continue
		}
		if len(got) != len(c.want) {
			t.Fatalf("%s: contacts %+v, want %+v", c.archive, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: contact %d = %+v, want %+v", c.archive, i, got[i], c.want[i])
			}
		}
	}
}

func rank(role string) int {
	for i, r := range contactRoles {
		if r == role {
			return i
		}
	}
	return -1
}

func TestReadContactsRules(t *testing.T) {
	doc := `<eml:eml xmlns:eml="x"><dataset>
  <creator><organizationName>Museum</organizationName><electronicMailAddress>not an address</electronicMailAddress></creator>
  <creator><positionName>Collection manager</positionName><organizationName>Museum</organizationName>
    <electronicMailAddress>cm@museum.example</electronicMailAddress></creator>
  <contact><individualName><givenName>Ana</givenName><givenName>María</givenName><surName>Pérez</surName></individualName>
    <electronicMailAddress> ana@museum.example </electronicMailAddress></contact>
  <project><personnel><electronicMailAddress>p@x.example</electronicMailAddress></personnel></project>
</dataset></eml:eml>`
	got, err := ReadContacts(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Contact{
		{Role: "contact", Name: "Ana María Pérez", Email: "ana@museum.example"},
		{Role: "creator", Name: "Collection manager", Organization: "Museum", Email: "cm@museum.example"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("contacts %+v, want %+v", got, want)
	}
	if got[1].Label() != "Collection manager (Museum)" || (Contact{Organization: "M"}).Label() != "M" {
		t.Errorf("labels %q", got[1].Label())
	}
	_, err = ReadContacts(strings.NewReader("<eml><dataset>\n<contact>\n</dataset>"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("malformed EML: %v, want an error naming line 3", err)
	}
}

func FuzzReadContacts(f *testing.F) {
	f.Add(`<eml><dataset><contact><surName>X</surName><electronicMailAddress>a@b.c</electronicMailAddress></contact></dataset></eml>`)
	f.Add(`<eml><dataset><creator><creator/></creator></dataset></eml>`)
	f.Add(`<dataset><contact></dataset>`)
	f.Fuzz(func(t *testing.T, doc string) {
		cs, err := ReadContacts(strings.NewReader(doc))
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.Email == "" || !isContactRole(c.Role) {
				t.Fatalf("contact %+v", c)
			}
		}
	})
}
