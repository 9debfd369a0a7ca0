package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/biodiversity-downloads/downloader/jobs"
)

func init() {
	register("user", "manage API users: user add NAME --email E [--admin] [--language L]", runUser)
}

// runUser: downloader user add NAME [--email E] [--admin] [--language L]
// [--db DSN]. The password comes from $DOWNLOADER_PASSWORD or the first
// line of stdin.
func runUser(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 || args[0] != "add" {
		return errors.New("usage: downloader user add NAME [--email E] [--admin] [--language L] [--db DSN] (password on stdin or in $DOWNLOADER_PASSWORD)")
	}
	fs := newFlagSet("user add", env)
	dsn := fs.String("db", "sqlite:downloads.db", dbFlagHelp)
	email := fs.String("email", "", "the user's e-mail address (default notification address)")
	admin := fs.Bool("admin", false, "the user may act for others")
	lang := fs.String("language", "", "language of the user's notices: a tag such as es, fr or pt-BR (default: the request's, else English)")
	rest := args[1:]
	name := ""
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		name, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if name == "" {
		return errors.New("user add: no user name")
	}
	password, err := readPassword(env)
	if err != nil {
		return err
	}
	db, err := openJobDB(ctx, *dsn, env)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.AddUser(ctx, jobs.User{Name: name, Email: *email, Admin: *admin, Language: *lang}, password); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "added user %s\n", name)
	return nil
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
