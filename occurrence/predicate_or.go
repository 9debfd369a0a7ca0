package occurrence

// orPlan is how a validated or evaluates: the equals and in predicates of
// one key (and case rule) merged into one in, the like predicates of one
// key into one like with all their patterns, and the other branches as
// they are. An or of 5,000 equals on TAXON_KEY, as scripts write a species
// list, then costs one set lookup per record instead of 5,000 passes.
// MatchRow and MayMatch still read the tree as written.
type orPlan struct {
	fused []*compiled
	rest  []*Predicate
}

// planOr builds p's plan from its compiled branches; an or with nothing to
// merge gets none.
func planOr(p *Predicate) {
	type group struct {
		key     string
		fold    bool
		like    bool
		members []*compiled
	}
	var groups []*group
	var rest []*Predicate
	find := func(c *compiled, like bool) *group {
		for _, g := range groups {
			if g.key == c.spec.name && g.fold == c.fold && g.like == like {
				return g
			}
		}
		g := &group{key: c.spec.name, fold: c.fold, like: like}
		groups = append(groups, g)
		return g
	}
	for _, ch := range p.Predicates {
		switch ch.Type {
		case TypeEquals, TypeIn, TypeLike:
			c := ch.c.Load()
			g := find(c, ch.Type == TypeLike)
			g.members = append(g.members, c)
		default:
			rest = append(rest, ch)
		}
	}
	plan := &orPlan{}
	merged := false
	for _, g := range groups {
		if len(g.members) == 1 {
			plan.fused = append(plan.fused, g.members[0])
			continue
		}
		merged = true
		op := TypeIn
		if g.like {
			op = TypeLike
		}
		f := &compiled{spec: g.members[0].spec, op: op, fold: g.fold}
		for _, m := range g.members {
			f.strs = append(f.strs, m.strs...)
			f.exts = append(f.exts, m.exts...)
			f.bools = append(f.bools, m.bools...)
		}
		f.prepareEval()
		plan.fused = append(plan.fused, f)
	}
	if !merged {
		return
	}
	plan.rest = rest
	p.plan.Store(plan)
}

// evalOr writes out[i] = mask[i] && (any item matches row i), evaluating
// each further item only on the rows still unmatched.
func evalOr(ev *evaluator, out, mask []bool, n int, item func(i int, out, mask []bool)) {
	mask = ev.copyMask(mask)
	item(0, out, mask)
	rest, tmp := ev.get(), ev.get()
	for k := 1; k < n; k++ {
		for i := range rest {
			rest[i] = !out[i] && (mask == nil || mask[i])
		}
		item(k, tmp, rest)
		for i, t := range tmp {
			out[i] = out[i] || t
		}
	}
	ev.put(rest, tmp)
	if mask != nil {
		ev.put(mask)
	}
}

// leaves calls f with each leaf Eval evaluates: an or's fused leaves in
// place of their members.
func (p *Predicate) leaves(f func(*compiled)) {
	switch p.Type {
	case TypeAnd:
		for _, c := range p.Predicates {
			c.leaves(f)
		}
	case TypeOr:
		plan := p.plan.Load()
		if plan == nil {
			for _, c := range p.Predicates {
				c.leaves(f)
			}
			return
		}
		for _, c := range plan.fused {
			f(c)
		}
		for _, c := range plan.rest {
			c.leaves(f)
		}
	case TypeNot:
		p.Predicate.leaves(f)
	default:
		f(p.comp())
	}
}
