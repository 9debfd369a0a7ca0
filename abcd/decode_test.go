package abcd

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/beevik/etree"

	"github.com/biodiversity-downloads/downloader/internal/charset"
)

// declared wraps notes in a one-unit document whose declaration names enc.
func declared(enc, notes string) string {
	return "<?xml version='1.0' encoding='" + enc + "'?><DataSets><DataSet><Units><Unit><UnitID>X</UnitID><Notes>" +
		notes + "</Notes></Unit></Units></DataSet></DataSets>"
}

// Declared encodings, read by the streaming reader: the names providers use
// and the WHATWG labels of the shared table (internal/charset).
func TestDeclaredEncodings(t *testing.T) {
	for _, c := range []struct{ enc, notes, want string }{
		{"ISO-8859-1", "K\xf6ln", "Köln"},
		{"latin-1", "K\xf6ln \x80", "Köln €"}, // 0x80 read as windows-1252
		{"latin9", "\xa4 \xbd", "€ œ"},
		{"ISO-8859-15", "\xa4", "€"},
		{"cp1252", "\x93Br\xfcck\x94", "“Brück”"},
		{"windows-1250", "\x8cl\xb9sk", "Śląsk"},
		{"US-ASCII", "plain", "plain"},
	} {
		r := NewReader(strings.NewReader(declared(c.enc, c.notes)), c.enc+".xml", Options{})
		rec, err := r.Next(context.Background())
		if err != nil {
			t.Errorf("%s: %v", c.enc, err)
			continue
		}
		if got := rec.Core[dwc+"occurrenceRemarks"]; got != c.want {
			t.Errorf("%s: notes %q, want %q", c.enc, got, c.want)
		}
	}
}

func TestDeclaredEncodingRejected(t *testing.T) {
	for enc, reason := range map[string]string{
		"klingon": `unsupported encoding "klingon"`,
		"UTF-16":  "no UTF-16 byte-order mark", // the declaration was read as single bytes
	} {
		_, _, err := readDoc(declared(enc, "x"), Options{})
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), reason) {
			t.Errorf("%s: %v, want ErrSyntax saying %q", enc, err, reason)
		}
	}
}

// The BioCASe protocol documents are read with etree and the same decoder.
func TestDeclaredEncodingEtree(t *testing.T) {
	d := etree.NewDocument()
	d.ReadSettings.CharsetReader = charset.XMLReader
	if err := d.ReadFromString(declared("windows-1250", "\x8cl\xb9sk")); err != nil {
		t.Fatal(err)
	}
	if got := d.FindElement("//Notes").Text(); got != "Śląsk" {
		t.Errorf("notes %q", got)
	}
	d = etree.NewDocument()
	d.ReadSettings.CharsetReader = charset.XMLReader
	if err := d.ReadFromString(declared("klingon", "x")); err == nil || !strings.Contains(err.Error(), `"klingon"`) {
		t.Errorf("klingon: %v", err)
	}
}
