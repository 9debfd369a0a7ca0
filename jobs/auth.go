package jobs

import (
	"container/list"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Errors of authentication besides ErrUnauthorized.
var (
	// ErrTooManyAttempts: too many failed logins; wrapped in a
	// *ThrottleError that says how long to wait.
	ErrTooManyAttempts = errors.New("too many failed logins")
	// ErrAuthBusy: every password-hashing slot stayed taken for
	// AuthConfig.HashWait.
	ErrAuthBusy = errors.New("too many logins in progress")
)

// ThrottleError refuses a login during a back-off after failures.
type ThrottleError struct {
	// RetryAfter is how long until the next attempt is considered.
	RetryAfter time.Duration
	// Of says whose failures: "this address" or "this user".
	Of string
}

func (e *ThrottleError) Error() string {
	return fmt.Sprintf("%v for %s: try again in %s", ErrTooManyAttempts, e.Of, e.RetryAfter.Round(time.Second))
}

// Unwrap returns ErrTooManyAttempts.
func (e *ThrottleError) Unwrap() error { return ErrTooManyAttempts }

// AuthConfig tunes the Authenticator; zero fields take the defaults of
// WithDefaults. The policy (docs/operations.md):
//
//   - Every failed login counts against the client's address and against the
//     user name tried (known or not: the answers never tell them apart).
//   - An address gets AddressFree failures; each further one doubles a
//     back-off from BaseDelay up to AddressMaxDelay, during which logins from
//     it are refused (429) without looking at the password.
//   - A user name gets UserFree failures, then the same doubling up to
//     UserMaxDelay (shorter: it also holds back the real user). It does not
//     apply to an address the user has logged in from before (remembered for
//     TrustFor), so an attacker cannot lock a user out of the places the user
//     logs in from, and from elsewhere only for UserMaxDelay at a time.
//   - A counter is forgotten ForgetAfter after its last failure. A success
//     clears the user's counter, and the address's when all its failures were
//     for that user (a mistyped password).
//   - Each table holds at most MaxEntries entries; the least recently used
//     are dropped first. IPv6 addresses count by /64.
type AuthConfig struct {
	// CacheTTL is how long a verified name and password are remembered, so
	// that a client's requests do not each cost a hash (1 min). A
	// remembered login still reads the user's row: disabling, removing or a
	// new password take effect at once.
	CacheTTL time.Duration
	// MaxHashers caps concurrent password hashing (half the CPUs, at least
	// one), so that logins, right or wrong, cannot take every core; HashWait
	// is the longest wait for a slot before ErrAuthBusy (10 s).
	MaxHashers int
	HashWait   time.Duration

	AddressFree, UserFree         int
	BaseDelay                     time.Duration
	AddressMaxDelay, UserMaxDelay time.Duration
	ForgetAfter, TrustFor         time.Duration
	MaxEntries                    int
}

// WithDefaults returns c with every zero field set to its default.
func (c AuthConfig) WithDefaults() AuthConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	defInt := func(d *int, v int) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.CacheTTL, time.Minute)
	defInt(&c.MaxHashers, max(1, runtime.GOMAXPROCS(0)/2))
	def(&c.HashWait, 10*time.Second)
	defInt(&c.AddressFree, 5)
	defInt(&c.UserFree, 10)
	def(&c.BaseDelay, time.Second)
	def(&c.AddressMaxDelay, 15*time.Minute)
	def(&c.UserMaxDelay, 5*time.Minute)
	def(&c.ForgetAfter, time.Hour)
	def(&c.TrustFor, 30*24*time.Hour)
	defInt(&c.MaxEntries, 100_000)
	return c
}

// Authenticator checks HTTP Basic credentials against the users table with
// bounded cost: a bcrypt comparison for every password tried (a dummy hash
// of the same cost for unknown users, so that the time does not tell a
// known user from an unknown one), at most MaxHashers at once, and back-off
// after failures (see AuthConfig).
type Authenticator struct {
	db     *DB
	cfg    AuthConfig
	dummy  []byte
	slots  chan struct{}
	now    func() time.Time
	mu     sync.Mutex
	cache  map[[32]byte]authEntry
	byAddr *lru[failures]
	byUser *lru[failures]
	trust  *lru[time.Time]
}

type authEntry struct {
	hash    string // the hash the password was verified against
	expires time.Time
}

