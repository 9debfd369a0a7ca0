package sqlquery

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/biodiversity-downloads/downloader/internal/gridcode"
	"github.com/biodiversity-downloads/downloader/internal/javafmt"
)

// gridFunc is one of GBIF's grid functions: (size, latitude, longitude,
// uncertainty in metres) to a cell code; nil rnd randomizes the point
// within its uncertainty from math/rand/v2's global source, as GBIF does
// (0 means no randomization).
type gridFunc func(size int, lat, lon, unc float64, rnd *rand.Rand) (string, bool, error)

func init() {
	grid := func(name, doc string, f gridFunc) {
		addFunc(&function{name: name, min: 4, max: 4, doc: doc,
			fn: func(a []Value) Value {
				size, ok := a[0].integer()
				if !ok || a[0].Kind == Null || size != int64(int(size)) {
					return nullValue
				}
				code, ok, err := f(int(size), numberOrNaN(a[1]), numberOrNaN(a[2]), numberOrNaN(a[3]), nil)
				if err != nil || !ok {
					return nullValue
				}
				return strValue(code)
			},
			// A constant size is checked when the query is read, so a bad
			// one is a 400 and not a column of NULLs.
			check: func(args []expr) error {
				v, ok := constant(args[0])
				if !ok {
					return nil
				}
				size, isInt := v.integer()
				if !isInt || v.Kind == Null || size != int64(int(size)) {
					return errors.New(name + ": the first argument is a whole number (a grid size or level)")
				}
				_, _, err := f(int(size), 0, 0, 0, nil)
				return err
			}})
	}
	grid("GBIF_EQDGCode", "GBIF_EQDGCode(level, latitude, longitude, uncertainty): extended quarter-degree grid cell code", gridcode.EQDG)
	grid("GBIF_DMSGCode", "GBIF_DMSGCode(resolution in seconds, latitude, longitude, uncertainty): degree-minute-second grid cell code", gridcode.DMSG)
	grid("GBIF_EEARGCode", "GBIF_EEARGCode(size in metres, latitude, longitude, uncertainty): EEA reference grid cell code (EPSG:3035)", gridcode.EEA)
	grid("GBIF_EuroStatCode", "GBIF_EuroStatCode(size in metres, latitude, longitude, uncertainty): EuroStat / INSPIRE grid cell code", gridcode.EuroStat)
	grid("GBIF_ISEA3HCode", "GBIF_ISEA3HCode(resolution 1-22, latitude, longitude, uncertainty): ISEA3H hexagonal grid cell identifier", gridcode.ISEA3H)
	grid("GBIF_MGRSCode", "GBIF_MGRSCode(size in metres, latitude, longitude, uncertainty): Military Grid Reference System cell code", gridcode.MGRS)
	addFunc(&function{name: "GBIF_TemporalUncertainty", min: 1, max: 2,
		doc: "GBIF_TemporalUncertainty(eventDate[, eventTime]): the length of the date (or interval) in seconds",
		fn: func(a []Value) Value {
			if a[0].Kind == Null {
				return nullValue
			}
			t := ""
			if len(a) == 2 && a[1].Kind != Null {
				t = a[1].text()
			}
			s, ok := gridcode.TemporalUncertainty(a[0].text(), t)
			if !ok {
				return nullValue
			}
			return intValue(s)
		}})
}

// numberOrNaN is a number argument, NaN for NULL or text that is none
// (the grid functions read NaN as GBIF's NULL).
func numberOrNaN(v Value) float64 {
	if f, ok := v.number(); ok && v.Kind != Null {
		return f
	}
	return math.NaN()
}

func init() {
	addFunc(&function{name: "PRINTF", min: 1, max: -1,
		doc: "PRINTF(format, value...): the values formatted as Java's String.format (Spark's printf): PRINTF('%04d-%02d', \"year\", \"month\")",
		fn: func(a []Value) Value {
			if a[0].Kind == Null {
				return nullValue
			}
			f, err := javafmt.Compile(a[0].text())
			if err != nil {
				return nullValue
			}
			return printf(f, a[1:])
		},
		// A constant format is parsed once, not for every row; one Java
		// would reject is a 400, not a column of NULLs.
		bind: func(_ *compiler, es []expr) (func([]Value) Value, error) {
			v, ok := constant(es[0])
			if !ok || v.Kind == Null {
				return nil, nil
			}
			f, err := javafmt.Compile(v.text())
			if err != nil {
				return nil, errors.New("PRINTF: " + err.Error())
			}
			return func(a []Value) Value { return printf(f, a[1:]) }, nil
		}}, "format_string")
}

// printf formats the values with f; NULL when Java would throw.
func printf(f *javafmt.Formatter, vals []Value) Value {
	args := make([]any, len(vals))
	for i, v := range vals {
		args[i] = javaArg(v)
	}
	s, err := f.Format(args)
	if err != nil {
		return nullValue
	}
	return strValue(s)
}

// javaArg is a value as Spark hands it to Java's Formatter: null, a
// whole number, a double, text or a boolean (a timestamp as its text).
func javaArg(v Value) any {
	switch v.Kind {
	case Null:
		return nil
	case Int:
		return v.Int
	case Float:
		return v.Float
	case Bool:
		return v.Int != 0
	}
	return v.text()
}
