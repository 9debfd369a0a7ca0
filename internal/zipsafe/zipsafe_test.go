package zipsafe

import "testing"

func TestCheckName(t *testing.T) {
	for name, bad := range map[string]bool{
		"meta.xml": false, "data/occurrence.txt": false, "a..b/c.txt": false, "..hidden": false,
		"../evil.txt": true, "data/../../evil": true, `data\..\evil`: true, "/etc/passwd": true,
		`C:\evil`: true, `\share\evil`: true, "..": true,
	} {
		if err := CheckName(name); (err != nil) != bad {
			t.Errorf("CheckName(%q) = %v, want rejected %v", name, err, bad)
		}
	}
}

func TestHidden(t *testing.T) {
	for name, hidden := range map[string]bool{
		"response.001.xml": false, "dataset/response.001.xml": false, "a.b/c.xml": false,
		".DS_Store": true, "dataset/._response.001.xml": true, "__MACOSX/response.001.xml": true,
		"dataset/__MACOSX/x.xml": true, "__macosx/x.xml": true, ".git/config.xml": true, "dataset/.hidden/x.xml": true,
	} {
		if got := Hidden(name); got != hidden {
			t.Errorf("Hidden(%q) = %v, want %v", name, got, hidden)
		}
	}
}
