-- The portal page (web/ui): sign-in sessions and the messages users send
-- to a record's publisher.
--
-- A session is found by the SHA-256 of its cookie's token (hex), so the
-- table alone does not let anyone act as a user; csrf is the token the page
-- sends back with every change it asks for. Times are Unix milliseconds;
-- expires moves forward as the session is used, never past
-- created + the longest life.
CREATE TABLE page_sessions (
    token_hash TEXT PRIMARY KEY,
    user_name  TEXT NOT NULL REFERENCES users (name) ON DELETE CASCADE,
    csrf       TEXT NOT NULL,
    created    BIGINT NOT NULL,
    seen       BIGINT NOT NULL,
    expires    BIGINT NOT NULL
);
CREATE INDEX page_sessions_user ON page_sessions (user_name);
CREATE INDEX page_sessions_expires ON page_sessions (expires);

-- A message to a record's publisher ("contact the publisher"): mailed to
-- the dataset's contact with the sender in Cc (the contact notice; its
-- idempotency key is contact/<id>). Rows are kept: they count a sender's
-- messages for the rate limit and say what was sent to whom.
CREATE TABLE contact_messages (
    id           TEXT PRIMARY KEY,
    sender       TEXT NOT NULL REFERENCES users (name) ON DELETE CASCADE,
    sender_name  TEXT NOT NULL,
    sender_email TEXT NOT NULL,
    recipient    TEXT NOT NULL,
    recipient_name TEXT NOT NULL DEFAULT '',
    gbif_id      BIGINT NOT NULL,
    dataset_key  TEXT NOT NULL,
    dataset_title TEXT NOT NULL DEFAULT '',
    record_url   TEXT NOT NULL,
    subject      TEXT NOT NULL,
    body         TEXT NOT NULL,
    language     TEXT NOT NULL DEFAULT '',
    created      BIGINT NOT NULL
);
CREATE INDEX contact_messages_sender ON contact_messages (sender, created);
