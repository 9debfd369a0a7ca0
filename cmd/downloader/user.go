package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

func init() {
	register("user", "manage API users: user add|passwd|disable|enable|remove NAME, user list", runUser)
}

const userUsage = `usage: downloader user COMMAND [NAME] [--db DSN]
  add NAME [--email E] [--admin] [--language L]
                                   add a user (password on stdin or in $DOWNLOADER_PASSWORD)
  passwd NAME                      change a user's password (read as add reads it)
  disable NAME | enable NAME       a disabled user cannot authenticate; downloads are kept
  remove NAME [--force]            delete a user; one with downloads only with --force, which
                                   closes the account and keeps its downloads under its name
  list                             name, e-mail, admin, state, created, last login`

// runUser: downloader user COMMAND ...
func runUser(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 {
		return errors.New(userUsage)
	}
	cmd, rest := args[0], args[1:]
	fs := newFlagSet("user "+cmd, env)
	dsn := fs.String("db", "sqlite:downloads.db", dbFlagHelp)
	var email, lang *string
	var admin, force *bool
	switch cmd {
	case "add":
		email = fs.String("email", "", "the user's e-mail address (default notification address)")
		admin = fs.Bool("admin", false, "the user may act for others")
		lang = fs.String("language", "", "language of the user's notices: a tag such as es, fr or pt-BR (default: the request's, else English)")
	case "remove":
		force = fs.Bool("force", false, "remove a user who has downloads: close the account, keep the downloads")
	case "passwd", "disable", "enable", "list":
	default:
		return fmt.Errorf("user %s: unknown command\n%s", cmd, userUsage)
	}
	name, err := parseUserArgs(fs, rest, cmd != "list")
	if err != nil {
		return err
	}
	var password string
	if cmd == "add" || cmd == "passwd" {
		if password, err = readPassword(env); err != nil {
			return err
		}
	}
	db, err := jobs.OpenMigratedDB(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	switch cmd {
	case "add":
		err = db.AddUser(ctx, jobs.User{Name: name, Email: *email, Admin: *admin, Language: *lang}, password)
	case "passwd":
		err = db.SetPassword(ctx, name, password)
	case "disable", "enable":
		err = db.SetDisabled(ctx, name, cmd == "disable")
	case "remove":
		var n int
		if n, err = db.RemoveUser(ctx, name, *force); err == nil && n > 0 {
			fmt.Fprintf(env.Stdout, "closed the account of %s; its %d downloads are kept\n", name, n)
			return nil
		}
	case "list":
		return listUsers(ctx, db, env)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: %s\n", map[string]string{"add": "added user", "passwd": "changed the password of",
		"disable": "disabled user", "enable": "enabled user", "remove": "removed user"}[cmd], name)
	return nil
}

// parseUserArgs parses flags given before or after the user name and
// returns the name (required when needName).
func parseUserArgs(fs *flag.FlagSet, args []string, needName bool) (string, error) {
	name := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return "", fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if needName && name == "" {
		return "", fmt.Errorf("%s: no user name", fs.Name())
	}
	if !needName && name != "" {
		return "", fmt.Errorf("%s: unexpected argument %q", fs.Name(), name)
	}
	return name, nil
}

// listUsers prints every user as a table.
func listUsers(ctx context.Context, db *jobs.DB, env *Env) error {
	users, err := db.ListUsers(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tEMAIL\tADMIN\tSTATE\tCREATED\tLAST LOGIN")
	day := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04")
	}
	for _, u := range users {
		state := "active"
		switch {
		case !u.Removed.IsZero():
			state = "removed " + u.Removed.UTC().Format("2006-01-02")
		case u.Disabled:
			state = "disabled"
		}
		email := u.Email
		if email == "" {
			email = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", u.Name, email, map[bool]string{true: "yes", false: "no"}[u.Admin],
			state, day(u.Created), day(u.LastLogin))
	}
	return tw.Flush()
}

func readPassword(env *Env) (string, error) {
	if p := os.Getenv("DOWNLOADER_PASSWORD"); p != "" {
		return p, nil
	}
	line, err := bufio.NewReader(env.Stdin).ReadString('\n')
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		if err != nil {
			return "", fmt.Errorf("no password: set $DOWNLOADER_PASSWORD or give it on stdin (%v)", err)
		}
		return "", errors.New("no password: set $DOWNLOADER_PASSWORD or give it on stdin")
	}
	return line, nil
}
