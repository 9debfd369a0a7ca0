package dwca

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/charset"
)

// encodedArchive is a folder archive whose core declares enc and holds data.
func encodedArchive(t *testing.T, enc, data string) *Archive {
	t.Helper()
	meta := `<archive><core encoding="` + enc + `" fieldsTerminatedBy="\t" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence">
<files><location>occ.txt</location></files><id index="0"/>
<field index="1" term="http://rs.tdwg.org/dwc/terms/locality"/></core></archive>`
	a, err := Open(context.Background(), writeDir(t, map[string]string{"meta.xml": meta, "occ.txt": data}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// firstCells reads the first row of the core.
func firstCells(a *Archive) ([]string, error) {
	rr, err := a.Rows(context.Background(), a.Meta.Core)
	if err != nil {
		return nil, err
	}
	defer rr.Close()
	row, err := rr.Next()
	if err != nil {
		return nil, err
	}
	return row.Cells(), nil
}

// Labels beyond UTF-8 and ISO-8859-1 (TestEncodings): one the WHATWG table
// lacks, a Central European code page and UTF-16 without a byte-order mark.
func TestRowsEncodingLabels(t *testing.T) {
	for _, c := range []struct{ enc, data, want string }{
		{"latin-9", "id\tlocality\no1\tPr\xe9 \xa4\n", "Pré €"},
		{"windows-1250", "id\tlocality\no1\t\x8atefan\xf3w \xb3\xb9ka\n", "Štefanów łąka"},
		{"UTF-16BE", "\x00i\x00d\x00\t\x00l\x00o\x00c\x00\n\x00o\x001\x00\t\x00K\x00\xf6\x00\n", "Kö"},
	} {
		cells, err := firstCells(encodedArchive(t, c.enc, c.data))
		if err != nil {
			t.Errorf("%s: %v", c.enc, err)
			continue
		}
		if len(cells) != 2 || cells[0] != "o1" || cells[1] != c.want {
			t.Errorf("%s: cells %q, want [o1 %q]", c.enc, cells, c.want)
		}
	}
}

func TestRowsUnknownEncoding(t *testing.T) {
	_, err := firstCells(encodedArchive(t, "klingon", "id\tlocality\no1\tx\n"))
	if !errors.Is(err, charset.ErrUnsupported) || !strings.Contains(err.Error(), `"klingon"`) ||
		!strings.Contains(err.Error(), "occ.txt") {
		t.Errorf("%v, want ErrUnsupported naming occ.txt and the label", err)
	}
}

// A meta.xml whose declaration says UTF-16 but was read as single bytes is
// rejected with that reason (it used to be decoded as UTF-16 into nonsense).
func TestParseMetaDeclaredUTF16WithoutBOM(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-16"?>
<archive><core rowType="Occurrence" fieldsTerminatedBy="\t"><files><location>occ.txt</location></files></core></archive>`
	_, err := ParseMeta(strings.NewReader(doc))
	if !errors.Is(err, charset.ErrNotUTF16) {
		t.Errorf("%v, want ErrNotUTF16", err)
	}
}

// EML declared in an encoding only the shared table knows (windows-1250).
func TestEMLDeclaredEncoding(t *testing.T) {
	doc := "<?xml version=\"1.0\" encoding=\"windows-1250\"?>\n" +
		"<eml:eml xmlns:eml=\"eml://ecoinformatics.org/eml-2.1.1\"><dataset><title>\x8cl\xb9sk</title></dataset></eml:eml>"
	info, err := ReadDatasetInfo(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if info.Title != "Śląsk" {
		t.Errorf("title %q, want Śląsk", info.Title)
	}
}
