package jobs

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// clock is a settable time for the Authenticator's back-off.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func authTest(t *testing.T, cfg AuthConfig) (*Authenticator, *clock, *DB) {
	t.Helper()
	cheapHashes(t)
	db := testDB(t)
	for _, name := range []string{"alice", "bob", "mallory"} {
		if err := db.AddUser(context.Background(), User{Name: name, Email: name + "@example.org"}, name+"-secret"); err != nil {
			t.Fatal(err)
		}
	}
	a := NewAuthenticator(db, cfg)
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a.now = c.now
	return a, c, db
}

// cheapHashes makes the test's password hashes (and the dummy hash) of
// bcrypt's lowest cost, so that the many logins of these tests stay fast.
func cheapHashes(t *testing.T) {
	old := passwordCost
	passwordCost = bcrypt.MinCost
	t.Cleanup(func() { passwordCost = old })
}

// throttledFor checks that err is a back-off of whom, of at most most.
func throttledFor(t *testing.T, err error, whom string, most time.Duration) {
	t.Helper()
	var te *ThrottleError
	if !errors.As(err, &te) || te.Of != whom || te.RetryAfter <= 0 || te.RetryAfter > most {
		t.Fatalf("got %v, want a back-off of %s of at most %s", err, whom, most)
	}
}

// An address gets AddressFree failures, then backs off, doubling; known and
// unknown user names are treated alike; the back-off ends by itself.
func TestAuthAddressBackoff(t *testing.T) {
	for _, user := range []string{"alice", "nobody"} {
		t.Run(user, func(t *testing.T) {
			a, c, _ := authTest(t, AuthConfig{})
			ctx := context.Background()
			const from = "198.51.100.7:4000"
			for i := 0; i < 6; i++ { // 5 free, the 6th starts the back-off
				if _, err := a.Check(ctx, user, fmt.Sprintf("guess-%d", i), from); !errors.Is(err, ErrUnauthorized) {
					t.Fatalf("failure %d: %v", i+1, err)
				}
			}
			_, err := a.Check(ctx, user, "guess-7", from)
			throttledFor(t, err, "this address", time.Second)
			// Even the right password waits: the password is not looked at.
			_, err = a.Check(ctx, "alice", "alice-secret", "198.51.100.7:4001")
			throttledFor(t, err, "this address", time.Second)
			c.advance(time.Second)
			if _, err := a.Check(ctx, user, "guess-8", from); !errors.Is(err, ErrUnauthorized) {
				t.Fatalf("after the back-off: %v", err)
			}
			_, err = a.Check(ctx, user, "guess-9", from)
			throttledFor(t, err, "this address", 2*time.Second) // doubled
			// Another address is not held by this one's failures (for the
			// unknown name; alice's own counter is not past 10).
			if _, err := a.Check(ctx, "bob", "bob-secret", "203.0.113.9:1"); err != nil {
				t.Fatalf("another address and user: %v", err)
			}
		})
	}
}

