package taxonomy

import (
	"context"
	"testing"
)

func TestLoadWhales(t *testing.T) {
	dir := t.TempDir()
	rep, err := Load(context.Background(), dir, "testdata/dwca-io-archive-tax.zip", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rep.Info)
	for _, i := range rep.Issues {
		t.Log(i)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	u := c.Usage(105838)
	t.Logf("%+v %v", u, c.Classification(105838))
	for _, s := range c.Suggest("sotal", 5) {
		t.Log(s)
	}
}

func TestLoadBackboneDebug(t *testing.T) {
	dir := t.TempDir()
	rep, err := Load(context.Background(), dir, "testdata/gbif-backbone-cut.zip", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v %v", rep.Info, rep.IssueCounts)
	for _, i := range rep.Issues[:min(20, len(rep.Issues))] {
		t.Log(i)
	}
	c, _ := Open(dir)
	defer c.Close()
	t.Log(c.Classification(2435099), c.Usage(2435099))
}
