package main

import (
	"cmp"
	"strings"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/storage/local"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
	"github.com/biodiversity-downloads/downloader/web"
)

// checkStart makes the checks serve makes before it starts that connect to
// nothing, so that config check and serve --check refuse what serve would:
// the table (a directory must hold one; an HBase table is not contacted),
// the export table, the storage (a directory must be writable or makeable;
// an S3 bucket is not contacted), the mail settings and the portal page's
// overrides.
func (d *configDecoder) checkStart(f *serveFlags) {
	d.checkTable(f.table)
	if f.exports.table != "" {
		if err := checkExportTable(f.exports.table); err != nil {
			d.fail(d.origin["export_table"], "export_table", "%v", err)
		}
	}
	d.checkStorage(f)
	d.checkMail(f)
	d.checkPage(f)
}

// checkStorage refuses a storage directory serve could not make or write,
// and an s3:// location it could not read.
func (d *configDecoder) checkStorage(f *serveFlags) {
	var err error
	if strings.HasPrefix(f.storage, "s3://") {
		_, err = s3Config(f.storage, f.conf.Storage)
	} else {
		err = local.CheckDir(f.storage)
	}
	if err != nil {
		d.fail(d.origin["storage.location"], "storage.location", "%v", err)
	}
}

// checkPage loads the portal page's strings and templates with the
// overrides, as serve does when it serves the page.
func (d *configDecoder) checkPage(f *serveFlags) {
	if !f.page.enabled || jobs.Role(f.role) == jobs.RoleWorker || f.jobs.OverridesDir == "" {
		return
	}
	if _, err := web.NewPage(web.PageConfig{OverridesDir: f.jobs.OverridesDir}, nil); err != nil {
		d.fail(d.origin["overrides"], "overrides", "%v", err)
	}
}

// checkTable refuses a missing table, or a directory that holds none, as
// openEngine would.
func (d *configDecoder) checkTable(spec string) {
	switch {
	case spec == "":
		d.fail("", "table", "missing: the occurrence table, a directory or hbase://host:port/name (--table, $DOWNLOADER_TABLE)")
	case strings.HasPrefix(spec, "hbase://"):
	default:
		if err := parquet.CheckExisting(spec); err != nil {
			d.fail(d.origin["table"], "table", "%v", err)
		}
	}
}

// checkMail checks what serve checks of its mailer before it starts: the
// SMTP settings (jobs.NewMailer, which does not connect), the notices'
// templates and strings with the overrides, and the public URL the
// notices of a worker link to.
func (d *configDecoder) checkMail(f *serveFlags) {
	if f.mail.Addr == "" {
		return
	}
	smtpAt := d.origin["smtp.host"]
	if _, err := openMailer(*f); err != nil {
		d.fail(smtpAt, "smtp", "%v", err)
	}
	if err := jobs.CheckMailOverrides(f.jobs.OverridesDir); err != nil {
		d.fail(cmp.Or(d.origin["overrides"], smtpAt), "overrides", "%v", err)
	}
	if jobs.Role(f.role) == jobs.RoleWorker && f.publicURL == "" {
		d.fail(cmp.Or(d.origin["role"], smtpAt), "public_url", "missing: in the worker role, smtp.host needs public_url (the notices link to the download)")
	}
}
