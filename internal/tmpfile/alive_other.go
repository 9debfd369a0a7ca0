//go:build !unix

package tmpfile

// alive reports every process as running where liveness is not checked:
// sweepDead then removes nothing.
func alive(int) bool { return true }