// A user name gets UserFree failures from anywhere, then backs off for at
// most UserMaxDelay; addresses the user logged in from before are exempt,
// so an attacker cannot lock the user out of them.
func TestAuthUserBackoffNotPermanent(t *testing.T) {
	a, c, _ := authTest(t, AuthConfig{UserMaxDelay: time.Minute})
	ctx := context.Background()
	const home = "192.0.2.10:5000"
	if _, err := a.Check(ctx, "alice", "alice-secret", home); err != nil {
		t.Fatal(err)
	}
	// An attacker spreads 40 guesses over 40 addresses (no address backs off).
	for i := 0; i < 40; i++ {
		c.advance(time.Second)
		_, err := a.Check(ctx, "alice", "guess", fmt.Sprintf("10.0.%d.1:1", i))
		var te *ThrottleError
		if !errors.Is(err, ErrUnauthorized) && !(errors.As(err, &te) && te.Of == "this user") {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	// From a new address alice waits, at most a minute (her login at home
	// is no longer remembered)...
	a.cache = map[[32]byte]authEntry{}
	_, err := a.Check(ctx, "alice", "alice-secret", "203.0.113.50:1")
	throttledFor(t, err, "this user", time.Minute)
	// ...but not at home.
	a.cache = map[[32]byte]authEntry{} // a password check, not the cache
	if _, err := a.Check(ctx, "alice", "alice-secret", home); err != nil {
		t.Fatalf("alice at home during the attack: %v", err)
	}
	// Her success cleared the user's counter: the new address works too.
	a.cache = map[[32]byte]authEntry{}
	if _, err := a.Check(ctx, "alice", "alice-secret", "203.0.113.50:1"); err != nil {
		t.Fatalf("alice from a new address after her success: %v", err)
	}
}

// A success clears the failures of a user who mistyped; an address that
// failed for several names keeps its count when one of them succeeds.
func TestAuthSuccessResets(t *testing.T) {
	a, _, _ := authTest(t, AuthConfig{})
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		if _, err := a.Check(ctx, "alice", "typo", "192.0.2.1:1"); !errors.Is(err, ErrUnauthorized) {
			t.Fatal(err)
		}
	}
	if _, err := a.Check(ctx, "alice", "alice-secret", "192.0.2.1:1"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ { // five free failures again
		if _, err := a.Check(ctx, "alice", "typo", "192.0.2.1:1"); !errors.Is(err, ErrUnauthorized) {
			t.Fatalf("failure %d after the reset: %v", i+1, err)
		}
	}
	// Spraying: failures for bob and alice, then mallory's own success.
	const sprayer = "198.51.100.99:1"
	for _, u := range []string{"bob", "alice", "bob", "alice", "bob"} {
		if _, err := a.Check(ctx, u, "guess", sprayer); !errors.Is(err, ErrUnauthorized) {
			t.Fatal(err)
		}
	}
	if _, err := a.Check(ctx, "mallory", "mallory-secret", sprayer); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Check(ctx, "bob", "guess", sprayer); !errors.Is(err, ErrUnauthorized) {
		t.Fatal(err) // the 6th failure, counted with the first five
	}
	_, err := a.Check(ctx, "bob", "guess", sprayer)
	throttledFor(t, err, "this address", time.Second)
}

// The failure tables never hold more than MaxEntries entries.
func TestAuthTablesBounded(t *testing.T) {
	a, _, _ := authTest(t, AuthConfig{MaxEntries: 50, MaxHashers: 2})
	ctx := context.Background()
	for i := 0; i < 120; i++ {
		_, _ = a.Check(ctx, fmt.Sprintf("user%d", i), "guess", fmt.Sprintf("10.1.0.%d:1", i))
	}
	if a.byAddr.len() > 50 || a.byUser.len() > 50 {
		t.Fatalf("tables hold %d addresses and %d users, want at most 50", a.byAddr.len(), a.byUser.len())
	}
	// IPv6 clients count by /64.
	for i := 0; i < 6; i++ {
		_, _ = a.Check(ctx, "bob", "guess", fmt.Sprintf("[2001:db8:1:2::%x]:443", i+1))
	}
	_, err := a.Check(ctx, "bob", "guess", "[2001:db8:1:2:ffff::1]:443")
	throttledFor(t, err, "this address", time.Second)
}

// Disabling, removing or a new password take effect at once, also for a
// login remembered by the cache.
func TestAuthAccountChanges(t *testing.T) {
	a, _, db := authTest(t, AuthConfig{})
	ctx := context.Background()
	const from = "192.0.2.1:1"
	if _, err := a.Check(ctx, "alice", "alice-secret", from); err != nil {
		t.Fatal(err)
	}
	if u, err := db.GetUser(ctx, "alice"); err != nil || u.LastLogin.IsZero() {
		t.Fatalf("last login not recorded: %+v %v", u, err)
	}
	if err := db.SetDisabled(ctx, "alice", true); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Check(ctx, "alice", "alice-secret", from); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("disabled user: %v", err)
	}
	if err := db.SetDisabled(ctx, "alice", false); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Check(ctx, "alice", "alice-secret", from); err != nil {
		t.Fatalf("enabled again: %v", err)
	}
	if err := db.SetPassword(ctx, "alice", "a new passphrase"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Check(ctx, "alice", "alice-secret", from); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("old password after passwd: %v", err)
	}
	if _, err := a.Check(ctx, "alice", "a new passphrase", from); err != nil {
		t.Fatalf("new password: %v", err)
	}
	if _, err := db.RemoveUser(ctx, "alice", false); err != nil {
		t.Fatal(err) // no downloads: deleted
	}
	if _, err := a.Check(ctx, "alice", "a new passphrase", from); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("removed user: %v", err)
	}
}

// When every hashing slot stays taken, a login waits at most HashWait.
func TestAuthBusy(t *testing.T) {
	a, _, _ := authTest(t, AuthConfig{MaxHashers: 1, HashWait: 50 * time.Millisecond})
	a.slots <- struct{}{} // a login hashing for ever
	start := time.Now()
	_, err := a.Check(context.Background(), "alice", "alice-secret", "192.0.2.1:1")
	if !errors.Is(err, ErrAuthBusy) || time.Since(start) > 5*time.Second {
		t.Fatalf("%v after %s, want ErrAuthBusy after about 50ms", err, time.Since(start))
	}
	<-a.slots
	if _, err := a.Check(context.Background(), "alice", "alice-secret", "192.0.2.1:1"); err != nil {
		t.Fatalf("the busy answer counted as a failure: %v", err)
	}
}

// Removing a user with downloads is refused without force; with force the
// account is closed, its downloads kept, and its name not given out again.
func TestRemoveUserWithDownloads(t *testing.T) {
	db := leaseTestDB(t) // alice with one download
	ctx := context.Background()
	if _, err := db.RemoveUser(ctx, "alice", false); !errors.Is(err, ErrUserHasDownloads) {
		t.Fatalf("remove without force: %v", err)
	}
	if n, err := db.RemoveUser(ctx, "alice", true); err != nil || n != 1 {
		t.Fatalf("remove --force: %d %v", n, err)
	}
	u, err := db.GetUser(ctx, "alice")
	if err != nil || u.Removed.IsZero() || !u.Disabled || u.Email != "" {
		t.Fatalf("removed user %+v %v", u, err)
	}
	if _, err := db.getDownload(ctx, db.SQL, "0000001-k"); err != nil {
		t.Fatalf("the download was not kept: %v", err)
	}
	if err := db.AddUser(ctx, User{Name: "alice"}, "someone else"); !errors.Is(err, ErrUserExists) {
		t.Fatalf("name of a removed user given out again: %v", err)
	}
	for _, err := range []error{db.SetDisabled(ctx, "alice", false), db.SetPassword(ctx, "alice", "new password")} {
		if !errors.Is(err, ErrUserRemoved) {
			t.Fatalf("changing a removed user: %v", err)
		}
	}
}
