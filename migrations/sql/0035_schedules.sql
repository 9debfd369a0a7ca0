-- Schedules (docs/operations.md, "Schedules"): the runs of the configured
-- schedules, and what erasure warnings and scheduled exports record on a
-- download.
--
-- downloads.erasure_notification is GBIF's erasureNotification: when the
-- warning that the archive will be erased was sent (recorded with the
-- notice; 0: never). erase_warned is the erase_after the last warning was
-- queued for, so that a warning is queued once per erasure date (a
-- postponement moves erase_after and calls for a new one). schedule names
-- the schedule that created a download (scheduled exports; '' for users'
-- requests); shares_archive_of is the download whose archive an unfiltered
-- request was answered with ('' for one that has its own).
ALTER TABLE downloads ADD COLUMN erasure_notification BIGINT NOT NULL DEFAULT 0;
ALTER TABLE downloads ADD COLUMN erase_warned BIGINT NOT NULL DEFAULT 0;
ALTER TABLE downloads ADD COLUMN schedule TEXT NOT NULL DEFAULT '';
ALTER TABLE downloads ADD COLUMN shares_archive_of TEXT NOT NULL DEFAULT '';
CREATE INDEX downloads_schedule ON downloads (schedule, format, status, created);
CREATE INDEX downloads_object ON downloads (object_name);

-- One row per run of a schedule: a fire of its cron expression, or a run
-- asked for by hand. (schedule, fire) is the key, so two workers that both
-- get a job for the same fire run it once: the second finds the row. job_id
-- is the River job that runs it now (a requeued run changes it); the lease
-- says which worker runs it and until when, renewed while it runs, so a
-- run whose worker died is queued again. An export run stays 'running'
-- with the key of the download it submitted until that download finishes.
-- Times are Unix milliseconds.
CREATE TABLE schedule_runs (
    schedule     TEXT NOT NULL,
    fire         BIGINT NOT NULL,
    kind         TEXT NOT NULL,
    run_trigger  TEXT NOT NULL,
    status       TEXT NOT NULL,
    started      BIGINT NOT NULL,
    finished     BIGINT NOT NULL DEFAULT 0,
    result       TEXT NOT NULL DEFAULT '',
    download_key TEXT NOT NULL DEFAULT '',
    job_id       BIGINT NOT NULL DEFAULT 0,
    lease_owner  TEXT NOT NULL DEFAULT '',
    lease_until  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (schedule, fire)
);
CREATE INDEX schedule_runs_status ON schedule_runs (status);
CREATE INDEX schedule_runs_started ON schedule_runs (schedule, started);
CREATE INDEX schedule_runs_job ON schedule_runs (job_id);
