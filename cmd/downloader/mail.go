package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/biodiversity-downloads/downloader/jobs"
)

func init() {
	register("mail", "preview a notice, or send it to check the SMTP settings: mail preview --notice success --language fr [--to ADDR]", runMail)
}

// runMail: downloader mail preview [--notice N] [--language L]
// [--overrides DIR] [--part subject|text|html] [--to ADDR and serve's SMTP
// flags]. It renders a notice with sample data from the embedded templates
// and strings under the overrides; with --to it sends it.
func runMail(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 || args[0] != "preview" {
		return errors.New("usage: downloader mail preview [--notice success|failure|erasure_warning|digest] [--language L] [--overrides DIR] [--part subject|text|html] [--to ADDR --smtp HOST:PORT ...]")
	}
	fs := newFlagSet("mail preview", env)
	notice := fs.String("notice", string(jobs.NoticeSuccess), "success, failure, erasure_warning or digest")
	lang := fs.String("language", "en", "language tag (the best catalogue is used, English when none matches)")
	overrides := fs.String("overrides", "", "operator's overrides directory (as serve --overrides)")
	part := fs.String("part", "", "print only this part: subject, text or html")
	to := fs.String("to", "", "send the notice to this address through --smtp instead of printing it")
	var mc jobs.MailConfig
	registerMailFlags(fs, &mc)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	msg, err := jobs.MailPreview(*overrides, jobs.NoticeKind(*notice), *lang)
	if err != nil {
		return err
	}
	if *to != "" {
		if mc.Addr == "" {
			return errors.New("mail preview --to: give the SMTP server with --smtp")
		}
		mc.Password = os.Getenv("DOWNLOADER_SMTP_PASSWORD")
		m, err := jobs.NewMailer(mc)
		if err != nil {
			return err
		}
		msg.To = []string{*to}
		if err := m.Send(ctx, msg); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "sent %s (%s) to %s: Message-ID <%s>\n", *notice, msg.Language, *to, msg.MessageID)
		return nil
	}
	switch *part {
	case "subject":
		fmt.Fprintln(env.Stdout, msg.Subject)
	case "text":
		fmt.Fprint(env.Stdout, msg.Text)
	case "html":
		fmt.Fprint(env.Stdout, msg.HTML)
	case "":
		fmt.Fprintf(env.Stdout, "Subject: %s\nContent-Language: %s\n\n%s\n----- HTML -----\n%s", msg.Subject, msg.Language, msg.Text, msg.HTML)
	default:
		return fmt.Errorf("--part %q: want subject, text or html", *part)
	}
	return nil
}
