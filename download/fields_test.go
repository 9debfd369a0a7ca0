package download

import (
	"errors"
	"slices"
	"testing"
)

func TestCheckFields(t *testing.T) {
	if err := CheckFields(FormatSimpleCSV, []string{"gbifID", "habitat"}); err != nil {
		t.Errorf("interpreted columns: %v", err)
	}
	for _, c := range []struct {
		f      Format
		fields []string
	}{
		{FormatDWCA, []string{"gbifID"}},
		{FormatSimpleCSV, []string{"nope"}},
		{FormatSimpleCSV, []string{"gbifID", "gbifID"}},
		{FormatSimpleCSV, []string{"verbatim"}},
	} {
		if err := CheckFields(c.f, c.fields); !errors.Is(err, ErrFormat) {
			t.Errorf("%s %v: %v, want ErrFormat", c.f, c.fields, err)
		}
	}
	ch := ChoosableFields()
	if !slices.Contains(ch, "habitat") || slices.Contains(ch, "verbatim") || ch[0] != "gbifID" {
		t.Errorf("choosable %v", ch)
	}
	if d := DefaultFields(FormatSimpleCSV); len(d) != len(simpleCSVColumns) || d[0] != "gbifID" {
		t.Errorf("SIMPLE_CSV defaults %v", d)
	}
	if DefaultFields(FormatDWCA) != nil {
		t.Error("DWCA has default fields")
	}
}