// failures counts the failed logins of an address or a user name.
type failures struct {
	n       int
	last    time.Time
	until   time.Time // refused before this
	user    string    // the user name of an address's first failure
	oneUser bool      // all of an address's failures were for user
}

// NewAuthenticator returns an Authenticator over db's users.
func NewAuthenticator(db *DB, cfg AuthConfig) *Authenticator {
	cfg = cfg.WithDefaults()
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	dummy, err := bcrypt.GenerateFromPassword(secret[:24], passwordCost)
	if err != nil {
		panic(err) // only for a cost out of range
	}
	return &Authenticator{db: db, cfg: cfg, dummy: dummy, slots: make(chan struct{}, cfg.MaxHashers), now: time.Now,
		cache: map[[32]byte]authEntry{}, byAddr: newLRU[failures](cfg.MaxEntries),
		byUser: newLRU[failures](cfg.MaxEntries), trust: newLRU[time.Time](cfg.MaxEntries)}
}

// Check returns the user for name and password, tried from the client
// address from ("" when unknown), or ErrUnauthorized, a *ThrottleError, or
// ErrAuthBusy.
func (a *Authenticator) Check(ctx context.Context, name, password, from string) (User, error) {
	id := sha256.Sum256([]byte(name + "\x00" + password))
	addr := addressKey(from)
	now := a.now()
	a.mu.Lock()
	e, cached := a.cache[id]
	a.mu.Unlock()
	if cached && now.Before(e.expires) {
		// Verified a moment ago: only the row may have changed.
		u, hash, err := a.db.credentials(ctx, name)
		if err == nil && hash == e.hash && !u.Disabled && u.Removed.IsZero() {
			return u, nil
		}
		a.mu.Lock()
		delete(a.cache, id)
		a.mu.Unlock()
	}
	if err := a.attempt(name, addr, now); err != nil {
		return User{}, err
	}
	u, hash, ok, err := a.verify(ctx, name, password)
	if err != nil {
		a.undo(name, addr)
		return User{}, err
	}
	if !ok {
		return User{}, ErrUnauthorized // counted by attempt
	}
	if u.Disabled {
		a.undo(name, addr) // the right password: not a guess
		return User{}, fmt.Errorf("%w: user %s is disabled", ErrUnauthorized, name)
	}
	now = a.now()
	a.succeeded(name, addr, now)
	// Best effort: the last login is shown by `user list`, and a busy
	// database must not turn a right password into a failed request.
	_ = a.db.recordLogin(ctx, name, now)
	a.mu.Lock()
	if len(a.cache) > 10_000 {
		clear(a.cache)
	}
	a.cache[id] = authEntry{hash: hash, expires: now.Add(a.cfg.CacheTTL)}
	a.mu.Unlock()
	return u, nil
}

// verify compares password with name's hash, or with the dummy hash when
// there is no such user (or it was removed), in a hashing slot.
func (a *Authenticator) verify(ctx context.Context, name, password string) (User, string, bool, error) {
	u, hash, err := a.db.credentials(ctx, name)
	known := err == nil && u.Removed.IsZero() && hash != ""
	if err != nil && !errors.Is(err, ErrNotFound) {
		return User{}, "", false, err
	}
	against := []byte(hash)
	if !known {
		against = a.dummy
	}
	wait := time.NewTimer(a.cfg.HashWait)
	defer wait.Stop()
	select {
	case a.slots <- struct{}{}:
	case <-wait.C:
		return User{}, "", false, ErrAuthBusy
	case <-ctx.Done():
		return User{}, "", false, ctx.Err()
	}
	match := bcrypt.CompareHashAndPassword(against, []byte(password)) == nil
	<-a.slots
	return u, hash, known && match, nil
}

