package parquet

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	_ "modernc.org/sqlite" // the id lookup's database

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// idsName is the table's id lookup, an SQLite database beside the manifest.
const idsName = "ids.sqlite"

// idsSchema: a dataset's keys are its occurrence keys with their ids (the
// primary key is the lookup index, keys compared byte for byte); counter
// holds the last id handed out; aliases maps ids of dataset versions the
// table did not mint to the ids that replaced them.
const idsSchema = `
CREATE TABLE IF NOT EXISTS datasets (ds INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS ids (ds INTEGER NOT NULL, key TEXT NOT NULL, id INTEGER NOT NULL,
	PRIMARY KEY (ds, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counter (one INTEGER PRIMARY KEY CHECK (one = 1), last INTEGER NOT NULL);
INSERT OR IGNORE INTO counter (one, last) VALUES (1, 0);
CREATE TABLE IF NOT EXISTS aliases (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
`

// lookupBatch is the most keys one lookup query names.
const lookupBatch = 256

// idStore is the table's gbifID lookup and counter. It is opened on first
// use, so that a table only read never creates it.
type idStore struct {
	path string

	mu      sync.Mutex
	db      *sql.DB
	dsIDs   map[string]int64  // dataset key -> datasets.ds
	allNew  map[int64]bool    // datasets whose last mint found none of its keys
	selects map[int]*sql.Stmt // lookup queries by number of keys (powers of two)
	inserts map[int]*sql.Stmt // insert statements by number of rows (powers of two)
}

func newIDStore(dir string) *idStore {
	return &idStore{path: filepath.Join(dir, idsName), dsIDs: map[string]int64{}, allNew: map[int64]bool{},
		selects: map[int]*sql.Stmt{}, inserts: map[int]*sql.Stmt{}}
}

// open returns the database, creating it if create is set; without create
// and without a database file it returns nil.
func (s *idStore) open(ctx context.Context, create bool) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		return s.db, nil
	}
	if !create {
		if _, err := os.Stat(s.path); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	// WAL lets lookups run beside a writer; busy_timeout waits for writers
	// of other processes. A committed transaction is in the log file, which
	// a crash of the process does not lose; synchronous=NORMAL leaves
	// syncing it to checkpoints and to sync, which every dataset commit
	// calls before it publishes ids: a sync per minted chunk would make the
	// file system flush everything else an ingest writes as often.
	dsn := "file:" + s.path + "?_pragma=busy_timeout(60000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", idsName, err)
	}
	db.SetMaxOpenConns(4)
	if err := createSchema(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("create %s: %w", idsName, err)
	}
	if err := s.prepare(ctx, db); err != nil {
		s.closeStmts()
		db.Close()
		return nil, fmt.Errorf("prepare %s statements: %w", idsName, err)
	}
	s.db = db
	return db, nil
}

// createSchema creates the tables in a write transaction (BEGIN
// IMMEDIATE, see open's _txlock), retrying while SQLite answers BUSY at
// once instead of waiting: two processes opening a new database together
// both switch it to WAL and read its schema before asking for the write
// lock, and SQLite refuses one of them rather than let them wait on each
// other (TestMintAcrossStores failed that way 4 to 13 times in 200-400
// runs).
func createSchema(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(time.Minute) // busy_timeout's wait
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := createSchemaOnce(ctx, db)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

func createSchemaOnce(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, idsSchema); err != nil {
		return err
	}
	return tx.Commit()
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (any extended code).
func isBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}

// closeStmts closes the prepared statements; s.mu is held.
func (s *idStore) closeStmts() {
	for _, st := range s.selects {
		st.Close()
	}
	for _, st := range s.inserts {
		st.Close()
	}
	s.selects, s.inserts = map[int]*sql.Stmt{}, map[int]*sql.Stmt{}
}

func (s *idStore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	s.closeStmts()
	err := s.db.Close()
	s.db = nil
	return err
}

// datasetID returns the row id of a dataset, adding it when new.
func (s *idStore) datasetID(ctx context.Context, db *sql.DB, key string) (int64, error) {
	s.mu.Lock()
	id, ok := s.dsIDs[key]
	s.mu.Unlock()
	if ok {
		return id, nil
	}
	err := db.QueryRowContext(ctx, `SELECT ds FROM datasets WHERE key = ?`, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = db.QueryRowContext(ctx, `INSERT INTO datasets (key) VALUES (?)
			ON CONFLICT (key) DO UPDATE SET key = excluded.key RETURNING ds`, key).Scan(&id)
	}
	if err != nil {
		return 0, fmt.Errorf("dataset %s in %s: %w", key, idsName, err)
	}
	s.mu.Lock()
	s.dsIDs[key] = id
	s.mu.Unlock()
	return id, nil
}

