package web_test

import (
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/mailpit"
)

// checkMailHTML: mail clients render notice m. mailpit checks its HTML
// against caniemail.com's data; no feature the notice uses may be
// unsupported by more than a fifth of the clients, but for two it knows:
// the <body> element itself (html-body: Gmail and others replace it by a
// div, so the styles that matter sit on the table inside) and word-break
// on the download's long link (30%: Yahoo, AOL, GMX, WEB.DE, Orange and
// Windows Mail ignore it, and the link then runs past a narrow screen's
// edge instead of wrapping, still whole). The notices' other features degrade
// gracefully (white-space 15%, border-radius 11%, max-width 7%
// unsupported: plain wrapping, square corners, full width); flexbox (31%),
// gap (41%) or positioning (25%) would fail it. mailpit's overall share is
// no guard: it weighs by feature, so a short document is mostly its <body>.
func checkMailHTML(t *testing.T, pit *mailpit.Server, m mailpit.Message) {
	t.Helper()
	c := pit.CheckHTML(t, m.ID)
	if len(c.Warnings) == 0 {
		t.Errorf("mailpit's HTML check of %q found no features", m.Subject)
	}
	for _, w := range c.Warnings {
		if w.Slug != "html-body" && w.Slug != "css-word-break" && w.Score.Unsupported > 20 {
			t.Errorf("the HTML of %q uses %s (%s), which %.0f%% of mail clients do not support",
				m.Subject, w.Title, w.Slug, w.Score.Unsupported)
		}
	}
}
