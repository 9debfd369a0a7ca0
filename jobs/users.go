package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/text/language"
)

// User is an account that may request downloads.
type User struct {
	Name  string
	Email string
	Admin bool
	// Language is the BCP 47 tag of the language the user reads notices in
	// ("es", "fr", "pt-BR"); empty: the language of the request, else
	// English.
	Language string
	// Disabled users cannot authenticate; Removed is when an account with
	// downloads was closed (zero: not removed). Created and LastLogin (zero:
	// none recorded) are shown by ListUsers.
	Disabled           bool
	Removed            time.Time
	Created, LastLogin time.Time
}

// CanonicalLanguage checks a language tag and returns it in canonical
// form ("" stays "").
func CanonicalLanguage(tag string) (string, error) {
	if tag == "" {
		return "", nil
	}
	t, err := language.Parse(tag)
	if err != nil {
		return "", fmt.Errorf("%w: language %q: want a BCP 47 tag such as es, fr or pt-BR", ErrInvalidRequest, tag)
	}
	return t.String(), nil
}

// ErrUserRemoved is returned for an account that was removed while its
// downloads were kept.
var ErrUserRemoved = errors.New("user removed")

var userNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// passwordCost is the bcrypt cost of stored passwords and of the
// Authenticator's dummy hash (tests lower it).
var passwordCost = bcrypt.DefaultCost

// hashPassword checks a password's length and returns its bcrypt hash.
func hashPassword(name, password string) (string, error) {
	if len(password) < 8 {
		return "", fmt.Errorf("%w: password for %q: at least 8 characters", ErrInvalidRequest, name)
	}
	if len(password) > 72 {
		return "", fmt.Errorf("%w: password for %q: at most 72 bytes (bcrypt's limit)", ErrInvalidRequest, name)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), passwordCost)
	return string(hash), err
}

// AddUser creates a user with a bcrypt hash of password. The name of a
// removed user whose downloads were kept is not given out again.
func (db *DB) AddUser(ctx context.Context, u User, password string) error {
	if !userNameRE.MatchString(u.Name) {
		return fmt.Errorf("%w: user name %q: use 1-64 letters, digits, '.', '_', '@' or '-'", ErrInvalidRequest, u.Name)
	}
	lang, err := CanonicalLanguage(u.Language)
	if err != nil {
		return err
	}
	hash, err := hashPassword(u.Name, password)
	if err != nil {
		return err
	}
	var removed int64
	err = db.SQL.QueryRowContext(ctx, db.q("SELECT removed FROM users WHERE name = ?"), u.Name).Scan(&removed)
	switch {
	case err == nil && removed != 0:
		return fmt.Errorf("%w: %s was removed and its downloads kept under that name; choose another name", ErrUserExists, u.Name)
	case err == nil:
		return fmt.Errorf("%w: %s", ErrUserExists, u.Name)
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	_, err = db.SQL.ExecContext(ctx,
		db.q("INSERT INTO users (name, email, password_hash, admin, created, language) VALUES (?, ?, ?, ?, ?, ?)"),
		u.Name, u.Email, hash, u.Admin, time.Now().UnixMilli(), lang)
	if err != nil {
		return fmt.Errorf("add user %s: %w", u.Name, err)
	}
	return nil
}

const userColumns = "name, email, admin, language, disabled, removed, created, last_login"

func scanUser(s scanner) (User, error) {
	var u User
	var removed, created, last int64
	if err := s.Scan(&u.Name, &u.Email, &u.Admin, &u.Language, &u.Disabled, &removed, &created, &last); err != nil {
		return User{}, err
	}
	u.Removed, u.Created, u.LastLogin = fromMillis(removed).Time, fromMillis(created).Time, fromMillis(last).Time
	return u, nil
}

// GetUser returns the named user.
func (db *DB) GetUser(ctx context.Context, name string) (User, error) {
	u, err := scanUser(db.SQL.QueryRowContext(ctx, db.q("SELECT "+userColumns+" FROM users WHERE name = ?"), name))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("%w: user %s", ErrNotFound, name)
	}
	return u, err
}