// prepare prepares the lookup and insert statements for every power of
// two of keys up to lookupBatch on db, when the database is opened: a
// statement prepared on the pool is prepared once on each connection that
// runs it and reused there, also within transactions (tx.StmtContext),
// where preparing a new one would parse its SQL on every call (a fifth of
// minting's CPU) and preparing on the pool could wait for a connection
// that writers waiting for this transaction's lock hold.
func (s *idStore) prepare(ctx context.Context, db *sql.DB) error {
	for n := 1; n <= lookupBatch; n *= 2 {
		sel, err := db.PrepareContext(ctx, `SELECT key, id FROM ids WHERE ds = ? AND key IN (?`+strings.Repeat(",?", n-1)+`)`)
		if err != nil {
			return err
		}
		s.selects[n] = sel
		ins, err := db.PrepareContext(ctx, `INSERT INTO ids (ds, key, id) VALUES (?,?,?)`+strings.Repeat(",(?,?,?)", n-1)+` ON CONFLICT (ds, key) DO NOTHING`)
		if err != nil {
			return err
		}
		s.inserts[n] = ins
	}
	return nil
}

// stmt returns st, run in transaction tx when it is not nil.
func stmt(ctx context.Context, tx *sql.Tx, st *sql.Stmt) *sql.Stmt {
	if tx != nil {
		return tx.StmtContext(ctx, st)
	}
	return st
}

// lookup adds to found the ids keys already have in dataset ds, with
// queries of at most lookupBatch keys (padded to a power of two by
// repeating the last key, so that a few prepared statements serve all).
// tx, when not nil, runs them in that transaction.
func (s *idStore) lookup(ctx context.Context, db *sql.DB, tx *sql.Tx, ds int64, keys []string, found map[string]int64) error {
	args := make([]any, 0, 1+lookupBatch)
	for len(keys) > 0 {
		part := keys[:min(len(keys), lookupBatch)]
		keys = keys[len(part):]
		n := 1 << bits.Len(uint(len(part)-1))
		s.mu.Lock()
		st := stmt(ctx, tx, s.selects[n])
		s.mu.Unlock()
		args = append(args[:0], ds)
		for i := 0; i < n; i++ {
			args = append(args, part[min(i, len(part)-1)])
		}
		rows, err := st.QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k string
			var id int64
			if err := rows.Scan(&k, &id); err != nil {
				rows.Close()
				return err
			}
			found[k] = id
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// MintIDs gives keys the ids they have in the dataset, or new ones from the
// table's counter (see occurrence.IDMinter). Known keys are found without
// a write; new ones are numbered and inserted in one transaction, which
// takes SQLite's write lock: writers of several processes and datasets mint
// one after another, each seeing what the others inserted.
func (s *Store) MintIDs(ctx context.Context, datasetKey string, keys []string, ids []int64) error {
	if err := occurrence.CheckMintArgs(datasetKey, keys, ids); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	db, err := s.ids.open(ctx, true)
	if err != nil {
		return err
	}
	ds, err := s.ids.datasetID(ctx, db, datasetKey)
	if err != nil {
		return err
	}
	uniq := occurrence.DistinctKeys(keys)
	found := make(map[string]int64, len(uniq))
	// The first ingest of a dataset mints only new keys: after a call that
	// found none, the keys are looked up in the write transaction only.
	s.ids.mu.Lock()
	allNew := s.ids.allNew[ds]
	s.ids.mu.Unlock()
	if !allNew {
		if err := s.ids.lookup(ctx, db, nil, ds, uniq, found); err != nil {
			return fmt.Errorf("look up ids of %s: %w", datasetKey, err)
		}
	}
	fresh := 0
	if len(found) < len(uniq) {
		var err error
		if fresh, err = s.ids.insertNew(ctx, db, ds, uniq, found, !allNew); err != nil {
			return fmt.Errorf("mint ids of %s: %w", datasetKey, err)
		}
	}
	s.ids.mu.Lock()
	s.ids.allNew[ds] = fresh == len(uniq)
	s.ids.mu.Unlock()
	for i, k := range keys {
		ids[i] = found[k]
	}
	return nil
}

// insertNew numbers the keys of uniq not in found that the database does
// not hold either, in order, inserts them, adds them to found and returns
// how many it inserted. looked says whether found is the result of a
// lookup of uniq; when it is not (the dataset's last mint found none of its
// keys), the keys are first inserted as new without a lookup, in a
// transaction committed only when every one was new: in a first ingest
// that halves the statements, and a key another writer minted meanwhile
// rolls it back to the looked-up path.
func (s *idStore) insertNew(ctx context.Context, db *sql.DB, ds int64, uniq []string, found map[string]int64, looked bool) (int, error) {
	var missing []string
	for _, k := range uniq {
		if _, ok := found[k]; !ok {
			missing = append(missing, k)
		}
	}
	if !looked {
		if n, ok, err := s.mintTx(ctx, db, ds, missing, found, false); ok || err != nil {
			return n, err
		}
	}
	n, _, err := s.mintTx(ctx, db, ds, missing, found, true)
	return n, err
}

// mintTx numbers keys from the counter and inserts them in one write
// transaction. With lookup set it first adds to found, in the transaction,
// the keys another writer minted since the caller looked, and inserts the
// rest; without, it commits only when the database held none of keys
// (ok false: rolled back, nothing changed). It returns how many keys it
// inserted and adds them to found.
func (s *idStore) mintTx(ctx context.Context, db *sql.DB, ds int64, keys []string, found map[string]int64, lookup bool) (n int, ok bool, err error) {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock): the write lock first
	if err != nil {
		return 0, false, err
	}
	defer tx.Rollback()
	fresh := keys
	if lookup {
		// Another writer may have minted some since the first look.
		if err := s.lookup(ctx, db, tx, ds, keys, found); err != nil {
			return 0, false, err
		}
		fresh = make([]string, 0, len(keys))
		for _, k := range keys {
			if _, ok := found[k]; !ok {
				fresh = append(fresh, k)
			}
		}
	}
	if len(fresh) == 0 {
		return 0, true, tx.Commit()
	}
	var last int64
	if err := tx.QueryRowContext(ctx, `UPDATE counter SET last = last + ? WHERE one = 1 RETURNING last`, len(fresh)).Scan(&last); err != nil {
		return 0, false, err
	}
	if last > occurrence.MaxID {
		return 0, false, fmt.Errorf("the table's gbifID counter passed 2^53-1")
	}
	first := last - int64(len(fresh)) + 1
	args := make([]any, 0, 3*lookupBatch)
	var inserted int64
	for done := 0; done < len(fresh); {
		// The largest power of two of rows left, at most lookupBatch.
		n := min(1<<(bits.Len(uint(len(fresh)-done))-1), lookupBatch)
		args = args[:0]
		for i := done; i < done+n; i++ {
			args = append(args, ds, fresh[i], first+int64(i))
		}
		s.mu.Lock()
		st := stmt(ctx, tx, s.inserts[n])
		s.mu.Unlock()
		res, err := st.ExecContext(ctx, args...)
		if err != nil {
			return 0, false, err
		}
		added, err := res.RowsAffected()
		if err != nil {
			return 0, false, err
		}
		inserted += added
		done += n
	}
	if inserted != int64(len(fresh)) {
		if lookup {
			return 0, false, fmt.Errorf("inserted %d of %d keys looked up as new in the write transaction", inserted, len(fresh))
		}
		return 0, false, nil
	}
	if err := tx.Commit(); err != nil {
		return 0, false, err
	}
	for i, k := range fresh {
		found[k] = first + int64(i)
	}
	return len(fresh), true, nil
}

// sync makes every id minted so far durable on disk, also against a crash
// of the machine: it syncs the database's log and file (a checkpoint syncs
// the log before it copies frames into the file, and the file after). An
// fsync covers what any process wrote to the file.
func (s *idStore) sync() error {
	s.mu.Lock()
	opened := s.db != nil
	s.mu.Unlock()
	if !opened {
		return nil // this store minted nothing
	}
	for _, p := range []string{s.path + "-wal", s.path} {
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sync %s: %w", filepath.Base(p), err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return fmt.Errorf("sync %s: %w", filepath.Base(p), err)
		}
	}
	return nil
}

