-- Mail worth receiving: the language a user reads mail in (a BCP 47 tag,
-- '' for none), the languages of the request that created a download (its
-- Accept-Language header, '' for none), and the notices sent. A row of
-- mail_notices is written in the transaction that completes the notice's
-- queue job, after the SMTP server accepted the message: a notice whose row
-- exists is never sent again. message_id is derived from idempotency_key, so
-- the one repeat a crash between acceptance and that transaction can cause
-- carries the same Message-ID.
ALTER TABLE users ADD COLUMN language TEXT NOT NULL DEFAULT '';
ALTER TABLE downloads ADD COLUMN language TEXT NOT NULL DEFAULT '';

CREATE TABLE mail_notices (
    idempotency_key TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,
    download_key    TEXT NOT NULL DEFAULT '',
    message_id      TEXT NOT NULL,
    recipients      TEXT NOT NULL,
    language        TEXT NOT NULL,
    sent            BIGINT NOT NULL
);
CREATE INDEX mail_notices_download ON mail_notices (download_key);
