package taxonomy

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// strRef locates a string in a heap file.
type strRef struct {
	off uint32
	n   uint16
}

// loader holds a checklist while it is read and resolved: fixed-size
// records and hashes per row; the strings are in heap files.
type loader struct {
	opts LoadOptions
	heap *heapWriter // the store's strings
	side *heapWriter // classification names, only needed while loading
	recs []record
	// per row: hashes of taxonID, parentNameUsageID, acceptedNameUsageID
	// (0: none), where the row is, and its classification columns
	ids, parents, accs []uint64
	lines              []uint32
	fileIdx            []uint8
	cls                []int32
	clsRefs            [][6]strRef
	files              []string
	rows               int

	heapData, sideData []byte
	// implicitNames are the names of implicit taxa (their heap bytes are
	// written after the heap was mapped)
	implicitNames map[int]string

	mu          sync.Mutex
	issues      []LoadIssue
	issueCounts map[string]int
}

func newLoader(dir string, opts LoadOptions) (*loader, error) {
	h, err := newHeapWriter(dir)
	if err != nil {
		return nil, err
	}
	s, err := newHeapWriter(dir)
	if err != nil {
		h.close()
		return nil, err
	}
	return &loader{opts: opts, heap: h, side: s, issueCounts: map[string]int{}}, nil
}

// rowIssue records an issue (safe for concurrent use).
func (l *loader) rowIssue(file string, line int, id, kind, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.issueCounts[kind]++
	if len(l.issues) < l.opts.MaxIssuesListed {
		l.issues = append(l.issues, LoadIssue{File: file, Line: line, TaxonID: id, Kind: kind, Message: msg})
	}
}

// issue records an issue of record i.
func (l *loader) issue(i int, kind, msg string) {
	file := ""
	if int(l.fileIdx[i]) < len(l.files) {
		file = l.files[l.fileIdx[i]]
	}
	l.rowIssue(file, int(l.lines[i]), l.taxonID(i), kind, msg)
}

// taxonID reads record i's taxonID (after the heap is mapped).
func (l *loader) taxonID(i int) string {
	r := &l.recs[i]
	if l.heapData == nil || int(r.idOff)+int(r.idLen) > len(l.heapData) {
		return ""
	}
	return string(l.heapData[r.idOff : int(r.idOff)+int(r.idLen)])
}

// add appends a parsed row.
func (l *loader) add(r *rowOut) error {
	v := &r.in.v
	if r.canonical == "" {
		file := ""
		if int(r.in.file) < len(l.files) {
			file = l.files[r.in.file]
		}
		l.rowIssue(file, int(r.in.line), v[colID], LoadNoName, "no scientificName; row skipped")
		return nil
	}
	id := v[colID]
	if id == "" {
		// without a taxonID the row is known by its name and rank
		id = "name:" + r.canonical + "|" + r.rank.String()
	}
	if len(r.sci) > 0xFFFF {
		file := ""
		if int(r.in.file) < len(l.files) {
			file = l.files[r.in.file]
		}
		l.rowIssue(file, int(r.in.line), id, LoadNameTooLong, "scientificName cut to 65535 bytes")
	}
	var rec record
	var err error
	if rec.sciOff, rec.sciLen, err = l.heap.add(r.sci); err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(r.sci, r.canonical):
		rec.canonOff, rec.canonLen = rec.sciOff, uint16(min(len(r.canonical), int(rec.sciLen)))
	default:
		if rec.canonOff, rec.canonLen, err = l.heap.add(r.canonical); err != nil {
			return err
		}
	}
	switch {
	case r.author == "":
	case strings.HasSuffix(r.sci, r.author) && len(r.sci) <= 0xFFFF:
		rec.authOff, rec.authLen = rec.sciOff+uint32(len(r.sci)-len(r.author)), uint16(len(r.author))
	default:
		if rec.authOff, rec.authLen, err = l.heap.add(r.author); err != nil {
			return err
		}
	}
	if rec.idOff, rec.idLen, err = l.heap.add(id); err != nil {
		return err
	}
	rec.rank, rec.status, rec.nameType, rec.code = r.rank, r.status, r.nameType, r.code
	l.recs = append(l.recs, rec)
	l.ids = append(l.ids, fnv64(id))
	hash := func(s string) uint64 {
		if s == "" || s == id {
			return 0
		}
		return fnv64(s)
	}
	l.parents = append(l.parents, hash(v[colParent]))
	l.accs = append(l.accs, hash(v[colAccepted]))
	l.lines = append(l.lines, r.in.line)
	l.fileIdx = append(l.fileIdx, r.in.file)
	ci := int32(-1)
	var refs [6]strRef
	for k := range refs {
		if v[colParent] != "" {
			break // placed by its parent; the classification is not kept
		}
		name := higherName(v[colKingdom+k])
		if name == "" {
			continue
		}
		if refs[k].off, refs[k].n, err = l.side.add(name); err != nil {
			return err
		}
		ci = int32(len(l.clsRefs))
	}
	if ci >= 0 {
		l.clsRefs = append(l.clsRefs, refs)
	}
	l.cls = append(l.cls, ci)
	return nil
}

