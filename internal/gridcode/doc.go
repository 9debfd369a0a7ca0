// Package gridcode owns the grid-cell and temporal-uncertainty functions of
// GBIF's SQL downloads (GBIF_EQDGCode, GBIF_DMSGCode, GBIF_EEARGCode,
// GBIF_EuroStatCode, GBIF_MGRSCode, GBIF_ISEA3HCode and
// GBIF_TemporalUncertainty), so that our
// SQL download engine answers them as api.gbif.org does.
//
// The functions follow GBIF's implementation in gbif/occurrence-cube
// (module cube-functions, package org.gbif.occurrence.cube.functions), which
// is their only specification: formulas, code formats, rounding quirks and
// test vectors are taken from it. They are written here because no Go
// library computes these codes, and GBIF's Java depends on GeoTools, NGA's
// mgrs-java, Mocnik's geogrid (ISEA3H) and GBIF's date parser, which have no
// Go counterparts either; the geodesic, ETRS89-LAEA, UTM and Snyder
// equal-area icosahedral mathematics is therefore implemented here too.
//
// # Conventions
//
// Every grid function has the shape
//
//	func F(size int, lat, lon, uncertaintyMeters float64, rnd *rand.Rand) (code string, ok bool, err error)
//
// where:
//   - err is non-nil, an *ArgumentError, only for a bad size or level; it
//     depends on the query, not on the row, and is checked before anything
//     else. GBIF throws IllegalArgumentException there.
//   - ok is false where GBIF returns SQL NULL: a NaN (our stand-in for NULL)
//     latitude, longitude or uncertainty; a coordinate outside ±90°/±180°
//     (GBIF's core throws, its Hive wrapper returns NULL); an infinite
//     uncertainty; and a cell outside the grid's extent (EEA, MGRS).
//   - A positive uncertainty moves the point to a uniformly random position
//     within that radius before the cell is computed, drawing from rnd; a nil
//     rnd uses math/rand/v2's global source. Pass a seeded *rand.Rand for
//     reproducible output: GBIF seeds nothing, so its randomized codes cannot
//     be reproduced exactly, only their distribution.
//
// GBIF_TemporalUncertainty takes strings and has no arguments to reject, so
// TemporalUncertainty returns only (seconds, ok).
package gridcode

import (
	"errors"
	"fmt"
)

// ErrInvalidArgument is matched by every *ArgumentError through errors.Is.
var ErrInvalidArgument = errors.New("invalid argument")

// ArgumentError reports a size or level that the named GBIF function does
// not accept. Its message is meant for the user who wrote the query.
type ArgumentError struct {
	Function string // GBIF's SQL name, e.g. "GBIF_EEARGCode"
	Message  string // e.g. "grid size 0 is not between 1 and 999999 metres"
}

func (e *ArgumentError) Error() string { return e.Function + ": " + e.Message }

// Is makes errors.Is(err, ErrInvalidArgument) true.
func (e *ArgumentError) Is(target error) bool { return target == ErrInvalidArgument }

func argErr(function, format string, args ...any) error {
	return &ArgumentError{Function: function, Message: fmt.Sprintf(format, args...)}
}
