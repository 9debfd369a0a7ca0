package jobs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"sync"
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

var userNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// AddUser creates a user with a bcrypt hash of password.
func (db *DB) AddUser(ctx context.Context, u User, password string) error {
	if !userNameRE.MatchString(u.Name) {
		return fmt.Errorf("%w: user name %q: use 1-64 letters, digits, '.', '_', '@' or '-'", ErrInvalidRequest, u.Name)
	}
	if len(password) < 8 {
		return fmt.Errorf("%w: password for %q: at least 8 characters", ErrInvalidRequest, u.Name)
	}
	if len(password) > 72 {
		return fmt.Errorf("%w: password for %q: at most 72 bytes (bcrypt's limit)", ErrInvalidRequest, u.Name)
	}
	lang, err := CanonicalLanguage(u.Language)
	if err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return err
	}
	var n int
	if err := db.SQL.QueryRowContext(ctx, db.q("SELECT count(*) FROM users WHERE name = ?"), u.Name).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%w: %s", ErrUserExists, u.Name)
	}
	_, err = db.SQL.ExecContext(ctx,
		db.q("INSERT INTO users (name, email, password_hash, admin, created, language) VALUES (?, ?, ?, ?, ?, ?)"),
		u.Name, u.Email, string(hash), u.Admin, time.Now().UnixMilli(), lang)
	if err != nil {
		return fmt.Errorf("add user %s: %w", u.Name, err)
	}
	return nil
}

// GetUser returns the named user.
func (db *DB) GetUser(ctx context.Context, name string) (User, error) {
	u, _, err := db.userWithHash(ctx, name)
	return u, err
}

func (db *DB) userWithHash(ctx context.Context, name string) (User, string, error) {
	var u User
	var hash string
	err := db.SQL.QueryRowContext(ctx, db.q("SELECT name, email, admin, password_hash, language FROM users WHERE name = ?"), name).
		Scan(&u.Name, &u.Email, &u.Admin, &hash, &u.Language)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, "", fmt.Errorf("%w: user %s", ErrNotFound, name)
	}
	return u, hash, err
}

// Authenticator checks HTTP Basic credentials against the users table. bcrypt
// costs tens of milliseconds, so successful checks are remembered for a short
// while (keyed by a SHA-256 of name and password, never the password itself).
type Authenticator struct {
	db  *DB
	ttl time.Duration

	mu    sync.Mutex
	cache map[[32]byte]authEntry
}

type authEntry struct {
	user    User
	expires time.Time
}

// NewAuthenticator returns an Authenticator that caches successes for ttl.
func NewAuthenticator(db *DB, ttl time.Duration) *Authenticator {
	return &Authenticator{db: db, ttl: ttl, cache: map[[32]byte]authEntry{}}
}

// Check returns the user for name and password or ErrUnauthorized.
func (a *Authenticator) Check(ctx context.Context, name, password string) (User, error) {
	id := sha256.Sum256([]byte(name + "\x00" + password))
	now := time.Now()
	a.mu.Lock()
	e, ok := a.cache[id]
	a.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.user, nil
	}
	u, hash, err := a.db.userWithHash(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return User{}, ErrUnauthorized
	}
	if err != nil {
		return User{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return User{}, ErrUnauthorized
	}
	a.mu.Lock()
	if len(a.cache) > 10_000 {
		clear(a.cache)
	}
	a.cache[id] = authEntry{user: u, expires: now.Add(a.ttl)}
	a.mu.Unlock()
	return u, nil
}
