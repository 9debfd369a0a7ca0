//go:build !unix

package tmpfile

// alive reports every process as running where liveness is not checked:
// SweepDead then removes nothing.
func alive(int) bool { return true }