// attempt refuses a login while the address or the user name is backing
// off (the user's back-off does not hold an address the user has logged in
// from before), and otherwise counts it as a failure until it succeeds:
// counted before the password is checked, attempts made in parallel cannot
// all slip in before the first failure is recorded.
func (a *Authenticator) attempt(name, addr string, now time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f, ok := a.byAddr.get(addr); ok && now.Before(f.until) {
		return &ThrottleError{RetryAfter: f.until.Sub(now), Of: "this address"}
	}
	if f, ok := a.byUser.get(name); ok && now.Before(f.until) {
		if t, ok := a.trust.get(name + "\x00" + addr); !ok || now.Sub(t) > a.cfg.TrustFor {
			return &ThrottleError{RetryAfter: f.until.Sub(now), Of: "this user"}
		}
	}
	f := a.count(a.byAddr, addr, a.cfg.AddressFree, a.cfg.AddressMaxDelay, now)
	if f.n == 1 {
		f.user, f.oneUser = name, true
	} else if f.user != name {
		f.oneUser = false
	}
	a.byAddr.put(addr, f)
	a.byUser.put(name, a.count(a.byUser, name, a.cfg.UserFree, a.cfg.UserMaxDelay, now))
	return nil
}

// count adds a failure to key's entry of t, starting over when the last
// one is older than ForgetAfter, and sets the back-off once past free.
func (a *Authenticator) count(t *lru[failures], key string, free int, most time.Duration, now time.Time) failures {
	f, _ := t.get(key)
	if now.Sub(f.last) > a.cfg.ForgetAfter {
		f = failures{}
	}
	f.n++
	f.last = now
	if f.n > free {
		f.until = now.Add(backoff(a.cfg.BaseDelay, most, f.n-free-1))
	}
	return f
}

// uncount takes back one failure counted by attempt.
func (a *Authenticator) uncount(t *lru[failures], key string, free int) {
	f, ok := t.get(key)
	if !ok {
		return
	}
	if f.n--; f.n <= 0 {
		t.remove(key)
		return
	}
	if f.n <= free {
		f.until = time.Time{}
	}
	t.put(key, f)
}

// undo takes back the failure attempt counted for a login that was not a
// wrong password.
func (a *Authenticator) undo(name, addr string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.uncount(a.byAddr, addr, a.cfg.AddressFree)
	a.uncount(a.byUser, name, a.cfg.UserFree)
}

// succeeded clears the user's failures, and the address's when they were
// all this user's (else it takes back this attempt's), and trusts the
// address for the user.
func (a *Authenticator) succeeded(name, addr string, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.byUser.remove(name)
	if f, ok := a.byAddr.get(addr); ok && f.oneUser && f.user == name {
		a.byAddr.remove(addr)
	} else {
		a.uncount(a.byAddr, addr, a.cfg.AddressFree)
	}
	a.trust.put(name+"\x00"+addr, now)
}

// backoff is base doubled n times, at most most.
func backoff(base, most time.Duration, n int) time.Duration {
	d := base
	for range n {
		if d >= most/2 {
			return most
		}
		d *= 2
	}
	return min(d, most)
}

// addressKey is the key of a client address: the IP (IPv6 by its /64,
// which one client usually holds whole), else the text as given.
func addressKey(from string) string {
	ap, err := netip.ParseAddrPort(from)
	ip := ap.Addr()
	if err != nil {
		if ip, err = netip.ParseAddr(from); err != nil {
			return from
		}
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// lru is a map of at most limit entries that drops the least recently used
// one when full. Not safe for concurrent use.
type lru[V any] struct {
	limit int
	order *list.List // front: most recent; values are *lruItem[V]
	items map[string]*list.Element
}

type lruItem[V any] struct {
	key string
	val V
}

func newLRU[V any](limit int) *lru[V] {
	return &lru[V]{limit: limit, order: list.New(), items: map[string]*list.Element{}}
}

func (l *lru[V]) get(key string) (V, bool) {
	if e, ok := l.items[key]; ok {
		l.order.MoveToFront(e)
		return e.Value.(*lruItem[V]).val, true
	}
	var zero V
	return zero, false
}

func (l *lru[V]) put(key string, v V) {
	if e, ok := l.items[key]; ok {
		e.Value.(*lruItem[V]).val = v
		l.order.MoveToFront(e)
		return
	}
	l.items[key] = l.order.PushFront(&lruItem[V]{key: key, val: v})
	for len(l.items) > l.limit {
		old := l.order.Back()
		l.order.Remove(old)
		delete(l.items, old.Value.(*lruItem[V]).key)
	}
}

func (l *lru[V]) remove(key string) {
	if e, ok := l.items[key]; ok {
		l.order.Remove(e)
		delete(l.items, key)
	}
}

func (l *lru[V]) len() int { return len(l.items) }
