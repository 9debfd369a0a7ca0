package jobs

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Sessions of the portal page: a user signs in once with a password and
// the browser then carries a random token in a cookie. Only the token's
// SHA-256 is stored, so the table alone lets nobody act as a user. Each
// session has its own CSRF token, which the page sends back with every
// change it asks for.

// ErrSessionExpired marks a session token that is unknown, expired or
// signed out.
var ErrSessionExpired = errors.New("session expired or signed out")

// Session is a signed-in browser.
type Session struct {
	// Token is the cookie's value; only NewSession returns it.
	Token string
	// CSRF is the token the page sends back in a header with every change.
	CSRF string
	User User
	// Expires is when the session ends unless it is used again.
	Expires time.Time
}

// SessionConfig says how long sessions live.
type SessionConfig struct {
	// Idle is how long a session lasts without being used (default 12 h);
	// each use moves its end forward.
	Idle time.Duration
	// Max is the longest a session lasts however often it is used (default
	// 30 days).
	Max time.Duration
}

// WithDefaults returns c with every zero field set to its default.
func (c SessionConfig) WithDefaults() SessionConfig {
	if c.Idle <= 0 {
		c.Idle = 12 * time.Hour
	}
	if c.Max <= 0 {
		c.Max = 30 * 24 * time.Hour
	}
	if c.Max < c.Idle {
		c.Max = c.Idle
	}
	return c
}

// randomToken is 32 random bytes, URL-safe base64.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

func tokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// NewSession starts a session for u, who has just proved a password, and
// drops expired sessions of every user.
func (s *Service) NewSession(ctx context.Context, u User, cfg SessionConfig) (Session, error) {
	cfg = cfg.WithDefaults()
	now := time.Now()
	ses := Session{Token: randomToken(), CSRF: randomToken(), User: u, Expires: now.Add(cfg.Idle)}
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.db.q("DELETE FROM page_sessions WHERE expires < ?"), now.UnixMilli()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.db.q(`INSERT INTO page_sessions (token_hash, user_name, csrf, created, seen, expires)
			VALUES (?, ?, ?, ?, ?, ?)`), tokenHash(ses.Token), u.Name, ses.CSRF, now.UnixMilli(), now.UnixMilli(), ses.Expires.UnixMilli())
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("start session: %w", err)
	}
	return ses, nil
}

// sessionRefresh is how often a session's use is written back (its end
// moved forward): at most once a minute per session.
const sessionRefresh = time.Minute

// Session returns the session of token with its user, as the users table
// says now, or ErrSessionExpired (also for a user disabled or removed since
// signing in). Using a session moves its end forward
// by cfg.Idle, up to cfg.Max after it started.
func (s *Service) Session(ctx context.Context, token string, cfg SessionConfig) (Session, error) {
	cfg = cfg.WithDefaults()
	if token == "" {
		return Session{}, ErrSessionExpired
	}
	hash := tokenHash(token)
	var ses Session
	var created, seen, expires int64
	err := s.db.read.QueryRowContext(ctx, s.db.q(`SELECT s.csrf, s.created, s.seen, s.expires, u.name, u.email, u.admin, u.language
		FROM page_sessions s JOIN users u ON u.name = s.user_name
		WHERE s.token_hash = ? AND NOT u.disabled AND u.removed = 0`), hash).
		Scan(&ses.CSRF, &created, &seen, &expires, &ses.User.Name, &ses.User.Email, &ses.User.Admin, &ses.User.Language)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrSessionExpired
	}
	if err != nil {
		return Session{}, err
	}
	now := time.Now()
	if now.UnixMilli() >= expires {
		return Session{}, ErrSessionExpired
	}
	ses.Expires = time.UnixMilli(expires)
	if now.Sub(time.UnixMilli(seen)) >= sessionRefresh {
		end := min(now.Add(cfg.Idle).UnixMilli(), time.UnixMilli(created).Add(cfg.Max).UnixMilli())
		if _, err := s.db.SQL.ExecContext(ctx, s.db.q("UPDATE page_sessions SET seen = ?, expires = ? WHERE token_hash = ?"),
			now.UnixMilli(), end, hash); err != nil {
			return Session{}, fmt.Errorf("refresh session: %w", err)
		}
		ses.Expires = time.UnixMilli(end)
	}
	return ses, nil
}

// EndSession signs token's session out; an unknown token is no error.
func (s *Service) EndSession(ctx context.Context, token string) error {
	_, err := s.db.SQL.ExecContext(ctx, s.db.q("DELETE FROM page_sessions WHERE token_hash = ?"), tokenHash(token))
	return err
}
