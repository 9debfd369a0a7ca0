package abcd

import "testing"

// TestIsDocumentName: the archive reader takes *.xml and *.response
// entries and skips what the DwC-A reader skips (hidden files and folders,
// macOS resource forks at any depth).
func TestIsDocumentName(t *testing.T) {
	for name, want := range map[string]bool{
		"response.001.xml": true, "dataset/response.002.XML": true, "page.response": true,
		"notes.txt": false, "dataset/._response.001.xml": false, "__MACOSX/response.001.xml": false,
		"dataset/__MACOSX/response.001.xml": false, ".hidden/response.001.xml": false,
	} {
		if got := isDocumentName(name); got != want {
			t.Errorf("isDocumentName(%q) = %v, want %v", name, got, want)
		}
	}
}
