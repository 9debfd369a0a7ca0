-- Why a download's error happened, as the job service classifies it
-- (jobs.failureReason: query, too_large, internal; '' for none and for rows
-- written before this column). The error text stays whole for operators and
-- admins; a creator is shown the text of an internal error only as a
-- sentence that names the download, since it holds the server's paths and
-- addresses.
ALTER TABLE downloads ADD COLUMN error_kind TEXT NOT NULL DEFAULT '';