// ListUsers returns every user, removed ones included, by name.
func (db *DB) ListUsers(ctx context.Context) ([]User, error) {
	return collect(ctx, db.SQL, "SELECT "+userColumns+" FROM users ORDER BY name", nil, scanUser)
}

// liveUser returns name unless it does not exist (ErrNotFound) or was
// removed (ErrUserRemoved).
func (db *DB) liveUser(ctx context.Context, name string) (User, error) {
	u, err := db.GetUser(ctx, name)
	if err == nil && !u.Removed.IsZero() {
		return User{}, fmt.Errorf("%w: %s", ErrUserRemoved, name)
	}
	return u, err
}

// SetPassword replaces a user's password.
func (db *DB) SetPassword(ctx context.Context, name, password string) error {
	if _, err := db.liveUser(ctx, name); err != nil {
		return err
	}
	hash, err := hashPassword(name, password)
	if err != nil {
		return err
	}
	_, err = db.SQL.ExecContext(ctx, db.q("UPDATE users SET password_hash = ? WHERE name = ? AND removed = 0"), hash, name)
	return err
}

// SetDisabled disables or enables a user. A disabled user cannot
// authenticate (a running server notices at the user's next request); the
// user's downloads are untouched.
func (db *DB) SetDisabled(ctx context.Context, name string, disabled bool) error {
	if _, err := db.liveUser(ctx, name); err != nil {
		return err
	}
	_, err := db.SQL.ExecContext(ctx, db.q("UPDATE users SET disabled = ? WHERE name = ? AND removed = 0"), disabled, name)
	return err
}

// ErrUserHasDownloads refuses to remove a user with downloads without force.
var ErrUserHasDownloads = errors.New("user has downloads")

// RemoveUser removes a user. A user without downloads is deleted. A user
// with downloads is refused unless force is set; then the account is
// closed and its downloads kept: the row stays under its name (which is not
// given out again, so that no one else becomes the creator of those
// downloads) without e-mail, password or admin right, disabled, and marked
// removed. Downloads still running finish; their archives stay until their
// eraseAfter.
func (db *DB) RemoveUser(ctx context.Context, name string, force bool) (downloads int, err error) {
	if _, err := db.liveUser(ctx, name); err != nil {
		return 0, err
	}
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, db.q("SELECT count(*) FROM downloads WHERE creator = ?"), name).Scan(&downloads); err != nil {
			return err
		}
		if downloads == 0 {
			_, err := tx.ExecContext(ctx, db.q("DELETE FROM users WHERE name = ?"), name)
			return err
		}
		if !force {
			return fmt.Errorf("%w: %s has %d downloads, which keep its name as their creator; "+
				"disable the user instead, or remove with --force to close the account and keep the downloads",
				ErrUserHasDownloads, name, downloads)
		}
		_, err := tx.ExecContext(ctx, db.q(`UPDATE users SET email = '', password_hash = '', admin = ?, disabled = ?,
			removed = ? WHERE name = ?`), false, true, time.Now().UnixMilli(), name)
		return err
	})
	return downloads, err
}

// credentials returns what authentication needs of a user: the password
// hash, and whether the account may log in.
func (db *DB) credentials(ctx context.Context, name string) (u User, hash string, err error) {
	var removed int64
	err = db.SQL.QueryRowContext(ctx, db.q(`SELECT name, email, admin, language, disabled, removed, password_hash
		FROM users WHERE name = ?`), name).Scan(&u.Name, &u.Email, &u.Admin, &u.Language, &u.Disabled, &removed, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, "", fmt.Errorf("%w: user %s", ErrNotFound, name)
	}
	u.Removed = fromMillis(removed).Time
	return u, hash, err
}

// recordLogin notes a password authentication of name at t.
func (db *DB) recordLogin(ctx context.Context, name string, t time.Time) error {
	_, err := db.SQL.ExecContext(ctx, db.q("UPDATE users SET last_login = ? WHERE name = ?"), t.UnixMilli(), name)
	return err
}
