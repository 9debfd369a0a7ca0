package main

import (
	"github.com/biodiversity-downloads/downloader/species"
	"github.com/biodiversity-downloads/downloader/web"
)

// speciesDir is the taxonomy directory the species API reads:
// --taxonomy-dir, else the table directory's taxonomy; "" for an HBase
// table without --taxonomy-dir.
func (f *serveFlags) speciesDir() string { return taxonomyDir(f.table, f.taxonomyDir) }

// species returns the species API of serve (nil without a taxonomy
// directory: its routes answer 503) and what closes it.
func (f *serveFlags) species(env *Env) (web.Species, func()) {
	dir := f.speciesDir()
	if dir == "" {
		env.Logger.Warn("the species API has no taxonomy: give --taxonomy-dir for an HBase table")
		return nil, func() {}
	}
	src := species.NewDir(dir, env.Logger)
	return species.New(src), func() { _ = src.Close() }
}