// addAliases records old[i] -> new[i]; an id that has an alias keeps it.
func (s *idStore) addAliases(ctx context.Context, old, new []int64) error {
	if len(old) == 0 {
		return nil
	}
	db, err := s.open(ctx, true)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO aliases (old, new) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range old {
		if _, err := st.ExecContext(ctx, old[i], new[i]); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// ResolveID returns the id that replaced old when its dataset was loaded
// again (see occurrence.IDResolver).
func (s *Store) ResolveID(ctx context.Context, old int64) (int64, error) {
	db, err := s.ids.open(ctx, false)
	if err != nil {
		return 0, err
	}
	if db == nil {
		return 0, fmt.Errorf("%w: %d", occurrence.ErrNoAlias, old)
	}
	var id int64
	err = db.QueryRowContext(ctx, `SELECT new FROM aliases WHERE old = ?`, old).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%w: %d", occurrence.ErrNoAlias, old)
	}
	if err != nil {
		return 0, fmt.Errorf("resolve gbifID %d: %w", old, err)
	}
	return id, nil
}

// migrateLegacyIDs mints ids for the records of dataset key's current
// version when the table did not mint them (a table written before it
// minted ids) and records each old id as an alias of the new one. It runs
// again until a version with minted ids is committed; the lookup's ids
// and aliases are the same each time.
func (s *Store) migrateLegacyIDs(ctx context.Context, key string) error {
	m, err := s.current()
	if err != nil {
		return err
	}
	e, ok := m.Datasets[key]
	if !ok || e.IDs == idsMinted {
		return nil
	}
	var aliases int
	for _, sp := range snapshotOf(m).Splits {
		if sp.Ref.(splitRef).dataset != key {
			continue
		}
		_, err := s.ScanSplit(ctx, sp, occurrence.ScanRequest{Columns: occurrence.LegacyIDColumns}, func(b arrow.RecordBatch) error {
			old, new, err := occurrence.LegacyAliases(ctx, s, key, b)
			if err == nil {
				err = s.ids.addAliases(ctx, old, new)
			}
			aliases += len(old)
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate the gbifIDs of %s: %w", key, err)
		}
	}
	s.logger.Info("gbifIDs minted for a dataset stored with older ids", "dataset", key, "aliases", aliases)
	return nil
}