// higherName is the name in a classification column: its first word,
// capitalized (classification columns often carry authorships).
func higherName(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " ,("); i >= 0 {
		s = s[:i]
	}
	if s == "" || !hasLetter(s) {
		return ""
	}
	if isAllCaps(s) {
		return titleCase(s)
	}
	return s
}

// level returns a row's classification name at level k ("" if none).
func (l *loader) level(i, k int) string {
	if l.cls[i] < 0 {
		return ""
	}
	r := l.clsRefs[l.cls[i]][k]
	if r.n == 0 {
		return ""
	}
	return string(l.sideData[r.off : int(r.off)+int(r.n)])
}

// resolve checks IDs, assigns keys and links the records.
func (l *loader) resolve(ctx context.Context, keys *keyLookup) error {
	for _, h := range []*heapWriter{l.heap, l.side} {
		if err := h.w.Flush(); err != nil {
			return fmt.Errorf("taxonomy: heap file: %w", err)
		}
	}
	hd, unmapHeap, err := mapFile(l.heap.f.File)
	if err != nil {
		return err
	}
	defer func() { l.heapData = nil; unmapHeap() }()
	sd, unmapSide, err := mapFile(l.side.f.File)
	if err != nil {
		return err
	}
	defer func() { l.sideData = nil; unmapSide() }()
	l.heapData, l.sideData = hd, sd

	if err := l.dropDuplicates(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.assignKeys(keys); err != nil {
		return err
	}
	index := l.idIndex()
	find := func(h uint64) int {
		i, ok := slices.BinarySearchFunc(index, h, func(e normEntry, h uint64) int { return cmp.Compare(e.hash, h) })
		if !ok {
			return -1
		}
		return int(index[i].idx)
	}
	l.linkAccepted(find)
	l.linkParents(find)
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.implicitParents(keys); err != nil {
		return err
	}
	l.cutParentCycles()
	// only the records are needed from here on
	l.ids, l.parents, l.accs, l.cls, l.clsRefs, l.implicitNames = nil, nil, nil, nil, nil, nil
	return ctx.Err()
}

// dropDuplicates keeps the first row of each taxonID.
func (l *loader) dropDuplicates() error {
	order := make([]uint32, len(l.recs))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		if c := cmp.Compare(l.ids[a], l.ids[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	dead := map[int]bool{}
	for j := 1; j < len(order); j++ {
		a, b := int(order[j-1]), int(order[j])
		if l.ids[a] != l.ids[b] {
			continue
		}
		if l.taxonID(a) != l.taxonID(b) {
			return fmt.Errorf("taxonomy: taxonIDs %q and %q have the same 64-bit hash; please report this", l.taxonID(a), l.taxonID(b))
		}
		first := a
		for k := j - 1; k >= 0 && l.ids[order[k]] == l.ids[b]; k-- {
			first = int(order[k])
		}
		l.issue(b, LoadDuplicateID, fmt.Sprintf("taxonID already used at line %d; row skipped", l.lines[first]))
		dead[b] = true
	}
	if len(dead) > 0 {
		l.compact(dead)
	}
	return nil
}

// compact removes records (before any links are set).
func (l *loader) compact(dead map[int]bool) {
	w := 0
	for i := range l.recs {
		if dead[i] {
			continue
		}
		l.recs[w], l.ids[w], l.parents[w], l.accs[w] = l.recs[i], l.ids[i], l.parents[i], l.accs[i]
		l.lines[w], l.fileIdx[w], l.cls[w] = l.lines[i], l.fileIdx[i], l.cls[i]
		w++
	}
	l.recs, l.ids, l.parents, l.accs = l.recs[:w], l.ids[:w], l.parents[:w], l.accs[:w]
	l.lines, l.fileIdx, l.cls = l.lines[:w], l.fileIdx[:w], l.cls[:w]
}

// numericID reads a taxonID that is a key by itself: a decimal integer in
// [1, 2^31) without leading zeros.
func numericID(s string) (uint32, bool) {
	if s == "" || len(s) > 10 || s[0] == '0' || !isDigits(s) {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n >= mintedNumericBase {
		return 0, false
	}
	return uint32(n), true
}

// assignKeys gives every record its key (see KeyModeTaxonID, KeyModeLookup).
func (l *loader) assignKeys(keys *keyLookup) error {
	all := true
	for i := range l.recs {
		if _, ok := numericID(l.taxonID(i)); !ok {
			all = false
			break
		}
	}
	keys.setMode(all)
	for i := range l.recs {
		if keys.mode == KeyModeTaxonID {
			if n, ok := numericID(l.taxonID(i)); ok {
				l.recs[i].key = n
				continue
			}
		}
		k, err := keys.mint(l.ids[i])
		if err != nil {
			return err
		}
		l.recs[i].key = k
	}
	return nil
}

// idIndex sorts the (taxonID hash, record) pairs.
func (l *loader) idIndex() []normEntry {
	idx := make([]normEntry, len(l.recs))
	for i := range idx {
		idx[i] = normEntry{l.ids[i], uint32(i)}
	}
	slices.SortFunc(idx, func(a, b normEntry) int { return cmp.Compare(a.hash, b.hash) })
	return idx
}

// linkAccepted links synonyms to their accepted usages, following chains
// of synonyms and breaking cycles, and settles the statuses.
func (l *loader) linkAccepted(find func(uint64) int) {
	for i := range l.recs {
		r := &l.recs[i]
		if l.accs[i] != 0 {
			if a := find(l.accs[i]); a >= 0 && a != i {
				r.accepted = uint32(a) + 1
			} else if a < 0 {
				l.issue(i, LoadAcceptedNotFound, "acceptedNameUsageID is no taxonID of the checklist; taken as a doubtful accepted name")
				r.status = StatusDoubtful
			}
		}
	}
	// synonyms of synonyms point to the end of their chain
	for i := range l.recs {
		r := &l.recs[i]
		if r.accepted == 0 {
			continue
		}
		a, steps := int(r.accepted-1), 0
		for l.recs[a].accepted != 0 && steps < len(l.recs) {
			if int(l.recs[a].accepted-1) == i || steps > 64 {
				break
			}
			a = int(l.recs[a].accepted - 1)
			steps++
		}
		if l.recs[a].accepted != 0 {
			l.issue(i, LoadAcceptedCycle, "acceptedNameUsageID chain loops; taken as a doubtful accepted name")
			r.accepted, r.status = 0, StatusDoubtful
			continue
		}
		r.accepted = uint32(a) + 1
	}
	for i := range l.recs {
		r := &l.recs[i]
		switch {
		case r.accepted != 0 && !r.status.IsSynonym():
			if r.status != StatusUnknown {
				l.issue(i, LoadStatusConflict, fmt.Sprintf("status %s with an acceptedNameUsageID of another taxon; taken as a synonym", r.status))
			}
			r.status = StatusSynonym
		case r.accepted == 0 && r.status.IsSynonym():
			l.issue(i, LoadSynonymNoAccepted, "a synonym without acceptedNameUsageID; taken as a doubtful accepted name")
			r.status = StatusDoubtful
		case r.accepted == 0 && r.status == StatusUnknown:
			r.status = StatusAccepted
		}
	}
}

// linkParents links accepted usages to their parents; a synonym parent is
// replaced by its accepted usage.
func (l *loader) linkParents(find func(uint64) int) {
	for i := range l.recs {
		r := &l.recs[i]
		if r.accepted != 0 || l.parents[i] == 0 {
			continue
		}
		p := find(l.parents[i])
		switch {
		case p < 0:
			l.issue(i, LoadParentNotFound, "parentNameUsageID is no taxonID of the checklist; taken as a root")
			continue
		case p == i:
			continue
		case l.recs[p].accepted != 0:
			l.issue(i, LoadSynonymParent, "parentNameUsageID is a synonym; its accepted name is taken")
			p = int(l.recs[p].accepted - 1)
			if p == i {
				continue
			}
		}
		r.parent = uint32(p) + 1
	}
}

// implicitParents places accepted usages without a parent by their
// classification columns: under the checklist's own taxon of that rank and
// name (in the same kingdom), or under an implicit taxon created for it.
func (l *loader) implicitParents(keys *keyLookup) error {
	explicit := map[uint64][]uint32{}
	for i := range l.recs {
		r := &l.recs[i]
		if r.accepted == 0 && r.flags&flagImplicit == 0 && isClassificationRank(r.rank) {
			h := levelHash(r.rank, l.canon(i))
			explicit[h] = append(explicit[h], uint32(i))
		}
	}
	kingdomOf := func(i int) string {
		for steps := 0; steps < maxDepth; steps++ {
			r := &l.recs[i]
			if r.rank == RankKingdom {
				return l.canon(i)
			}
			if r.parent == 0 {
				return l.level(i, 0)
			}
			i = int(r.parent - 1)
		}
		return ""
	}
	implicit := map[uint64]uint32{}
	n := len(l.recs)
	for i := 0; i < n; i++ {
		r := l.recs[i] // a copy: addImplicit grows l.recs
		if r.accepted != 0 || r.parent != 0 || l.cls[i] < 0 {
			continue
		}
		own := l.canon(i)
		kingdom := l.level(i, 0)
		var path strings.Builder
		parent := -1
		for k, rank := range classificationRanks {
			name := l.level(i, k)
			if name == "" || !rank.HigherThan(r.rank) && r.rank.Known() || name == own && rank == r.rank {
				continue
			}
			path.WriteString("|" + rank.String() + ":" + name)
			// the checklist's own taxon of that name, in this kingdom
			found := -1
			for _, c := range explicit[levelHash(rank, name)] {
				if int(c) == i {
					continue
				}
				if kingdom == "" || rank == RankKingdom || strings.EqualFold(kingdomOf(int(c)), kingdom) || kingdomOf(int(c)) == "" {
					if found >= 0 {
						l.issue(i, LoadAmbiguousClassification, fmt.Sprintf("%s %s names several taxa; the first is taken", rank, name))
						break
					}
					found = int(c)
				}
			}
			if found >= 0 {
				parent = found
				continue
			}
			h := fnv64("implicit:" + path.String())
			if idx, ok := implicit[h]; ok {
				parent = int(idx)
				continue
			}
			idx, err := l.addImplicit(name, rank, h, keys)
			if err != nil {
				return err
			}
			if parent >= 0 {
				l.recs[idx].parent = uint32(parent) + 1
			}
			implicit[h] = uint32(idx)
			parent = idx
		}
		if parent >= 0 && parent != i {
			l.recs[i].parent = uint32(parent) + 1
		}
	}
	return nil
}

// addImplicit appends an implicit higher taxon.
func (l *loader) addImplicit(name string, rank Rank, idHash uint64, keys *keyLookup) (int, error) {
	var rec record
	var err error
	if rec.sciOff, rec.sciLen, err = l.heap.add(name); err != nil {
		return 0, err
	}
	rec.canonOff, rec.canonLen = rec.sciOff, rec.sciLen
	rec.rank, rec.status, rec.nameType, rec.flags = rank, StatusAccepted, NameScientific, flagImplicit
	if rec.key, err = keys.mint(idHash); err != nil {
		return 0, err
	}
	l.recs = append(l.recs, rec)
	l.ids = append(l.ids, idHash)
	l.parents = append(l.parents, 0)
	l.accs = append(l.accs, 0)
	l.lines = append(l.lines, 0)
	l.fileIdx = append(l.fileIdx, 255)
	l.cls = append(l.cls, -1)
	if l.implicitNames == nil {
		l.implicitNames = map[int]string{}
	}
	l.implicitNames[len(l.recs)-1] = name
	return len(l.recs) - 1, nil
}

// canon returns record i's canonical name.
func (l *loader) canon(i int) string {
	r := &l.recs[i]
	if r.flags&flagImplicit != 0 {
		return l.implicitNames[i]
	}
	return string(l.heapData[r.canonOff : int(r.canonOff)+int(r.canonLen)])
}

func isClassificationRank(r Rank) bool {
	for _, c := range classificationRanks {
		if r == c {
			return true
		}
	}
	return false
}

func levelHash(r Rank, name string) uint64 {
	return fnv64(r.String() + ":" + strings.ToLower(FoldASCII(name)))
}

// cutParentCycles breaks loops in the parent links.
func (l *loader) cutParentCycles() {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(l.recs))
	var path []int
	for start := range l.recs {
		if state[start] != unseen {
			continue
		}
		path = path[:0]
		i := start
		for {
			state[i] = onPath
			path = append(path, i)
			p := l.recs[i].parent
			if p == 0 {
				break
			}
			pi := int(p - 1)
			if state[pi] == onPath {
				l.issue(i, LoadParentCycle, fmt.Sprintf("parentNameUsageID loops back through %q; the link is cut", l.taxonID(pi)))
				l.recs[i].parent = 0
				break
			}
			if state[pi] == done {
				break
			}
			i = pi
		}
		for _, j := range path {
			state[j] = done
		}
	}
}
