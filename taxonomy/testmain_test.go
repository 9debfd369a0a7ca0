package taxonomy

import (
	"os"
	"testing"
)

var testTemp []string

// tempDirOutsideTest makes a directory that lives until the test binary
// ends (for fixtures shared by tests).
func tempDirOutsideTest() (string, error) {
	d, err := os.MkdirTemp("", "taxonomy-test-*")
	if err == nil {
		testTemp = append(testTemp, d)
	}
	return d, err
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range testTemp {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
