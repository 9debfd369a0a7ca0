package occurrence

// Window applies a ScanRequest's Skip and Limit to a split's matches in
// row order, batch by batch; every backend's ScanSplit uses it. The zero
// Window (and NewWindow of a request without Skip and Limit) passes every
// match.
type Window struct {
	skip    int64
	left    int64
	limited bool
}

// NewWindow returns the window of req.
func NewWindow(req ScanRequest) Window {
	return Window{skip: max(req.Skip, 0), left: max(req.Limit, 0), limited: req.Limit > 0}
}

// Active reports whether the window can drop rows.
func (w *Window) Active() bool { return w.skip > 0 || w.limited }

// Select trims sel, whose m true values are a batch's matches, to the rows
// the window lets through, and returns how many those are.
func (w *Window) Select(sel []bool, m int) int {
	if !w.Active() || m == 0 {
		return m
	}
	if w.skip >= int64(m) {
		w.skip -= int64(m)
		clear(sel)
		return 0
	}
	i := 0
	for skip := w.skip; skip > 0; i++ {
		if sel[i] {
			sel[i] = false
			skip--
		}
	}
	m -= int(w.skip)
	w.skip = 0
	if !w.limited {
		return m
	}
	if int64(m) > w.left {
		kept := int64(0)
		for ; i < len(sel); i++ {
			if sel[i] {
				if kept == w.left {
					sel[i] = false
				} else {
					kept++
				}
			}
		}
		m = int(w.left)
	}
	w.left -= int64(m)
	return m
}

// Take is Select for n matching rows that carry no columns (count-only
// scans): it returns how many of them the window lets through.
func (w *Window) Take(n int64) int64 {
	if !w.Active() {
		return n
	}
	d := min(w.skip, n)
	w.skip -= d
	n -= d
	if w.limited {
		n = min(n, w.left)
		w.left -= n
	}
	return n
}

// Done reports that the window's Limit was reached: nothing after it can
// be emitted, so the scan of the split may stop.
func (w *Window) Done() bool { return w.limited && w.left == 0 }
