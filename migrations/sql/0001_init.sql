-- Users, downloads, per-dataset counts and the key counter.
-- Dialect-neutral: runs unchanged on SQLite and PostgreSQL. Times are Unix
-- milliseconds (BIGINT) so both dialects scan them the same way.
CREATE TABLE users (
    name          TEXT PRIMARY KEY,
    email         TEXT NOT NULL DEFAULT '',
    password_hash TEXT NOT NULL,
    admin         BOOLEAN NOT NULL DEFAULT FALSE,
    created       BIGINT NOT NULL
);

CREATE TABLE key_sequence (
    name  TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
INSERT INTO key_sequence (name, value) VALUES ('download', 0);

CREATE TABLE downloads (
    key             TEXT PRIMARY KEY,
    creator         TEXT NOT NULL REFERENCES users (name),
    status          TEXT NOT NULL,
    format          TEXT NOT NULL,
    predicate       TEXT,
    request         TEXT NOT NULL,
    dedupe_hash     TEXT NOT NULL,
    created         BIGINT NOT NULL,
    modified        BIGINT NOT NULL,
    erase_after     BIGINT NOT NULL,
    size            BIGINT NOT NULL DEFAULT 0,
    total_records   BIGINT NOT NULL DEFAULT 0,
    number_datasets BIGINT NOT NULL DEFAULT 0,
    license         TEXT NOT NULL DEFAULT '',
    table_snapshot  TEXT NOT NULL DEFAULT '',
    object_name     TEXT NOT NULL DEFAULT '',
    sha256          TEXT NOT NULL DEFAULT '',
    records_scanned BIGINT NOT NULL DEFAULT 0,
    records_written BIGINT NOT NULL DEFAULT 0,
    bytes_written   BIGINT NOT NULL DEFAULT 0,
    error           TEXT NOT NULL DEFAULT '',
    attempts        INTEGER NOT NULL DEFAULT 0,
    lease_owner     TEXT NOT NULL DEFAULT '',
    lease_until     BIGINT NOT NULL DEFAULT 0,
    river_job_id    BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX downloads_creator_created ON downloads (creator, created);
CREATE INDEX downloads_dedupe ON downloads (dedupe_hash, created);
CREATE INDEX downloads_status_erase ON downloads (status, erase_after);

CREATE TABLE download_datasets (
    download_key  TEXT NOT NULL REFERENCES downloads (key) ON DELETE CASCADE,
    dataset_key   TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    record_count  BIGINT NOT NULL,
    license       TEXT NOT NULL DEFAULT '',
    citation      TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (download_key, dataset_key)
);

