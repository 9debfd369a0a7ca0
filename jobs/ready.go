package jobs

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// TableSnapshot describes the occurrence table's current snapshot.
type TableSnapshot struct {
	ID string
	// Created is when the snapshot was published; zero when the backend
	// does not record it.
	Created time.Time
}

// TableInfo is implemented by engines that can describe the table they read;
// readiness checks and the snapshot-age metric use it.
type TableInfo interface {
	TableSnapshot(ctx context.Context) (TableSnapshot, error)
}

// StorageChecker is implemented by storages that can tell whether they are
// reachable (the bucket answers, the directory exists).
type StorageChecker interface {
	Check(ctx context.Context) error
}

// UploadAborter is implemented by storages that can discard the unfinished
// uploads of the objects whose names begin with a prefix: the attempts of a
// download whose worker was killed mid-upload.
type UploadAborter interface {
	AbortUploads(ctx context.Context, prefix string) error
}

// abortDeadUploads discards the unfinished uploads of the earlier attempts
// of the download key: when a worker has just claimed it, and when it ends
// (succeeded, cancelled with no live lease, killed), so that a killed
// worker's partial archive does not wait for the daily sweep. An attempt's
// object is named after the key (runExport), and at those moments no live
// worker writes it any more (one that lost its lease fails its commit).
func (s *Service) abortDeadUploads(ctx context.Context, key string) {
	a, ok := s.store.(UploadAborter)
	if !ok {
		return
	}
	if err := a.AbortUploads(ctx, key+"-"); err != nil {
		s.logger.WarnContext(ctx, "discarding the unfinished uploads of earlier attempts", "err", err)
	}
}

// tableInfo finds the TableInfo of e, looking through engines that wrap
// another (Unwrap() Engine).
func tableInfo(e Engine) (TableInfo, bool) {
	for e != nil {
		if ti, ok := e.(TableInfo); ok {
			return ti, true
		}
		u, ok := e.(interface{ Unwrap() Engine })
		if !ok {
			return nil, false
		}
		e = u.Unwrap()
	}
	return nil, false
}

// Check is the outcome of one readiness check.
type Check struct {
	Name string
	Err  error
}

// Components checked by Ready, in order.
const (
	CheckDatabase = "database"
	CheckTable    = "table"
	CheckStorage  = "storage"
)

// Ready checks that the job database, the occurrence table and the archive
// storage answer, each within the time ctx allows. A component that cannot
// be checked (an engine or storage without a check) passes.
func (s *Service) Ready(ctx context.Context) []Check {
	return []Check{
		{CheckDatabase, s.checkDatabase(ctx)},
		{CheckTable, s.checkTable(ctx)},
		{CheckStorage, s.checkStorage(ctx)},
	}
}

func (s *Service) checkDatabase(ctx context.Context) error {
	var one int
	err := s.db.read.QueryRowContext(ctx, "SELECT 1 FROM downloads LIMIT 1").Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}

func (s *Service) checkTable(ctx context.Context) error {
	if s.engine == nil {
		return ErrEngineUnavailable
	}
	ti, ok := tableInfo(s.engine)
	if !ok {
		return nil
	}
	_, err := ti.TableSnapshot(ctx)
	return err
}

func (s *Service) checkStorage(ctx context.Context) error {
	if c, ok := s.store.(StorageChecker); ok {
		return c.Check(ctx)
	}
	return nil
}
