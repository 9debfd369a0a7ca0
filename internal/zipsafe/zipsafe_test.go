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
