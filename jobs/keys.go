package jobs

import (
	"context"
	"fmt"
	"time"
)

// Keys have GBIF's shape NNNNNNN-yyMMddHHmmssSSS: a counter and the start time
// of the process that issued it. The counter comes from one row of the shared
// database, incremented atomically, so it is unique across processes and
// restarts whatever the clocks say; the time suffix only tells a reader which
// process start issued the key. Past 9,999,999 the counter simply grows wider.
const keyTimeLayout = "060102150405"

// nextKey draws the next counter value and formats a key for a process that
// started at started.
func (db *DB) nextKey(ctx context.Context, q querier, started time.Time) (string, error) {
	var n int64
	err := q.QueryRowContext(ctx,
		db.q("UPDATE key_sequence SET value = value + 1 WHERE name = ? RETURNING value"), "download").Scan(&n)
	if err != nil {
		return "", fmt.Errorf("next download key: %w", err)
	}
	return formatKey(n, started), nil
}

func formatKey(n int64, started time.Time) string {
	t := started.UTC()
	return fmt.Sprintf("%07d-%s%03d", n, t.Format(keyTimeLayout), t.Nanosecond()/int(time.Millisecond))
}
