package occurrence

// Predicate is a parsed, validated GBIF predicate. (Placeholder: the predicate
// work replaces this file.)
type Predicate struct{}
