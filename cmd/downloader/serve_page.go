package main

import (
	"flag"
	"strings"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/web"
)

// pageFlags are serve's settings of the portal page (docs/page.md).
type pageFlags struct {
	enabled       bool
	sessions      jobs.SessionConfig
	contactPerDay int
}

func (p *pageFlags) register(fs *flag.FlagSet) {
	def := jobs.SessionConfig{}.WithDefaults()
	fs.BoolVar(&p.enabled, "page", true, "serve the portal page at / (search, map, sign-in, downloads; roles api and all)")
	fs.DurationVar(&p.sessions.Idle, "session-idle", def.Idle, "how long a page sign-in lasts unused")
	fs.DurationVar(&p.sessions.Max, "session-max", def.Max, "how long a page sign-in lasts at most")
	fs.IntVar(&p.contactPerDay, "contact-per-day", 10, "messages to publishers one user may send in 24 hours (negative: no contact form)")
}

// defaults points the notices' download links at the page's download
// view when the page is served and no other page is configured.
func (p *pageFlags) defaults(f *serveFlags) {
	if p.enabled && f.mail.PageURL == "" && f.publicURL != "" {
		f.mail.PageURL = strings.TrimSuffix(f.publicURL, "/") + "/occurrence/download/{key}"
	}
}

// open loads the page (nil when it is off or the process serves no HTTP).
func (p *pageFlags) open(f serveFlags, svc *jobs.Service, catalog occurrence.Catalog, env *Env) (*web.Page, error) {
	if !p.enabled || f.jobs.Role == jobs.RoleWorker {
		return nil, nil
	}
	return web.NewPage(web.PageConfig{OverridesDir: f.jobs.OverridesDir, Sessions: p.sessions, Catalog: catalog,
		ContactPerDay: p.contactPerDay, Secure: strings.HasPrefix(f.publicURL, "https://"),
		Portal: svc.Config().Portal.Name}, env.Logger)
}
