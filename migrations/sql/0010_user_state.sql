-- Account state for `downloader user disable|enable|remove|list`: a
-- disabled user cannot authenticate; last_login is when the user last
-- authenticated with a password (Unix ms, 0 = never recorded); removed is
-- when an account with downloads was closed (its row stays, without e-mail
-- or password, so that its downloads keep their creator; 0 = not removed).
ALTER TABLE users ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE users ADD COLUMN last_login BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN removed BIGINT NOT NULL DEFAULT 0;
